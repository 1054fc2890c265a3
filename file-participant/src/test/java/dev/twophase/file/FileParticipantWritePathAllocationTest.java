package dev.twophase.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.twophase.Coordinator;
import dev.twophase.Output;
import dev.twophase.testing.InMemoryStateLog;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file participant's per-record path, through a coordinator's {@link Output} into a real part
 * file, allocates nothing of its own: with {@code RecordEncoders.bytes()} a million records leave
 * the thread's allocation counter where it was (give or take the counter's own bookkeeping and a
 * few objects per part); with {@code RecordEncoders.lines()} they allocate what
 * {@code String.getBytes} allocates for the same records, and no more. Bytes, not time: these
 * assertions cannot flake on a slow machine. The records go through the part's buffer into its
 * file (about 20 MB, one part), so the buffer's writes to the file are on the measured path too.
 */
class FileParticipantWritePathAllocationTest {

  static final int WARM_UP = 200_000;
  static final int N = 1_000_000;
  /** Allowed for the whole measured loop: the counter's bookkeeping, nothing per record. */
  static final long SLACK = 16 * 1024;

  @TempDir Path tmp;

  static com.sun.management.ThreadMXBean threads() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "this JVM cannot count allocated bytes");
    threads.setThreadAllocatedMemoryEnabled(true);
    return threads;
  }

  @Test
  void bytesRecordsAllocateNothingPerRecord() throws Exception {
    com.sun.management.ThreadMXBean threads = threads();
    byte[][] records = new byte[64][];
    for (int i = 0; i < records.length; i++) {
      records[i] = ("record " + (1000 + i) + " of bytes\n").getBytes(StandardCharsets.UTF_8);
    }
    FileParticipant<byte[]> files = FileParticipant.builder(tmp.resolve("out"), RecordEncoders.bytes()).build();
    try (InMemoryStateLog log = new InMemoryStateLog();
        Coordinator coordinator = Coordinator.builder("alloc", log).participant("files", files).build()) {
      Output<byte[]> out = coordinator.output(files);
      for (int i = 0; i < WARM_UP; i++) { // let the JIT compile the path
        out.write(records[i & 63]);
      }
      long thread = Thread.currentThread().getId();
      long before = threads.getThreadAllocatedBytes(thread);
      for (int i = 0; i < N; i++) {
        out.write(records[i & 63]);
      }
      long allocated = threads.getThreadAllocatedBytes(thread) - before;
      assertTrue(allocated < SLACK, "the write path allocated " + allocated + " bytes for " + N + " records");
      coordinator.checkpoint().awaitCommitted(Duration.ofSeconds(30));
      assertEquals(1, Dirs.committed(tmp.resolve("out")).size(), "one part: no roll inside the measured loop");
    }
  }

  @Test
  void lineRecordsAllocateOnlyTheirUtf8Bytes() throws Exception {
    com.sun.management.ThreadMXBean threads = threads();
    String[] records = new String[64];
    for (int i = 0; i < records.length; i++) {
      records[i] = "record " + (1000 + i) + " of text";
    }
    long thread = Thread.currentThread().getId();
    // What String.getBytes alone allocates for the same records (the lines encoder's one allocation).
    long sink = 0;
    for (int i = 0; i < WARM_UP; i++) {
      sink += records[i & 63].getBytes(StandardCharsets.UTF_8).length;
    }
    long before = threads.getThreadAllocatedBytes(thread);
    for (int i = 0; i < N; i++) {
      sink += records[i & 63].getBytes(StandardCharsets.UTF_8).length;
    }
    long utf8 = threads.getThreadAllocatedBytes(thread) - before;
    assertTrue(sink > 0);

    FileParticipant<CharSequence> files = FileParticipant.builder(tmp.resolve("out"), RecordEncoders.lines()).build();
    try (InMemoryStateLog log = new InMemoryStateLog();
        Coordinator coordinator = Coordinator.builder("alloc", log).participant("files", files).build()) {
      Output<CharSequence> out = coordinator.output(files);
      for (int i = 0; i < WARM_UP; i++) {
        out.write(records[i & 63]);
      }
      before = threads.getThreadAllocatedBytes(thread);
      for (int i = 0; i < N; i++) {
        out.write(records[i & 63]);
      }
      long allocated = threads.getThreadAllocatedBytes(thread) - before;
      assertTrue(allocated < utf8 + SLACK, "the write path allocated " + allocated + " bytes for " + N
          + " line records; their UTF-8 bytes alone take " + utf8);
    }
  }
}
