package dev.twophase.file.internal;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte buffer an encoder writes one record into, reused for every record: the record
 * reaches the file only when its encoding completed.
 */
public final class ScratchBuffer extends OutputStream {

  private byte[] bytes = new byte[1024];
  private int size;

  public void reset() {
    size = 0;
  }

  public byte[] array() {
    return bytes;
  }

  public int size() {
    return size;
  }

  @Override
  public void write(int b) {
    ensure(1);
    bytes[size++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, bytes, size, len);
    size += len;
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }
}
