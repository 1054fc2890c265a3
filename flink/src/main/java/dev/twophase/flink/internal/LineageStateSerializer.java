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
 * Writes the writer state ({@link LineageState}) into Flink's checkpoints. Contexts and handles are
 * the bytes of the participants' own codecs, each with its codec version; this serializer only
 * frames them (version 2: sink id, lineage, epoch, next sequence, subtask, parallelism, then per
 * participant its name, context codec version, context, open handle and pending handles; version
 * 1, read for states of earlier releases, has no pending handles).
 */
@Internal
public final class LineageStateSerializer implements SimpleVersionedSerializer<LineageState> {

  static final int VERSION = 2;
  /** The first version, without pending handles. */
  static final int VERSION_WITHOUT_PENDING = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(LineageState s) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeUTF(s.sinkId());
      out.writeUTF(s.lineage());
      out.writeLong(s.epoch());
      out.writeLong(s.nextSequence());
      out.writeInt(s.subtask());
      out.writeInt(s.parallelism());
      out.writeInt(s.participants().size());
      for (ParticipantState p : s.participants()) {
        out.writeUTF(p.participant());
        out.writeInt(p.contextCodecVersion());
        Frames.writeBytes(out, p.context());
        out.writeBoolean(p.open() != null);
        if (p.open() != null) {
          Frames.writeHandle(out, p.open());
        }
        out.writeInt(p.pending().size());
        for (EncodedHandle h : p.pending()) {
          Frames.writeHandle(out, h);
        }
      }
    }
    return bytes.toByteArray();
  }

  @Override
  public LineageState deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION_WITHOUT_PENDING) {
      Frames.requireVersion(version, VERSION, "writer states");
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
      String sinkId = in.readUTF();
      String lineage = in.readUTF();
      long epoch = in.readLong();
      long nextSequence = in.readLong();
      int subtask = in.readInt();
      int parallelism = in.readInt();
      int n = in.readInt();
      if (n < 0 || n > 10_000) {
        throw new IOException("damaged writer state: " + n + " participants");
      }
      List<ParticipantState> participants = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        String name = in.readUTF();
        int contextVersion = in.readInt();
        byte[] context = Frames.readBytes(in);
        EncodedHandle open = in.readBoolean() ? Frames.readHandle(in) : null;
        List<EncodedHandle> pending = new ArrayList<>();
        if (version >= VERSION) {
          int k = in.readInt();
          if (k < 0 || k > 1_000_000) {
            throw new IOException("damaged writer state: " + k + " pending handles of participant '" + name + "'");
          }
          for (int j = 0; j < k; j++) {
            pending.add(Frames.readHandle(in));
          }
        }
        participants.add(new ParticipantState(name, contextVersion, context, open, pending));
      }
      Frames.requireEnd(in, "a writer state");
      return new LineageState(sinkId, lineage, epoch, nextSequence, subtask, parallelism, participants);
    }
  }
}
