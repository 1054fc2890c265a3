package dev.twophase.testkit.statelog;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The payloads the suite appends: deterministic from a seed (a coordinator id, say) and a
 * checkpoint id, so that a child JVM and the test compute the same bytes, and different for
 * different seeds and ids. Every payload starts with 0x00 and 0xFF: a log must store opaque
 * bytes, not text.
 */
final class Payloads {

  /** The size of {@link #of(String, long)}'s payloads. */
  static final int DEFAULT_SIZE = 96;

  private Payloads() {}

  static byte[] of(String seed, long checkpointId) {
    return of(seed, checkpointId, DEFAULT_SIZE);
  }

  static byte[] of(String seed, long checkpointId, int size) {
    byte[] bytes = new byte[size];
    SplittableRandom random = new SplittableRandom(seed.hashCode() * 1_000_003L + checkpointId);
    for (int i = 0; i < size; i += 8) {
      long word = random.nextLong();
      for (int j = 0; j < 8 && i + j < size; j++) {
        bytes[i + j] = (byte) (word >>> (8 * j));
      }
    }
    byte[] tag = (seed + "@" + checkpointId).getBytes(StandardCharsets.UTF_8);
    int at = 0;
    if (size > 0) {
      bytes[at++] = 0x00;
    }
    if (size > 1) {
      bytes[at++] = (byte) 0xFF;
    }
    System.arraycopy(tag, 0, bytes, at, Math.max(0, Math.min(tag.length, size - at)));
    return bytes;
  }
}
