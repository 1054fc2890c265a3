package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What an OWNER record says: who claimed the coordinator, under which epoch, and whether it has
 * released it since; and the record's offset.
 */
@Internal
final class OwnerRecord {

  final String holder;
  final long epoch;
  final boolean released;
  final long offset;

  OwnerRecord(String holder, long epoch, boolean released, long offset) {
    this.holder = holder;
    this.epoch = epoch;
    this.released = released;
    this.offset = offset;
  }

  static byte[] payload(String holder, boolean released) {
    byte[] name = holder.getBytes(StandardCharsets.UTF_8);
    byte[] p = new byte[name.length + 1];
    p[0] = (byte) (released ? 1 : 0);
    System.arraycopy(name, 0, p, 1, name.length);
    return p;
  }

  /** The record a frame holds, or null if its payload is no owner payload. */
  static OwnerRecord of(Frame f, long offset) {
    byte[] p = f.payload();
    if (p.length < 1 || (p[0] != 0 && p[0] != 1)) {
      return null;
    }
    return new OwnerRecord(new String(Arrays.copyOfRange(p, 1, p.length), StandardCharsets.UTF_8),
        f.epoch, p[0] == 1, offset);
  }

  @Override
  public String toString() {
    return "'" + holder + "' (epoch " + epoch + (released ? ", released" : ", held") + ")";
  }
}
