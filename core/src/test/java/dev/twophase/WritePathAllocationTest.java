package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.twophase.testing.InMemoryStateLog;
import java.lang.management.ManagementFactory;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The per-record path ({@link Output#write}) allocates nothing of its own: with a participant whose
 * write does not allocate, a million writes leave the thread's allocation counter where it was
 * (give or take the counter's own bookkeeping). Bytes, not time: this assertion cannot flake on a
 * slow machine.
 */
class WritePathAllocationTest {

  /** Counts records; allocates nothing per write. */
  static final class CountingParticipant implements Participant<String, Void>, Writable<Object, String> {
    long written;

    @Override
    public Codec<String> transactionCodec() {
      return Codecs.utf8();
    }

    @Override
    public String beginTransaction(TransactionContext<Void> context) {
      return context.transactionName();
    }

    private final RecordWriter<Object> writer = record -> written++;

    @Override
    public RecordWriter<Object> writerFor(String transaction) {
      return writer;
    }

    @Override
    public String preCommit(String transaction) {
      return transaction;
    }

    @Override
    public AbortOutcome recoverAndAbort(String transaction) {
      return AbortOutcome.NOT_FOUND;
    }

    @Override
    public CommitOutcome commit(String transaction) {
      return CommitOutcome.COMMITTED;
    }

    @Override
    public void abort(String transaction) {}

    @Override
    public Optional<java.time.Duration> transactionTimeout() {
      return Optional.empty();
    }
  }

  @Test
  void writesAllocateNothingPerRecord() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "this JVM cannot count allocated bytes");
    threads.setThreadAllocatedMemoryEnabled(true);

    CountingParticipant participant = new CountingParticipant();
    try (InMemoryStateLog log = new InMemoryStateLog();
        Coordinator coordinator = Coordinator.builder("alloc", log).participant("count", participant).build()) {
      Output<Object> out = coordinator.output(participant);
      Object record = "record";
      long thread = Thread.currentThread().getId();
      for (int i = 0; i < 200_000; i++) { // warm up: let the JIT compile the path
        out.write(record);
      }
      long before = threads.getThreadAllocatedBytes(thread);
      int n = 1_000_000;
      for (int i = 0; i < n; i++) {
        out.write(record);
      }
      long allocated = threads.getThreadAllocatedBytes(thread) - before;
      assertTrue(allocated < 4096,
          "the write path allocated " + allocated + " bytes for " + n + " records");
      assertTrue(participant.written == 1_200_000);
    }
  }
}
