package dev.twophase.file;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.testkit.ParticipantConformanceSuite;
import dev.twophase.testkit.SimulatedProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/**
 * The testkit's conformance suite against the real file system. Records are lines; a reader sees
 * the committed part files, in the order their transactions were committed (recorded here, since
 * a rename keeps no order a reader could see).
 */
class FileParticipantConformanceTest
    extends ParticipantConformanceSuite<FileTransaction, Void, CharSequence> {

  @TempDir Path dir;

  /** Transaction names in the order a commit made them visible. */
  private final List<String> commitOrder = new CopyOnWriteArrayList<>();

  /**
   * A killed process leaves its part files as they are on disk and loses what it had buffered:
   * the kill closes the participant, which drops its open files without flushing or deleting
   * anything and stops its background thread.
   */
  @Override
  protected Participant<FileTransaction, Void> newParticipant(SimulatedProcess process) {
    FileParticipant<CharSequence> real = FileParticipant.builder(dir.resolve("out"), RecordEncoders.lines())
        .maxPartRecords(3) // several parts per transaction, committed together
        .suffix(".txt")
        .build();
    process.onKill(real::close);
    return new OrderRecording(real);
  }

  @Override
  protected List<CharSequence> committedRecords() throws IOException {
    Path out = dir.resolve("out");
    List<CharSequence> records = new ArrayList<>();
    if (!Files.isDirectory(out)) {
      return records;
    }
    List<Path> files;
    try (Stream<Path> walk = Files.walk(out)) {
      files = walk.filter(p -> p.getFileName().toString().startsWith("part-")).toList();
    }
    for (String txn : commitOrder) {
      files.stream()
          .filter(p -> p.getFileName().toString().startsWith("part-" + txn + "-"))
          .sorted(Comparator.comparingInt(FileParticipantConformanceTest::index))
          .forEach(p -> readLines(p, records));
    }
    long known = files.stream().filter(p -> commitOrder.stream()
        .anyMatch(t -> p.getFileName().toString().startsWith("part-" + t + "-"))).count();
    if (known != files.size()) {
      throw new AssertionError("committed files without a recorded commit: " + files);
    }
    return records;
  }

  @Override
  protected CharSequence record(int i) {
    return "record-" + i;
  }

  @Override
  protected boolean inProgressCheckSupported() {
    return true;
  }

  @Override
  protected boolean isInProgress(FileTransaction transaction) throws IOException {
    try (Stream<Path> walk = Files.walk(dir.resolve("out"))) {
      return walk.anyMatch(p -> p.getFileName().toString().startsWith(".part-" + transaction.name() + "-"));
    }
  }

  @Override
  protected boolean lostTransactionSupported() {
    return true;
  }

  /** What an operator's cleanup job deleting in-progress files would do. */
  @Override
  protected void makeLost(FileTransaction transaction) throws IOException {
    try (Stream<Path> walk = Files.walk(dir.resolve("out"))) {
      for (Path p : walk.filter(p -> p.getFileName().toString().startsWith(".part-" + transaction.name() + "-")).toList()) {
        Files.delete(p);
      }
    }
  }

  private static int index(Path p) {
    String n = p.getFileName().toString();
    n = n.substring(0, n.length() - ".txt".length());
    return Integer.parseInt(n.substring(n.lastIndexOf('-') + 1));
  }

  private static void readLines(Path p, List<CharSequence> into) {
    try {
      into.addAll(Files.readAllLines(p, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Delegates everything; notes which transaction a commit made visible. */
  private final class OrderRecording implements Participant<FileTransaction, Void>, Writable<CharSequence, FileTransaction> {
    private final FileParticipant<CharSequence> delegate;

    OrderRecording(FileParticipant<CharSequence> delegate) {
      this.delegate = delegate;
    }

    private CommitOutcome note(FileTransaction t, CommitOutcome outcome) {
      if (outcome == CommitOutcome.COMMITTED && !t.parts().isEmpty()) {
        commitOrder.add(t.name());
      }
      return outcome;
    }

    @Override public Codec<FileTransaction> transactionCodec() { return delegate.transactionCodec(); }
    @Override public FileTransaction beginTransaction(TransactionContext<Void> c) { return delegate.beginTransaction(c); }
    @Override public RecordWriter<CharSequence> writerFor(FileTransaction t) { return delegate.writerFor(t); }
    @Override public FileTransaction preCommit(FileTransaction t) throws IOException { return delegate.preCommit(t); }
    @Override public CommitOutcome commit(FileTransaction t) throws IOException { return note(t, delegate.commit(t)); }
    @Override public CommitOutcome recoverAndCommit(FileTransaction t) throws Exception { return note(t, delegate.recoverAndCommit(t)); }
    @Override public void abort(FileTransaction t) throws IOException { delegate.abort(t); }
    @Override public AbortOutcome recoverAndAbort(FileTransaction t) throws IOException { return delegate.recoverAndAbort(t); }
    @Override public void finishRecoveringContext(RecoveryContext<FileTransaction, Void> c) throws IOException { delegate.finishRecoveringContext(c); }
    @Override public Optional<java.time.Duration> transactionTimeout() { return delegate.transactionTimeout(); }
    @Override public void close() { delegate.close(); }
  }
}
