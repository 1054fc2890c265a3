package dev.twophase.testkit.crash;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.CommitOutcome;
import dev.twophase.FatalTwoPhaseException;
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

/**
 * The crash harness's own participant, registered after the one under test so that every
 * coordinator protocol point is reached (those between two participants included) and so that
 * the harness can see that both participants show the same records after each recovery. It keeps
 * one file per transaction in its directory, one record number per line:
 * {@code <name>.open} while written, {@code <name>.prepared} once pre-committed (fsynced, renamed,
 * directory fsynced), {@code <name>.committed} once committed (renamed, directory fsynced): every
 * step is a single atomic rename, so a reader never sees half a transaction.
 */
final class WitnessParticipant implements Participant<WitnessParticipant.Txn, Void>, Writable<Long, WitnessParticipant.Txn> {

  /** The handle: the transaction's name. */
  record Txn(String name) {
    Txn {
      Objects.requireNonNull(name, "name");
    }
  }

  static final String OPEN = ".open";
  static final String PREPARED = ".prepared";
  static final String COMMITTED = ".committed";

  private static final Codec<Txn> CODEC = new Codec<>() {
    @Override
    public int version() {
      return 1;
    }

    @Override
    public byte[] encode(Txn value) throws Exception {
      return Codecs.utf8().encode(value.name());
    }

    @Override
    public Txn decode(byte[] bytes, int version) throws Exception {
      return new Txn(Codecs.utf8().decode(bytes, version));
    }
  };

  private final Path dir;
  private final Map<String, FileChannel> open = new ConcurrentHashMap<>();
  private final Map<String, StringBuilder> buffers = new ConcurrentHashMap<>();

  WitnessParticipant(Path dir) throws IOException {
    this.dir = Files.createDirectories(dir);
  }

  @Override
  public Codec<Txn> transactionCodec() {
    return CODEC;
  }

  @Override
  public Txn beginTransaction(TransactionContext<Void> context) throws IOException {
    String name = context.transactionName();
    open.put(name, FileChannel.open(file(name, OPEN), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
    buffers.put(name, new StringBuilder());
    return new Txn(name);
  }

  @Override
  public RecordWriter<Long> writerFor(Txn transaction) {
    StringBuilder buffer = buffers.get(transaction.name());
    if (buffer == null) {
      throw new FatalTwoPhaseException("witness: transaction " + transaction.name() + " is not open here");
    }
    return record -> buffer.append(record.longValue()).append('\n');
  }

  @Override
  public Txn preCommit(Txn transaction) throws IOException {
    String name = transaction.name();
    FileChannel channel = open.remove(name);
    StringBuilder buffer = buffers.remove(name);
    if (channel == null) {
      throw new FatalTwoPhaseException("witness: transaction " + name + " is not open here");
    }
    try (channel) {
      ByteBuffer bytes = ByteBuffer.wrap(buffer.toString().getBytes(StandardCharsets.US_ASCII));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
    }
    Files.move(file(name, OPEN), file(name, PREPARED), StandardCopyOption.ATOMIC_MOVE);
    syncDirectory();
    return transaction;
  }

  @Override
  public CommitOutcome commit(Txn transaction) throws IOException {
    try {
      Files.move(file(transaction.name(), PREPARED), file(transaction.name(), COMMITTED), StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return Files.exists(file(transaction.name(), COMMITTED)) ? CommitOutcome.ALREADY_COMMITTED : CommitOutcome.LOST;
    }
    syncDirectory();
    return CommitOutcome.COMMITTED;
  }

  @Override
  public void abort(Txn transaction) throws IOException {
    delete(transaction.name());
  }

  @Override
  public AbortOutcome recoverAndAbort(Txn transaction) throws IOException {
    if (Files.exists(file(transaction.name(), COMMITTED))) {
      return AbortOutcome.COMMITTED;
    }
    return delete(transaction.name()) ? AbortOutcome.ABORTED : AbortOutcome.NOT_FOUND;
  }

  private boolean delete(String name) throws IOException {
    FileChannel channel = open.remove(name);
    buffers.remove(name);
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
    Set<String> handled = new HashSet<>();
    context.handledTransactions().forEach(t -> handled.add(t.name()));
    for (String name : inProgress(dir, context::isOwnTransactionName)) {
      if (!handled.contains(name) && !open.containsKey(name)) {
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

  /** The record numbers in the committed files of {@code dir}, every copy. */
  static List<Long> committed(Path dir) throws IOException {
    List<Long> records = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return records;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + COMMITTED)) {
      for (Path f : files) {
        for (String line : Files.readAllLines(f, StandardCharsets.US_ASCII)) {
          if (!line.isEmpty()) {
            records.add(Long.parseLong(line));
          }
        }
      }
    }
    return records;
  }

  /** Names of the transactions open or prepared in {@code dir} whose name {@code own} accepts. */
  static List<String> inProgress(Path dir, java.util.function.Predicate<String> own) throws IOException {
    List<String> names = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        String file = f.getFileName().toString();
        for (String suffix : List.of(OPEN, PREPARED)) {
          if (file.endsWith(suffix)) {
            String name = file.substring(0, file.length() - suffix.length());
            if (own.test(name)) {
              names.add(name);
            }
          }
        }
      }
    }
    names.sort(null);
    return names;
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
    return "WitnessParticipant[" + dir + "]";
  }
}
