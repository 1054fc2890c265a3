package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Writes {@link Committable}s for Flink's committer state and the writer-to-committer channel. The
 * handles inside are the bytes of the participants' own codecs, each with its codec version; this
 * serializer only frames them (version 1: checkpoint, subtask, lineage, epoch, sequence, then each
 * handle's participant name, codec version, begin time and bytes).
 */
@Internal
public final class CommittableSerializer implements SimpleVersionedSerializer<Committable> {

  static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(Committable c) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 64 * c.handles().size());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeLong(c.checkpointId());
      out.writeInt(c.subtask());
      out.writeUTF(c.lineage());
      out.writeLong(c.epoch());
      out.writeLong(c.sequence());
      out.writeInt(c.handles().size());
      for (EncodedHandle h : c.handles()) {
        Frames.writeHandle(out, h);
      }
    }
    return bytes.toByteArray();
  }

  @Override
  public Committable deserialize(int version, byte[] serialized) throws IOException {
    Frames.requireVersion(version, VERSION, "committables");
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
      long checkpointId = in.readLong();
      int subtask = in.readInt();
      String lineage = in.readUTF();
      long epoch = in.readLong();
      long sequence = in.readLong();
      int n = in.readInt();
      if (n < 0 || n > 10_000) {
        throw new IOException("damaged committable: " + n + " handles");
      }
      List<EncodedHandle> handles = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        handles.add(Frames.readHandle(in));
      }
      Frames.requireEnd(in, "a committable");
      return new Committable(checkpointId, subtask, lineage, epoch, sequence, handles);
    }
  }
}
