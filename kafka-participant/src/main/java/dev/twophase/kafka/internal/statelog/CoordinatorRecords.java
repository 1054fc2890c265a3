package dev.twophase.kafka.internal.statelog;

import dev.twophase.StateLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.StoredState;
import dev.twophase.annotation.Internal;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What one coordinator's partition holds for it, gathered record by record in offset order: the
 * last owner record, the highest epoch of any of its records, the highest completion mark and the
 * latest chunk of each index, from which {@link #lastState()} puts the last state together and
 * checks that it is whole. Every record of the coordinator is checked (checksum, kind, log id);
 * records of other coordinators only have their key read.
 */
@Internal
final class CoordinatorRecords {

  private final String topic;
  private final int partition;
  private final String coordinatorId;
  private final String logId;
  private final boolean keepStates;

  private OwnerRecord owner;
  private long maxEpoch;
  private long completion;
  private final Map<Integer, Chunk> chunks = new HashMap<>();
  private Chunk last;

  /**
   * @param keepStates false to check and count state chunks without keeping their payloads (a
   *     look at the owner only)
   */
  CoordinatorRecords(String topic, int partition, String coordinatorId, String logId,
      boolean keepStates) {
    this.topic = topic;
    this.partition = partition;
    this.coordinatorId = coordinatorId;
    this.logId = logId;
    this.keepStates = keepStates;
  }

  /**
   * Takes the next record of the partition.
   *
   * @throws StateLogCorruptedException if it is no state log record, or one of this coordinator
   *     that fails its checks
   */
  void accept(ConsumerRecord<byte[], byte[]> r) {
    RecordKey key = RecordKey.parse(r.key());
    if (key == null) {
      throw Corruption.at(topic, partition, r.offset(), null,
          "a record whose key is no state log key (another application writes to the topic?)");
    }
    if (key.kind() == RecordKind.LOG_ID || !coordinatorId.equals(key.coordinatorId())) {
      return;
    }
    Frame f;
    try {
      f = Frame.decode(r.key(), r.value());
    } catch (FrameException e) {
      throw corrupted(r.offset(), "record '" + key + "' has " + e.getMessage());
    }
    if (f.kind != key.kind()) {
      throw corrupted(r.offset(), "record '" + key + "' holds a " + f.kind + " frame");
    }
    if (!f.logId.equals(logId)) {
      throw corrupted(r.offset(), "record '" + key + "' belongs to log " + f.logId
          + ", not to this topic's log " + logId + " (records of two logs in one topic)");
    }
    maxEpoch = Math.max(maxEpoch, f.epoch);
    switch (f.kind) {
      case OWNER -> {
        OwnerRecord o = OwnerRecord.of(f, r.offset());
        if (o == null) {
          throw corrupted(r.offset(), "owner record '" + key + "' has a malformed payload");
        }
        owner = o;
      }
      case COMPLETION -> completion = Math.max(completion, f.checkpointId);
      case STATE -> {
        if (f.count < 1 || f.index != key.index() || f.index >= f.count
            || f.payloadLength() > StateChunks.CHUNK_BYTES) {
          throw corrupted(r.offset(), "state record '" + key + "' says it is chunk " + f.index
              + " of " + f.count + " with " + f.payloadLength() + " bytes");
        }
        Chunk c = new Chunk(f.epoch, f.sequence, f.checkpointId, f.count,
            keepStates ? f.payload() : null, f.payloadLength(), r.offset());
        chunks.put(f.index, c);
        last = c;
      }
      default -> throw corrupted(r.offset(), "record '" + key + "' of kind " + f.kind);
    }
  }

  /** The last owner record, null if none. */
  OwnerRecord owner() {
    return owner;
  }

  /** The highest epoch of any record of the coordinator, 0 if none. */
  long maxEpoch() {
    return maxEpoch;
  }

  /** The highest completion mark, 0 if none. */
  long lastCompletedCheckpointId() {
    return completion;
  }

  /**
   * The last state, put together from its chunks, or null if the coordinator has none.
   *
   * @throws StateLogCorruptedException if a chunk of the last state is missing or belongs to
   *     another append
   */
  StoredState lastState() {
    if (last == null) {
      return null;
    }
    long total = 0;
    for (int i = 0; i < last.count; i++) {
      Chunk c = chunks.get(i);
      if (c == null || c.epoch != last.epoch || c.sequence != last.sequence
          || c.checkpointId != last.checkpointId || c.count != last.count) {
        throw corrupted(last.offset, "its last state (checkpoint " + last.checkpointId
            + ", epoch " + last.epoch + ", append " + last.sequence + ") is incomplete: chunk "
            + i + " of " + last.count + (c == null ? " is missing"
                : " is from another append (checkpoint " + c.checkpointId + ", epoch " + c.epoch
                    + ", append " + c.sequence + ", at offset " + c.offset + ")"));
      }
      total += c.length;
    }
    if (total > StateLog.MAX_STATE_BYTES) {
      throw corrupted(last.offset, "its last state has " + total + " bytes, more than "
          + StateLog.MAX_STATE_BYTES);
    }
    if (!keepStates) {
      return new StoredState(last.checkpointId, new byte[0]);
    }
    byte[] payload = new byte[(int) total];
    int at = 0;
    for (int i = 0; i < last.count; i++) {
      Chunk c = chunks.get(i);
      System.arraycopy(c.payload, 0, payload, at, c.length);
      at += c.length;
    }
    return new StoredState(last.checkpointId, payload);
  }

  private StateLogCorruptedException corrupted(long offset, String what) {
    return Corruption.at(topic, partition, offset, coordinatorId, what);
  }

  /** One state chunk as read. */
  private static final class Chunk {
    final long epoch;
    final long sequence;
    final long checkpointId;
    final int count;
    final byte[] payload;
    final int length;
    final long offset;

    Chunk(long epoch, long sequence, long checkpointId, int count, byte[] payload,
        int length, long offset) {
      this.epoch = epoch;
      this.sequence = sequence;
      this.checkpointId = checkpointId;
      this.count = count;
      this.payload = payload;
      this.length = length;
      this.offset = offset;
    }
  }
}
