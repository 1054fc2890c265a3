package dev.twophase.docs.snippets.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** writing-a-participant.md's versioned codec, run: it writes version 2 and reads 1 and 2, nothing newer. */
class HandleCodecTest {

  private final HandleCodec codec = new HandleCodec();

  @Test
  void writesVersionTwoAndReadsItBack() throws Exception {
    Handle handle = new Handle("orders-files-k3x9a0zq-3-17", List.of("part-0", "part-1"));
    assertEquals(2, codec.version());
    assertEquals(handle, codec.decode(codec.encode(handle), 2));
  }

  @Test
  void readsVersionOneABareName() throws Exception {
    byte[] v1 = "orders-files-k3x9a0zq-3-17".getBytes(StandardCharsets.UTF_8);
    assertEquals(new Handle("orders-files-k3x9a0zq-3-17", List.of()), codec.decode(v1, 1));
  }

  @Test
  void refusesANewerVersion() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[0], 3));
    assertEquals("handle version 3 is newer than 2", e.getMessage());
  }
}
