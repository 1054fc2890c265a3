package dev.twophase.benchmarks.statelog;

import dev.twophase.StateLog;
import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.StoredState;
import dev.twophase.benchmarks.statelog.TimedCrew.Probe;
import dev.twophase.benchmarks.statelog.TimedCrew.Variant;
import dev.twophase.benchmarks.statelog.TimedCrew.Worker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/**
 * The append rows of {@link SharedStateLogBenchmark} that need no server: appends through the
 * {@link StateLog} SPI (any log), and the local disk's own limit.
 */
final class AppendVariants {

  /** Size of a state record's payload, as in {@code StateLogAppendBenchmark}. */
  static final int PAYLOAD_BYTES = 200;
  /** Size of one raw write: about what a 200-byte state record takes in the file log. */
  static final int RAW_BYTES = 220;

  private AppendVariants() {}

  /** A payload of {@link #PAYLOAD_BYTES} random bytes, different for each thread. */
  static byte[] payload(int thread) {
    byte[] b = new byte[PAYLOAD_BYTES];
    new SplittableRandom(thread * 31L + 7).nextBytes(b);
    return b;
  }

  /**
   * Each thread opens coordinator {@code <prefix>-<thread>} of {@code log} and appends ~200-byte
   * states with rising checkpoint ids; the view is closed (the coordinator released) with the
   * crew. The log itself is not closed.
   */
  static Variant logAppends(StateLog log, String prefix) {
    Probe probe = SharedLogs.probe(log);
    return new Variant() {
      @Override
      public Worker worker(int thread) {
        return logAppender(log, prefix, thread);
      }

      @Override
      public Probe probe() {
        return probe;
      }
    };
  }

  private static Worker logAppender(StateLog log, String prefix, int thread) {
    CoordinatorLog view = log.open(prefix + "-" + thread);
    StoredState last = view.lastState();
    byte[] payload = payload(thread);
    return new Worker() {
      private long checkpointId = last == null ? 0 : last.checkpointId();

      @Override
      public void op() {
        view.appendState(++checkpointId, payload);
      }

      @Override
      public void close() {
        view.close();
      }
    };
  }

  /**
   * The disk's limit: each thread appends {@link #RAW_BYTES} to its own file under {@code dir} and
   * calls {@code force(false)} (fdatasync), in a loop: no group commit.
   */
  static Variant fileFsync(Path dir) throws IOException {
    Files.createDirectories(dir);
    return thread -> {
      FileChannel channel = FileChannel.open(dir.resolve("raw-" + thread + "-" + System.nanoTime() + ".bin"),
          StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      ByteBuffer buffer = ByteBuffer.allocateDirect(RAW_BYTES);
      byte[] bytes = new byte[RAW_BYTES];
      new SplittableRandom(thread).nextBytes(bytes);
      buffer.put(bytes).flip();
      return new Worker() {
        private long position;

        @Override
        public void op() throws IOException {
          buffer.rewind();
          while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
          }
          channel.force(false);
        }

        @Override
        public void close() throws IOException {
          channel.close();
        }
      };
    };
  }
}
