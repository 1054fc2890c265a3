package dev.twophase.internal.log;

import dev.twophase.StateLogCorruptedException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Decodes the body of a record whose checksum matched and hands it to a {@link RecordVisitor}: the
 * record types of {@link LogFormat}. A body that does not decode was written by a faulty writer
 * and throws {@link StateLogCorruptedException} ({@link SegmentDamage}).
 */
final class RecordDecoder {

  private final LogReader.SegmentFile file;
  /** The segment's format version. */
  private final int version;
  private final RecordVisitor visitor;
  private final SegmentDamage damage;

  RecordDecoder(LogReader.SegmentFile file, int version, RecordVisitor visitor,
      SegmentDamage damage) {
    this.file = file;
    this.version = version;
    this.visitor = visitor;
    this.damage = damage;
  }

  /**
   * Decodes the body of the record at {@code off}. Returns true if it is a SEAL record, which
   * must be the segment's last.
   */
  boolean decode(ByteBuffer body, long off) {
    int len = body.remaining();
    byte type = body.get();
    return switch (type) {
      case LogFormat.TYPE_OWNER -> owner(body, len, off);
      case LogFormat.TYPE_STATE -> state(body, len, off);
      case LogFormat.TYPE_COMPLETED -> completed(body, len, off);
      case LogFormat.TYPE_SEAL -> seal(body, len, off);
      default -> throw unknownType(type, version, off);
    };
  }

  private boolean owner(ByteBuffer body, int len, long off) {
    if (len != 10) {
      throw damage.malformed("OWNER", len, off);
    }
    long ownerEpoch = body.getLong();
    end("OWNER", body, len, off);
    visitor.owner(ownerEpoch);
    return false;
  }

  private boolean state(ByteBuffer body, int len, long off) {
    String id = readId(body, 21, "STATE", len, off);
    long checkpointId = body.getLong();
    long epoch = body.getLong();
    int payloadLength = body.getInt();
    if (payloadLength != body.remaining() - 1 || checkpointId < 0) {
      throw damage.malformed("STATE", len, off);
    }
    byte[] payload = new byte[payloadLength];
    body.get(payload);
    end("STATE", body, len, off);
    visitor.state(id, checkpointId, epoch, payload, file.file(), off, LogFormat.RECORD_HEADER_SIZE + len);
    return false;
  }

  private boolean completed(ByteBuffer body, int len, long off) {
    String id = readId(body, 17, "COMPLETED", len, off);
    long checkpointId = body.getLong();
    long epoch = body.getLong();
    if (body.remaining() != 1 || checkpointId < 0) {
      throw damage.malformed("COMPLETED", len, off);
    }
    end("COMPLETED", body, len, off);
    visitor.completed(id, checkpointId, epoch);
    return false;
  }

  private boolean seal(ByteBuffer body, int len, long off) {
    if (version < LogFormat.SEALED_SINCE_VERSION) {
      throw unknownType(LogFormat.TYPE_SEAL, version, off); // format 2 has no seals
    }
    if (len != LogFormat.sealRecordSize() - LogFormat.RECORD_HEADER_SIZE) {
      throw damage.malformed("SEAL", len, off);
    }
    long next = body.getLong();
    end("SEAL", body, len, off);
    if (next != file.sequence() + 1) {
      throw damage.corrupted("malformed SEAL record with a valid checksum: it names segment " + next
          + ", not the next one, " + (file.sequence() + 1) + ": the record was written by a"
          + " faulty writer. " + damage.steps(off), off);
    }
    return true;
  }

  private StateLogCorruptedException unknownType(int type, int version, long off) {
    return damage.corrupted("unknown state log record type " + type + " with a valid checksum (this"
        + " version of twophase knows types " + LogFormat.TYPE_OWNER + " to "
        + (version >= LogFormat.SEALED_SINCE_VERSION
            ? LogFormat.TYPE_SEAL : LogFormat.TYPE_COMPLETED)
        + " in a segment of format " + version + "): the record was written by a faulty writer, since a"
        + " newer version of twophase would have written a newer segment format. "
        + damage.steps(off), off);
  }

  /** Reads the end marker, the last byte of every record. */
  private void end(String type, ByteBuffer body, int len, long off) {
    if (body.remaining() != 1 || body.get() != LogFormat.END) {
      throw damage.malformed(type, len, off);
    }
  }

  private String readId(ByteBuffer body, int after, String type, int len, long off) {
    if (body.remaining() < 2) {
      throw damage.malformed(type, len, off);
    }
    int idLength = body.getShort() & 0xFFFF;
    if (idLength < 1 || idLength > LogFormat.MAX_ID_BYTES || body.remaining() < idLength + after) {
      throw damage.malformed(type, len, off);
    }
    byte[] id = new byte[idLength];
    body.get(id);
    return new String(id, StandardCharsets.UTF_8);
  }
}
