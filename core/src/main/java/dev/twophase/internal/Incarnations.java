package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Identities of the incarnations of an {@link dev.twophase.EmbeddedCoordinator}, which has no state
 * log of its own to number them: a lineage id, made when a coordinator starts without restored
 * state and carried in every snapshot after, and an owner epoch unique per incarnation.
 */
@Internal
public final class Incarnations {

  private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();
  /** The last epoch handed out in this JVM: epochs never repeat within a JVM. */
  private static final AtomicLong LAST_EPOCH = new AtomicLong();
  private static final long SUB_MILLI = 1_000_000;

  private Incarnations() {}

  /** Eight random characters of {@code [a-z0-9]}. */
  public static String newLineageId() {
    char[] id = new char[8];
    for (int i = 0; i < id.length; i++) {
      id[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
    }
    return new String(id);
  }

  /**
   * An owner epoch above {@code restoredEpoch}, different from every epoch handed out before in
   * this JVM, and, across JVMs, from the clock's milliseconds times a million plus a random number
   * below a million: two incarnations in two JVMs that start in the same millisecond share an epoch
   * with a chance of one in a million. (Engines that number their attempts can pass that number
   * instead, which makes epochs unique by construction.)
   */
  public static long uniqueEpoch(long restoredEpoch, Clock clock) {
    long fromClock = Math.multiplyExact(Math.max(1, clock.millis()), SUB_MILLI)
        + ThreadLocalRandom.current().nextLong(SUB_MILLI);
    long candidate = Math.max(Math.addExact(restoredEpoch, 1), fromClock);
    return LAST_EPOCH.accumulateAndGet(candidate, (last, c) -> Math.max(last + 1, c));
  }
}
