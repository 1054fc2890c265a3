package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The value of every record of a Kafka state log: a small binary frame, big-endian.
 *
 * <pre>
 *  offset  size  field
 *       0     4  magic 0x32504B4C ("2PKL")
 *       4     1  format version, 1
 *       5     1  kind ({@link RecordKind})
 *       6     8  log id, ASCII [a-z0-9]
 *      14     8  owner epoch
 *      22     8  checkpoint id (0 for LOG_ID and OWNER)
 *      30     8  sequence: the write within the epoch a state chunk belongs to (0 otherwise)
 *      38     4  chunk index (0 but for STATE)
 *      42     4  chunk count (1 but for STATE)
 *      46     4  payload length n
 *      50     n  payload
 *    50+n     4  CRC32C of the record key's bytes and of bytes 0 to 50+n
 * </pre>
 *
 * <p>The checksum covers the key, so that a value under a key it was not written for is damage
 * too. Payloads: LOG_ID holds the topic's partition count (4 bytes), OWNER a released flag (1
 * byte) and the holder's name (UTF-8), STATE a chunk of the coordinator's state, COMPLETION
 * nothing.
 */
@Internal
final class Frame {

  static final int MAGIC = 0x32504B4C;
  static final byte VERSION = 1;
  static final int HEADER_BYTES = 50;
  /** Bytes a frame adds to its payload. */
  static final int OVERHEAD = HEADER_BYTES + 4;

  final RecordKind kind;
  final String logId;
  final long epoch;
  final long checkpointId;
  final long sequence;
  final int index;
  final int count;
  private final byte[] payload;

  Frame(RecordKind kind, String logId, long epoch, long checkpointId, long sequence, int index,
      int count, byte[] payload) {
    this.kind = kind;
    this.logId = logId;
    this.epoch = epoch;
    this.checkpointId = checkpointId;
    this.sequence = sequence;
    this.index = index;
    this.count = count;
    this.payload = payload;
  }

  /** The payload, not copied: frames are internal and never handed out. */
  byte[] payload() {
    return payload;
  }

  int payloadLength() {
    return payload.length;
  }

  /** The frame's bytes, its checksum covering {@code key} too. */
  byte[] encode(byte[] key) {
    return encode(key, payload, 0, payload.length);
  }

  /** As {@link #encode(byte[])}, with the payload {@code from[offset, offset + length)}. */
  byte[] encode(byte[] key, byte[] from, int offset, int length) {
    ByteBuffer b = ByteBuffer.allocate(OVERHEAD + length);
    b.putInt(MAGIC).put(VERSION).put(kind.code()).put(logId.getBytes(StandardCharsets.US_ASCII))
        .putLong(epoch).putLong(checkpointId).putLong(sequence).putInt(index).putInt(count)
        .putInt(length).put(from, offset, length);
    CRC32C crc = new CRC32C();
    crc.update(key);
    crc.update(b.array(), 0, HEADER_BYTES + length);
    b.putInt((int) crc.getValue());
    return b.array();
  }

  /**
   * Reads a frame stored under {@code key}.
   *
   * @throws FrameException if the bytes are no intact frame of this format: the message says what
   *     is wrong
   */
  static Frame decode(byte[] key, byte[] value) throws FrameException {
    if (value == null) {
      throw new FrameException("a record without a value (a tombstone), which a state log never writes");
    }
    if (value.length < OVERHEAD) {
      throw new FrameException("a value of " + value.length + " bytes, shorter than a frame ("
          + OVERHEAD + " bytes at least)");
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    try {
      int magic = b.getInt();
      if (magic != MAGIC) {
        throw new FrameException("no state log frame (magic 0x" + Integer.toHexString(magic)
            + ", expected 0x" + Integer.toHexString(MAGIC) + ")");
      }
      byte version = b.get();
      if (version != VERSION) {
        throw new FrameException("frame format version " + version + ", which this version of "
            + "twophase does not read (it reads " + VERSION + ")");
      }
      byte kindCode = b.get();
      byte[] id = new byte[8];
      b.get(id);
      long epoch = b.getLong();
      long checkpointId = b.getLong();
      long sequence = b.getLong();
      int index = b.getInt();
      int count = b.getInt();
      int length = b.getInt();
      if (length != value.length - OVERHEAD) {
        throw new FrameException("a payload length of " + length + " in a frame of " + value.length
            + " bytes");
      }
      CRC32C crc = new CRC32C();
      crc.update(key);
      crc.update(value, 0, HEADER_BYTES + length);
      int stored = ByteBuffer.wrap(value, HEADER_BYTES + length, 4).getInt();
      if (stored != (int) crc.getValue()) {
        throw new FrameException("a checksum mismatch (CRC32C stored 0x" + Integer.toHexString(stored)
            + ", computed 0x" + Integer.toHexString((int) crc.getValue()) + ")");
      }
      RecordKind kind = RecordKind.ofCode(kindCode);
      if (kind == null) {
        throw new FrameException("an unknown record kind " + kindCode);
      }
      byte[] payload = new byte[length];
      b.get(payload);
      return new Frame(kind, new String(id, StandardCharsets.US_ASCII), epoch, checkpointId,
          sequence, index, count, payload);
    } catch (BufferUnderflowException e) {
      throw new FrameException("a truncated frame of " + value.length + " bytes");
    }
  }
}
