package dev.twophase.crash;

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
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A participant that keeps its transactions as files in one directory, for crash tests across
 * JVMs. Records are longs, one per line.
 *
 * <ul>
 *   <li>{@code <name>.open}: an open transaction; records are buffered in memory and appended to
 *       it when the buffer fills and at pre-commit.
 *   <li>{@code <name>.prepared}: pre-committed (fsynced file, renamed, directory fsynced). Durable
 *       but invisible.
 *   <li>{@code <name>.committed}: visible. Only commit creates it, by renaming the prepared file.
 * </ul>
 *
 * Abort deletes {@code .open} and {@code .prepared} and never touches {@code .committed}. On
 * start-up, {@link #finishRecoveringContext} deletes every {@code .open}/{@code .prepared} file of
 * this coordinator's participant ({@link RecoveryContext#isOwnTransactionName}) that recovery did
 * not handle: transactions begun after the last durable record. A name is
 * never reused: beginning a transaction whose name exists in any state fails, which would expose a
 * coordinator that hands out a transaction name twice (an owner epoch that did not grow).
 */
public final class DiskParticipant implements Participant<DiskParticipant.Txn, Void>, Writable<Long, DiskParticipant.Txn> {

  /** The handle: the transaction's file base name and when it was begun. */
  public record Txn(String name, long begunAtMillis) {
    public Txn {
      Objects.requireNonNull(name, "name");
    }
  }

  public static final String OPEN = ".open";
  public static final String PREPARED = ".prepared";
  public static final String COMMITTED = ".committed";

  private static final int FLUSH_AT = 8 * 1024;
  private static final Codec<Txn> CODEC = Codecs.json(Txn.class);

  private final Path dir;
  private final Map<String, Writer> open = new ConcurrentHashMap<>();

  public DiskParticipant(Path dir) throws IOException {
    this.dir = Files.createDirectories(dir);
  }

  public Path directory() {
    return dir;
  }

  @Override
  public Codec<Txn> transactionCodec() {
    return CODEC;
  }

  @Override
  public Txn beginTransaction(TransactionContext<Void> context) throws Exception {
    String name = context.transactionName();
    if (Files.exists(file(name, PREPARED)) || Files.exists(file(name, COMMITTED))) {
      throw new FileAlreadyExistsException(
          file(name, PREPARED).toString(), null, "transaction name reused: " + name);
    }
    FileChannel ch = FileChannel.open(file(name, OPEN), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    open.put(name, new Writer(ch));
    return new Txn(name, System.currentTimeMillis());
  }

  @Override
  public RecordWriter<Long> writerFor(Txn transaction) {
    Writer w = open.get(transaction.name());
    if (w == null) {
      throw new FatalTwoPhaseException("transaction " + transaction.name() + " is not open here");
    }
    return w::append;
  }

  @Override
  public Txn preCommit(Txn transaction) throws Exception {
    Writer w = open.remove(transaction.name());
    if (w == null) {
      if (Files.exists(file(transaction.name(), PREPARED))) {
        return transaction; // pre-committed already
      }
      throw new FatalTwoPhaseException("transaction " + transaction.name() + " is not open here");
    }
    w.flush();
    w.ch.force(true);
    w.ch.close();
    Files.move(file(transaction.name(), OPEN), file(transaction.name(), PREPARED), StandardCopyOption.ATOMIC_MOVE);
    syncDirectory();
    return transaction;
  }

  @Override
  public CommitOutcome commit(Txn transaction) throws Exception {
    Path prepared = file(transaction.name(), PREPARED);
    Path committed = file(transaction.name(), COMMITTED);
    try {
      Files.move(prepared, committed, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return Files.exists(committed) ? CommitOutcome.ALREADY_COMMITTED : CommitOutcome.LOST;
    }
    syncDirectory();
    return CommitOutcome.COMMITTED;
  }

  @Override
  public void abort(Txn transaction) throws Exception {
    delete(transaction);
  }

  /** A committed transaction is left alone and reported: the log must have lost its decision. */
  @Override
  public AbortOutcome recoverAndAbort(Txn transaction) throws Exception {
    if (Files.exists(file(transaction.name(), COMMITTED))) {
      return AbortOutcome.COMMITTED;
    }
    return delete(transaction) ? AbortOutcome.ABORTED : AbortOutcome.NOT_FOUND;
  }

  private boolean delete(Txn transaction) throws IOException {
    Writer w = open.remove(transaction.name());
    if (w != null) {
      w.ch.close();
    }
    boolean deleted = Files.deleteIfExists(file(transaction.name(), OPEN));
    deleted |= Files.deleteIfExists(file(transaction.name(), PREPARED));
    if (deleted) {
      syncDirectory();
    }
    return deleted;
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<Txn, Void> context) throws Exception {
    Set<String> handled = new HashSet<>();
    for (Txn t : context.handledTransactions()) {
      handled.add(t.name());
    }
    boolean deleted = false;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path p : files) {
        String fileName = p.getFileName().toString();
        String base = baseName(fileName, OPEN);
        if (base == null) {
          base = baseName(fileName, PREPARED);
        }
        // Only this coordinator's participant's names (any incarnation), never another's files.
        if (base != null && context.isOwnTransactionName(base) && !handled.contains(base)
            && !open.containsKey(base)) {
          deleted |= Files.deleteIfExists(p);
        }
      }
    }
    if (deleted) {
      syncDirectory();
    }
  }

  @Override
  public void close() throws Exception {
    for (Writer w : open.values()) {
      w.ch.close();
    }
    open.clear();
  }

  private static String baseName(String fileName, String suffix) {
    return fileName.endsWith(suffix) ? fileName.substring(0, fileName.length() - suffix.length()) : null;
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
    return "DiskParticipant[" + dir + "]";
  }

  /** An open transaction's file and its buffer of not yet written lines. */
  private static final class Writer {
    final FileChannel ch;
    final StringBuilder buffer = new StringBuilder();

    Writer(FileChannel ch) {
      this.ch = ch;
    }

    void append(long record) throws IOException {
      buffer.append(record).append('\n');
      if (buffer.length() >= FLUSH_AT) {
        flush();
      }
    }

    void flush() throws IOException {
      ByteBuffer bytes = ByteBuffer.wrap(buffer.toString().getBytes(StandardCharsets.US_ASCII));
      while (bytes.hasRemaining()) {
        ch.write(bytes);
      }
      buffer.setLength(0);
    }
  }
}
