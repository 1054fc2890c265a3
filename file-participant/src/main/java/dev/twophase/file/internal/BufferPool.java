package dev.twophase.file.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.annotation.Internal;
import java.util.ArrayDeque;

/**
 * Write buffers of one size, reused across the parts and transactions of one participant: a new
 * part (one per checkpoint and bucket at least) takes a buffer instead of allocating and zeroing
 * {@code bufferBytes}. At most {@code max} free buffers are kept. Thread-safe: parts finish on the
 * application thread, and an abort may discard them on another.
 */
@Internal
public final class BufferPool {

  private final int size;
  private final int max;
  /** Buffers given back, for the next takes; guarded by this pool. */
  @GuardedBy("this")
  private final ArrayDeque<byte[]> free = new ArrayDeque<>();

  public BufferPool(int size, int max) {
    this.size = size;
    this.max = max;
  }

  public int size() {
    return size;
  }

  /** A buffer of {@link #size()} bytes (its content is whatever it held before). */
  public byte[] take() {
    byte[] b;
    synchronized (this) {
      b = free.poll();
    }
    return b != null ? b : new byte[size];
  }

  /** Returns a buffer no one uses any more; one of another size is dropped. */
  public void give(byte[] b) {
    if (b.length != size) {
      return;
    }
    synchronized (this) {
      if (free.size() < max) {
        free.push(b);
      }
    }
  }
}
