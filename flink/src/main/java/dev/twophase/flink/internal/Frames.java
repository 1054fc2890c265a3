package dev.twophase.flink.internal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** The framing both serializers share: nullable byte arrays and encoded handles. */
final class Frames {

  /** Longest byte array a frame accepts when reading: guards against a damaged length. */
  static final int MAX_BYTES = 256 * 1024 * 1024;

  private Frames() {}

  static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    if (bytes == null) {
      out.writeInt(-1);
      return;
    }
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  static byte[] readBytes(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length == -1) {
      return null;
    }
    if (length < 0 || length > MAX_BYTES) {
      throw new IOException("damaged state: a byte array of length " + length);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  static void writeHandle(DataOutputStream out, EncodedHandle h) throws IOException {
    out.writeUTF(h.participant());
    out.writeInt(h.codecVersion());
    out.writeLong(h.begunAtMillis());
    writeBytes(out, h.bytes());
  }

  static EncodedHandle readHandle(DataInputStream in) throws IOException {
    String participant = in.readUTF();
    int version = in.readInt();
    long begunAt = in.readLong();
    byte[] bytes = readBytes(in);
    if (bytes == null) {
      throw new IOException("damaged state: the handle of participant '" + participant + "' has no bytes");
    }
    return new EncodedHandle(participant, version, begunAt, bytes);
  }

  static void requireVersion(int version, int expected, String what) throws IOException {
    if (version != expected) {
      throw new IOException(what + " of serializer version " + version + " are unknown to this release of "
          + "twophase-flink, which reads version " + expected);
    }
  }

  static void requireEnd(DataInputStream in, String what) throws IOException {
    if (in.read() != -1) {
      throw new IOException("damaged state: trailing bytes after " + what);
    }
  }
}
