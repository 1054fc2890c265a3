package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.jdbc.JdbcTransaction;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TransactionCodecTest {

  private final TransactionCodec codec = TransactionCodec.INSTANCE;

  @Test
  void handlesRoundTrip() throws Exception {
    for (JdbcTransaction t : new JdbcTransaction[] {
        JdbcTransaction.begun("orders-db-log1-3-17"),
        JdbcTransaction.begun("~abcdefghijklmnopqrst~3-17").asEmpty()}) {
      assertEquals(t, codec.decode(codec.encode(t), codec.version()));
    }
  }

  @Test
  void handlesAreWrittenAsJsonThatTheCliShowsAsText() throws Exception {
    byte[] bytes = codec.encode(JdbcTransaction.begun("orders-db-log1-3-17"));
    assertEquals(2, codec.version());
    assertEquals("{\"name\":\"orders-db-log1-3-17\",\"empty\":false}", new String(bytes, StandardCharsets.UTF_8));
  }

  @Test
  void handlesOfVersionOneAreStillRead() throws Exception {
    byte[] name = "orders-db-log1-3-17".getBytes(StandardCharsets.UTF_8);
    byte[] v1 = new byte[name.length + 1];
    System.arraycopy(name, 0, v1, 1, name.length);
    assertEquals(JdbcTransaction.begun("orders-db-log1-3-17"), codec.decode(v1, 1));
    v1[0] = 1;
    assertEquals(JdbcTransaction.begun("orders-db-log1-3-17").asEmpty(), codec.decode(v1, 1));
  }

  @Test
  void anotherVersionOrForeignBytesAreRefusedWithTheReason() throws Exception {
    byte[] bytes = codec.encode(JdbcTransaction.begun("a-b-1-2"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> codec.decode(bytes, 3));
    assertTrue(e.getMessage().contains("newer release"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[] {7, 'x'}, 1));
    assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[] {0}, 1));
    assertThrows(Exception.class, () -> codec.decode("{\"empty\":false}".getBytes(StandardCharsets.UTF_8), 2));
  }

  @Test
  void markerTableNamesArePlainIdentifiers() {
    new MarkerTable("twophase_markers");
    new MarkerTable("app.twophase_markers");
    assertThrows(IllegalArgumentException.class, () -> new MarkerTable("x; DROP TABLE y"));
    assertThrows(IllegalArgumentException.class, () -> new MarkerTable("a.b.c"));
    MarkerTable m = new MarkerTable("m");
    assertEquals("INSERT INTO m (name, owner, epoch) VALUES ('a-b-1-2', 'a-b-', 1)", m.insertSql("a-b-1-2", "a-b-", 1));
    assertThrows(IllegalArgumentException.class, () -> m.insertSql("a'b", "o", 1));
  }
}
