package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.jdbc.JdbcTransaction;
import org.junit.jupiter.api.Test;

class TransactionCodecTest {

  private final TransactionCodec codec = TransactionCodec.INSTANCE;

  @Test
  void handlesRoundTrip() {
    for (JdbcTransaction t : new JdbcTransaction[] {
        JdbcTransaction.begun("orders-db-log1-3-17"),
        JdbcTransaction.begun("~abcdefghijklmnopqrst~3-17").asEmpty()}) {
      assertEquals(t, codec.decode(codec.encode(t), codec.version()));
    }
  }

  @Test
  void anotherVersionOrForeignBytesAreRefusedWithTheReason() {
    byte[] bytes = codec.encode(JdbcTransaction.begun("a-b-1-2"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> codec.decode(bytes, 2));
    assertTrue(e.getMessage().contains("newer release"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[] {7, 'x'}, 1));
    assertThrows(IllegalArgumentException.class, () -> codec.decode(new byte[] {0}, 1));
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
