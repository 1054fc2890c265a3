package dev.twophase.testkit;

import dev.twophase.Codec;
import dev.twophase.annotation.PublicEvolving;
import java.util.Arrays;
import java.util.Objects;

/**
 * A transaction handle as the coordinator's state log holds it: the bytes the participant's
 * {@link Codec} wrote and the codec version they were written with. Made by
 * {@link Incarnation#log}, read back by {@link Incarnation#restore} in another incarnation, which is
 * the only way handles travel between simulated processes, as they do between real ones.
 *
 * @param <TXN> the participant's handle type
 */
@PublicEvolving
@SuppressWarnings("UnusedTypeParameter") // TXN ties a logged handle to its participant's handle type
public final class LoggedHandle<TXN> {

  private final byte[] bytes;
  private final int version;
  private final String description;

  LoggedHandle(byte[] bytes, int version, String description) {
    this.bytes = Objects.requireNonNull(bytes, "bytes").clone();
    this.version = version;
    this.description = description;
  }

  /** A copy of the encoded handle. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The codec version the handle was written with. */
  public int version() {
    return version;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LoggedHandle<?> other && other.version == version && Arrays.equals(other.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return 31 * version + Arrays.hashCode(bytes);
  }

  /** The handle's {@code toString()} when it was logged, its version and size. */
  @Override
  public String toString() {
    return "LoggedHandle{" + description + ", version " + version + ", " + bytes.length + " bytes}";
  }
}
