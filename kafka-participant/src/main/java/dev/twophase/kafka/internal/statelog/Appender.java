package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes one coordinator's records into the current transaction of its producer: the state in
 * chunks, completion marks and owner records, each framed under its key. {@link #flush()} waits
 * for every send and reports the first that failed, before the transaction is committed: a
 * failure there means the commit was never asked for.
 */
@Internal
final class Appender {

  private final KafkaProducer<byte[], byte[]> producer;
  private final TopicPartition partition;
  private final String coordinatorId;
  private final String logId;
  private final long epoch;
  private final AtomicReference<Exception> sendError = new AtomicReference<>();
  private final Callback onAck = (metadata, e) -> {
    if (e != null) {
      sendError.compareAndSet(null, e);
    }
  };

  Appender(KafkaProducer<byte[], byte[]> producer, TopicPartition partition, String coordinatorId,
      String logId, long epoch) {
    this.producer = producer;
    this.partition = partition;
    this.coordinatorId = coordinatorId;
    this.logId = logId;
    this.epoch = epoch;
  }

  /** Sends {@code payload} as the chunks of append {@code sequence}; a failure shows at commit. */
  void state(long checkpointId, long sequence, byte[] payload) {
    int count = StateChunks.count(payload.length);
    for (int i = 0; i < count; i++) {
      int from = i * StateChunks.CHUNK_BYTES;
      int length = Math.min(StateChunks.CHUNK_BYTES, payload.length - from);
      byte[] key = RecordKey.state(coordinatorId, i).bytes();
      Frame f = new Frame(RecordKind.STATE, logId, epoch, checkpointId, sequence, i, count, null);
      send(key, f.encode(key, payload, from, length));
    }
  }

  void completion(long checkpointId) {
    byte[] key = RecordKey.completion(coordinatorId).bytes();
    send(key, new Frame(RecordKind.COMPLETION, logId, epoch, checkpointId, 0, 0, 1, new byte[0])
        .encode(key));
  }

  void owner(String holder, boolean released) {
    byte[] key = RecordKey.owner(coordinatorId).bytes();
    send(key, new Frame(RecordKind.OWNER, logId, epoch, 0, 0, 0, 1,
        OwnerRecord.payload(holder, released)).encode(key));
  }

  private void send(byte[] key, byte[] value) {
    // The future is not needed: a failure reaches onAck, which flush() reports.
    var unused = producer.send(new ProducerRecord<>(partition.topic(), partition.partition(), key,
        value), onAck);
  }

  /**
   * Flushes the producer and reports the first send of this transaction that failed.
   *
   * @throws Exception the first send that failed (the transaction cannot commit)
   */
  void flush() throws Exception {
    producer.flush();
    Exception failed = sendError.getAndSet(null);
    if (failed != null) {
      throw failed;
    }
  }
}
