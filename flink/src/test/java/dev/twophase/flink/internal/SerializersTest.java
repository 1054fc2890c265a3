package dev.twophase.flink.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The committable and writer-state framing: round trips, codec versions kept, damage refused. */
class SerializersTest {

  private static EncodedHandle handle(String participant, int version, String bytes) {
    return new EncodedHandle(participant, version, 1234L, bytes.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aCommittableRoundTripsWithEveryHandleAndCodecVersion() throws IOException {
    Committable c = new Committable(7, 3, "c0s3", 42, 9,
        List.of(handle("files", 1, "{\"name\":\"a\"}"), handle("db", 5, "")));
    CommittableSerializer s = new CommittableSerializer();
    Committable back = s.deserialize(s.getVersion(), s.serialize(c));
    assertEquals(c, back);
    assertEquals(5, back.handles().get(1).codecVersion());
    assertEquals(List.of(c.handles().get(1)), c.withoutFirst(1).handles());
  }

  @Test
  void aWriterStateRoundTripsWithContextsAndOpenHandles() throws IOException {
    LineageState state = new LineageState("orders", "c12s0", 99, 4, 1, 3, List.of(
        new ParticipantState("files", 1, null, handle("files", 1, "open"), List.of()),
        new ParticipantState("db", 2, "ctx".getBytes(StandardCharsets.UTF_8), null,
            List.of(handle("db", 2, "pending-1"), handle("db", 2, "pending-2")))));
    LineageStateSerializer s = new LineageStateSerializer();
    LineageState back = s.deserialize(s.getVersion(), s.serialize(state));
    assertEquals(state, back);
    assertArrayEquals("ctx".getBytes(StandardCharsets.UTF_8), back.participant("db").context());
  }

  @Test
  void aWriterStateOfTheFirstVersionIsReadWithoutPendingHandles() throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
      out.writeUTF("orders");
      out.writeUTF("c12s0");
      out.writeLong(99);
      out.writeLong(4);
      out.writeInt(1);
      out.writeInt(3);
      out.writeInt(1);
      out.writeUTF("kafka");
      out.writeInt(1);
      Frames.writeBytes(out, null);
      out.writeBoolean(true);
      Frames.writeHandle(out, handle("kafka", 1, "open"));
    }
    LineageState back = new LineageStateSerializer().deserialize(1, bytes.toByteArray());
    assertEquals(new LineageState("orders", "c12s0", 99, 4, 1, 3, List.of(
        new ParticipantState("kafka", 1, null, handle("kafka", 1, "open"), List.of()))), back);
    IOException newer = assertThrows(IOException.class, () -> new LineageStateSerializer().deserialize(3, new byte[0]));
    assertTrue(newer.getMessage().contains("version 3"), newer.getMessage());
  }

  @Test
  void anUnknownSerializerVersionIsRefused() {
    CommittableSerializer s = new CommittableSerializer();
    IOException e = assertThrows(IOException.class, () -> s.deserialize(2, new byte[0]));
    assertTrue(e.getMessage().contains("version 2"), e.getMessage());
    assertThrows(IOException.class, () -> new LineageStateSerializer().deserialize(0, new byte[0]));
  }

  @Test
  void damagedBytesAreRefusedNotMisread() throws IOException {
    CommittableSerializer s = new CommittableSerializer();
    byte[] bytes = s.serialize(new Committable(1, 0, "c0s0", 1, 0, List.of(handle("files", 1, "x"))));
    assertThrows(IOException.class, () -> s.deserialize(1, Arrays.copyOf(bytes, bytes.length - 1)));
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThrows(IOException.class, () -> s.deserialize(1, longer));
  }
}
