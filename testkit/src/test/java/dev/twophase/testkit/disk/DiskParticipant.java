package dev.twophase.testkit.disk;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.CommitOutcome;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * A participant that keeps each transaction in a file of its directory, one line per record, for
 * the testkit's own tests of the crash harness: what a participant author would write, with named
 * crash points and a {@link FaultInjector} taken in its builder, and with {@link Flaw}s that the
 * harness must catch.
 *
 * <ul>
 *   <li>{@code <name>.open}: an open transaction; records are buffered in memory and written to it
 *       at pre-commit.
 *   <li>{@code <name>.prepared}: pre-committed: written, fsynced, renamed, directory fsynced.
 *   <li>{@code <name>.committed}: visible. Commit renames the prepared file (one atomic step) and
 *       fsyncs the directory before it returns.
 * </ul>
 * Abort deletes {@code .open} and {@code .prepared}, never {@code .committed}.
 * {@code finishRecoveringContext} deletes every {@code .open}/{@code .prepared} file of this
 * coordinator's participant that recovery did not handle. Files are opened through a
 * {@link Channels} factory, so that a test can track them as a process's resources.
 *
 * <p>Crash points, called through the injector: {@value #PRE_COMMIT_WRITTEN} (the records are in
 * the {@code .open} file, not yet synced or renamed), {@value #COMMIT_START} (commit called,
 * nothing done yet) and {@value #COMMIT_RENAMED} (renamed to {@code .committed}, the directory not
 * yet synced); the flawed commits add {@value #COMMIT_HALF} and {@value #COMMIT_APPENDED}.
 */
public final class DiskParticipant implements Participant<DiskParticipant.Txn, Void>, Writable<String, DiskParticipant.Txn> {

  /** The handle: the transaction's file name, without suffix. */
  public record Txn(String name) {
    /** Checks the name. */
    public Txn {
      Objects.requireNonNull(name, "name");
    }
  }

  /** Opens a file: how the participant gets its file channels. */
  @FunctionalInterface
  public interface Channels {
    /** Opens {@code file} like {@link FileChannel#open(Path, OpenOption...)}. */
    FileChannel open(Path file, OpenOption... options) throws IOException;
  }

  /** A deliberate bug, for the harness's self-test. */
  public enum Flaw {
    /** None: a correct participant. */
    NONE,
    /**
     * Commit writes the first half of the records to the committed file, reaches
     * {@value #COMMIT_HALF}, then the rest; a repeated commit that finds the committed file reports
     * ALREADY_COMMITTED. Not atomic, and recovery does not finish it.
     */
    HALF_PUBLISHED_COMMIT,
    /**
     * Commit appends the records to a shared {@value #PUBLISHED} file, reaches
     * {@value #COMMIT_APPENDED}, then deletes the prepared file; a repeat appends again if the
     * prepared file is still there. Not idempotent.
     */
    APPEND_THEN_DELETE,
    /** preCommit leaves the records in memory (the prepared file is empty); commit writes them. */
    BUFFERED_UNTIL_COMMIT,
    /** recoverAndAbort commits a prepared transaction, taking "prepared" for "decided". */
    PREPARED_MEANS_DECIDED,
    /** finishRecoveringContext does nothing: leftovers of a crash stay open. */
    NO_LEFTOVER_CLEANUP,
    /** Commit waits forever for something that never happens. */
    HANGING_COMMIT
  }

  /** Crash point: records written to the {@code .open} file, not synced nor renamed. */
  public static final String PRE_COMMIT_WRITTEN = "disk.preCommit.written";
  /** Crash point: commit called, nothing done yet. */
  public static final String COMMIT_START = "disk.commit.start";
  /** Crash point: renamed to {@code .committed}, the directory not synced yet. */
  public static final String COMMIT_RENAMED = "disk.commit.renamed";
  /** Crash point of {@link Flaw#HALF_PUBLISHED_COMMIT}: half of the records published. */
  public static final String COMMIT_HALF = "disk.commit.half";
  /** Crash point of {@link Flaw#APPEND_THEN_DELETE}: appended, prepared file not yet deleted. */
  public static final String COMMIT_APPENDED = "disk.commit.appended";
  /** The points a correct participant reaches. */
  public static final List<String> POINTS = List.of(PRE_COMMIT_WRITTEN, COMMIT_START, COMMIT_RENAMED);

  static final String OPEN = ".open";
  static final String PREPARED = ".prepared";
  static final String COMMITTED = ".committed";
  /** The shared file of {@link Flaw#APPEND_THEN_DELETE}. */
  static final String PUBLISHED = "published.log";

  private static final Codec<Txn> CODEC = Codecs.json(Txn.class);

  private final Path dir;
  private final FaultInjector faults;
  private final Channels channels;
  private final Flaw flaw;
  private final Consumer<String> onPublished;
  private final Map<String, FileChannel> open = new ConcurrentHashMap<>();
  private final Map<String, StringBuilder> buffers = new ConcurrentHashMap<>();
  /** Records of {@link Flaw#BUFFERED_UNTIL_COMMIT} kept in memory past preCommit. */
  private final Map<String, String> unwritten = new ConcurrentHashMap<>();

  private DiskParticipant(Builder b) throws IOException {
    this.dir = Files.createDirectories(b.dir);
    this.faults = b.faults;
    this.channels = b.channels;
    this.flaw = b.flaw;
    this.onPublished = b.onPublished;
  }

  /** A builder for a participant in {@code directory}. */
  public static Builder builder(Path directory) {
    return new Builder(directory);
  }

  /** Settings of a {@link DiskParticipant}. */
  public static final class Builder {
    private final Path dir;
    private FaultInjector faults = FaultInjector.none();
    private Channels channels = FileChannel::open;
    private Flaw flaw = Flaw.NONE;
    private Consumer<String> onPublished = name -> {};

    private Builder(Path dir) {
      this.dir = Objects.requireNonNull(dir, "dir");
    }

    /** Testing knobs: called at the crash points. Default: none. */
    public Builder faults(FaultInjector faults) {
      this.faults = Objects.requireNonNull(faults, "faults");
      return this;
    }

    /** How files are opened. Default: {@link FileChannel#open}. */
    public Builder channels(Channels channels) {
      this.channels = Objects.requireNonNull(channels, "channels");
      return this;
    }

    /** A deliberate bug. Default: none. */
    public Builder flaw(Flaw flaw) {
      this.flaw = Objects.requireNonNull(flaw, "flaw");
      return this;
    }

    /** Told the name of each transaction a commit made visible, right after. Default: nothing. */
    public Builder onPublished(Consumer<String> listener) {
      this.onPublished = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Builds the participant, creating the directory if needed. */
    public DiskParticipant build() throws IOException {
      return new DiskParticipant(this);
    }
  }

  @Override
  public Codec<Txn> transactionCodec() {
    return CODEC;
  }

  @Override
  public Txn beginTransaction(TransactionContext<Void> context) throws IOException {
    String name = context.transactionName();
    open.put(name, channels.open(file(name, OPEN), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
    buffers.put(name, new StringBuilder());
    return new Txn(name);
  }

  @Override
  public RecordWriter<String> writerFor(Txn transaction) {
    StringBuilder buffer = buffers.get(transaction.name());
    if (buffer == null) {
      throw new FatalTwoPhaseException("transaction " + transaction.name() + " is not open here");
    }
    return record -> {
      if (record.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("a record must not contain a line break");
      }
      buffer.append(record).append('\n');
    };
  }

  @Override
  public Txn preCommit(Txn transaction) throws IOException {
    String name = transaction.name();
    FileChannel channel = open.remove(name);
    StringBuilder buffer = buffers.remove(name);
    if (channel == null) {
      if (Files.exists(file(name, PREPARED))) {
        return transaction; // pre-committed already
      }
      throw new FatalTwoPhaseException("transaction " + name + " is not open here");
    }
    try (channel) {
      if (flaw == Flaw.BUFFERED_UNTIL_COMMIT) {
        unwritten.put(name, buffer.toString());
      } else {
        write(channel, buffer.toString());
      }
      faults.reached(PRE_COMMIT_WRITTEN);
      channel.force(true);
    }
    Files.move(file(name, OPEN), file(name, PREPARED), StandardCopyOption.ATOMIC_MOVE);
    syncDirectory();
    return transaction;
  }

  @Override
  public CommitOutcome commit(Txn transaction) throws Exception {
    faults.reached(COMMIT_START);
    String name = transaction.name();
    switch (flaw) {
      case HALF_PUBLISHED_COMMIT -> {
        return commitInHalves(name);
      }
      case APPEND_THEN_DELETE -> {
        return commitByAppending(name);
      }
      case HANGING_COMMIT -> {
        new CountDownLatch(1).await(); // never counted down
        throw new IllegalStateException("unreachable");
      }
      case BUFFERED_UNTIL_COMMIT -> {
        String records = unwritten.remove(name);
        if (records != null && Files.exists(file(name, PREPARED))) {
          try (FileChannel channel = channels.open(file(name, PREPARED), StandardOpenOption.APPEND)) {
            write(channel, records);
            channel.force(true);
          }
        }
      }
      default -> {}
    }
    try {
      Files.move(file(name, PREPARED), file(name, COMMITTED), StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return Files.exists(file(name, COMMITTED)) ? CommitOutcome.ALREADY_COMMITTED : CommitOutcome.LOST;
    }
    faults.reached(COMMIT_RENAMED);
    syncDirectory();
    onPublished.accept(name);
    return CommitOutcome.COMMITTED;
  }

  private CommitOutcome commitInHalves(String name) throws IOException {
    Path prepared = file(name, PREPARED);
    Path committed = file(name, COMMITTED);
    if (Files.exists(committed)) {
      Files.deleteIfExists(prepared);
      return CommitOutcome.ALREADY_COMMITTED;
    }
    if (!Files.exists(prepared)) {
      return CommitOutcome.LOST;
    }
    List<String> lines = Files.readAllLines(prepared, StandardCharsets.UTF_8);
    int half = lines.size() / 2;
    try (FileChannel channel = channels.open(committed, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      write(channel, lines(lines.subList(0, half)));
      channel.force(true);
      syncDirectory();
      faults.reached(COMMIT_HALF);
      write(channel, lines(lines.subList(half, lines.size())));
      channel.force(true);
    }
    Files.delete(prepared);
    syncDirectory();
    return CommitOutcome.COMMITTED;
  }

  private CommitOutcome commitByAppending(String name) throws IOException {
    Path prepared = file(name, PREPARED);
    if (!Files.exists(prepared)) {
      return CommitOutcome.ALREADY_COMMITTED; // cannot tell committed from lost: the flaw's guess
    }
    String records = Files.readString(prepared, StandardCharsets.UTF_8);
    try (FileChannel channel = channels.open(dir.resolve(PUBLISHED), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      write(channel, records);
      channel.force(true);
    }
    syncDirectory();
    faults.reached(COMMIT_APPENDED);
    Files.delete(prepared);
    syncDirectory();
    return CommitOutcome.COMMITTED;
  }

  @Override
  public void abort(Txn transaction) throws IOException {
    delete(transaction.name());
  }

  /** A committed transaction is left alone and reported: the log must have lost its decision. */
  @Override
  public AbortOutcome recoverAndAbort(Txn transaction) throws Exception {
    if (Files.exists(file(transaction.name(), COMMITTED))) {
      return AbortOutcome.COMMITTED;
    }
    if (flaw == Flaw.PREPARED_MEANS_DECIDED && Files.exists(file(transaction.name(), PREPARED))) {
      commit(transaction);
      return AbortOutcome.NOT_FOUND;
    }
    return delete(transaction.name()) ? AbortOutcome.ABORTED : AbortOutcome.NOT_FOUND;
  }

  private boolean delete(String name) throws IOException {
    FileChannel channel = open.remove(name);
    buffers.remove(name);
    unwritten.remove(name);
    if (channel != null) {
      channel.close();
    }
    boolean deleted = Files.deleteIfExists(file(name, OPEN));
    deleted |= Files.deleteIfExists(file(name, PREPARED));
    if (deleted) {
      syncDirectory();
    }
    return deleted;
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<Txn, Void> context) throws IOException {
    if (flaw == Flaw.NO_LEFTOVER_CLEANUP) {
      return;
    }
    Set<String> handled = new HashSet<>();
    context.handledTransactions().forEach(t -> handled.add(t.name()));
    for (String name : inProgress(dir)) {
      // Only this coordinator's participant's names (any incarnation), never another's files.
      if (context.isOwnTransactionName(name) && !handled.contains(name) && !open.containsKey(name)) {
        delete(name);
      }
    }
  }

  @Override
  public void close() throws IOException {
    for (FileChannel channel : open.values()) {
      channel.close();
    }
    open.clear();
    buffers.clear();
  }

  /** Every committed record in {@code dir}, every copy: what a reader of the directory sees. */
  public static List<String> committedRecords(Path dir) throws IOException {
    List<String> records = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return records;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (name.endsWith(COMMITTED) || name.equals(PUBLISHED)) {
          try {
            Files.readAllLines(f, StandardCharsets.UTF_8).stream().filter(l -> !l.isEmpty()).forEach(records::add);
          } catch (NoSuchFileException e) {
            // renamed meanwhile
          }
        }
      }
    }
    return records;
  }

  /** The names of the transactions open or prepared in {@code dir}, sorted. */
  public static List<String> inProgress(Path dir) throws IOException {
    List<String> names = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        String file = f.getFileName().toString();
        for (String suffix : List.of(OPEN, PREPARED)) {
          if (file.endsWith(suffix)) {
            names.add(file.substring(0, file.length() - suffix.length()));
          }
        }
      }
    }
    names.sort(null);
    return names;
  }

  private static String lines(List<String> lines) {
    StringBuilder sb = new StringBuilder();
    lines.forEach(l -> sb.append(l).append('\n'));
    return sb.toString();
  }

  private static void write(FileChannel channel, String text) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
  }

  private Path file(String name, String suffix) {
    return dir.resolve(name + suffix);
  }

  private void syncDirectory() throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  @Override
  public String toString() {
    return "DiskParticipant[" + dir + (flaw == Flaw.NONE ? "" : ", flaw " + flaw) + "]";
  }
}
