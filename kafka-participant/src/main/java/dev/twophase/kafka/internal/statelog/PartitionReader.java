package dev.twophase.kafka.internal.statelog;

import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads one partition of the log's topic from its start to the end the broker reports at the time
 * of each {@link #readToEnd} (the high watermark, which also counts records of open
 * transactions), handing every record to a sink, and keeps its position between reads: a claim
 * reads once, fences the previous owner, and reads on from there.
 *
 * <p>At {@code read_committed}, a read reaches that end only once every transaction begun before
 * it is committed or aborted: one of another coordinator of the same partition that is open
 * holds it back, for at most that producer's {@code transaction.timeout.ms} if its process died.
 * A read that does not reach the end within the timeout fails; nothing is guessed.
 */
@Internal
final class PartitionReader implements AutoCloseable {

  private static final Duration POLL = Duration.ofMillis(100);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Admin admin;
  private final TopicPartition partition;
  private final IsolationLevel isolation;
  private final Duration timeout;

  private PartitionReader(KafkaConsumer<byte[], byte[]> consumer, Admin admin,
      TopicPartition partition, IsolationLevel isolation, Duration timeout) {
    this.consumer = consumer;
    this.admin = admin;
    this.partition = partition;
    this.isolation = isolation;
    this.timeout = timeout;
  }

  static PartitionReader open(ClientSettings settings, Admin admin, TopicPartition partition,
      IsolationLevel isolation, Duration timeout) {
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
        settings.consumer(isolation, "reader-" + partition));
    try {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      return new PartitionReader(consumer, admin, partition, isolation, timeout);
    } catch (RuntimeException | Error e) {
      consumer.close();
      throw e;
    }
  }

  /**
   * Reads on to the partition's current end.
   *
   * @return the end it read to
   * @throws RetriableTwoPhaseException if the end was not reached within the timeout
   * @throws RuntimeException what the sink throws
   */
  long readToEnd(Consumer<ConsumerRecord<byte[], byte[]>> sink) {
    long started = System.nanoTime();
    long end = end();
    long position = -1;
    try {
      while ((position = consumer.position(partition, remaining(started))) < end) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
          sink.accept(r);
        }
        if (System.nanoTime() - started > timeout.toNanos()) {
          throw notReached(end, consumer.position(partition, Duration.ofSeconds(1)), null);
        }
      }
      return end;
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw notReached(end, position, e);
    }
  }

  private Duration remaining(long started) {
    long left = timeout.toNanos() - (System.nanoTime() - started);
    return Duration.ofNanos(Math.max(left, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  private RetriableTwoPhaseException notReached(long end, long position, Throwable cause) {
    return new RetriableTwoPhaseException("could not read partition " + partition
        + " of the state log to its end (offset " + end + ") within " + timeout + " at "
        + isolation + (position < 0 ? "" : " (read to offset " + position + ")")
        + ": the broker is unreachable, or a transaction on this partition is open (another "
        + "coordinator's, whose process may have stopped in the middle of an append: the broker "
        + "aborts it after its transaction.timeout.ms). Nothing was claimed; open the coordinator "
        + "again later, or raise KafkaStateLog.Builder.timeout", cause);
  }

  private long end() {
    try {
      return admin.listOffsets(Map.of(partition, OffsetSpec.latest()),
              new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
          .partitionResult(partition).get(timeout.toMillis(), TimeUnit.MILLISECONDS).offset();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetriableTwoPhaseException("interrupted while asking the broker for the end of "
          + partition + " of the state log; nothing was claimed", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException | KafkaException e) {
      throw new RetriableTwoPhaseException("could not ask the broker for the end of " + partition
          + " of the state log within " + timeout + ": " + e + "; nothing was claimed; open the "
          + "coordinator again when the broker answers", e);
    }
  }

  @Override
  public void close() {
    consumer.close();
  }
}
