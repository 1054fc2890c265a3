package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** What the builder checks before a sink reaches a cluster, and that the sink survives shipping. */
class TwoPhaseSinkTest {

  @Test
  void theSinkSurvivesJavaSerializationAsFlinkShipsIt() throws Exception {
    TwoPhaseSink<String> sink = TwoPhaseSink.<String>builder("orders")
        .participant("files", Participants.files("/tmp/x"))
        .participant("upper", Participants.files("/tmp/y"), s -> s.toUpperCase(Locale.ROOT))
        .build();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(sink);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      TwoPhaseSink<?> back = (TwoPhaseSink<?>) in.readObject();
      assertEquals("orders", back.sinkId());
      assertEquals(List.of("files", "upper"), back.participantNames());
    }
  }

  @Test
  void aFactoryThatCapturesSomethingNotSerializableIsRefusedAtBuild() {
    Path dir = Path.of("/tmp/x"); // a Path is not serializable
    TwoPhaseSink.Builder<String> builder = TwoPhaseSink.<String>builder("orders")
        .participant("files", () -> FileParticipant.builder(dir, RecordEncoders.lines()).build());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertTrue(e.getMessage().contains("participant 'files'"), e.getMessage());
  }

  @Test
  void participantsNeedUniqueNamesAndASinkNeedsOne() {
    TwoPhaseSink.Builder<String> builder = TwoPhaseSink.<String>builder("orders")
        .participant("files", Participants.files("/tmp/x"));
    assertThrows(IllegalArgumentException.class, () -> builder.participant("files", Participants.files("/tmp/y")));
    assertThrows(IllegalStateException.class, () -> TwoPhaseSink.<String>builder("orders").build());
    assertThrows(IllegalArgumentException.class, () -> TwoPhaseSink.builder(""));
  }
}
