package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The checksum of a state row: CRC32C over the coordinator id (its UTF-8 length and bytes), the
 * checkpoint id, the epoch that wrote the state and the payload, so that a payload moved to another
 * row, or a row whose ids were changed, fails it as a flipped byte does.
 */
@Internal
public final class RowChecksum {

  private RowChecksum() {}

  /** The checksum, as an unsigned 32-bit value in a {@code long}. */
  public static long of(String coordinatorId, long checkpointId, long epoch, byte[] payload) {
    byte[] id = coordinatorId.getBytes(StandardCharsets.UTF_8);
    ByteBuffer header = ByteBuffer.allocate(4 + id.length + 16);
    header.putInt(id.length).put(id).putLong(checkpointId).putLong(epoch).flip();
    CRC32C crc = new CRC32C();
    crc.update(header);
    crc.update(payload, 0, payload.length);
    return crc.getValue();
  }
}
