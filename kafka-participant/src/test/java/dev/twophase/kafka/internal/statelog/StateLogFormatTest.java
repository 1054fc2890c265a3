package dev.twophase.kafka.internal.statelog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The record keys, frames and transactional ids of the Kafka state log, without a broker. */
class StateLogFormatTest {

  @Test
  void keysRoundTripAlsoWithSlashesInTheCoordinatorId() {
    for (RecordKey k : new RecordKey[] {RecordKey.logId(), RecordKey.owner("a/b"),
        RecordKey.completion("c"), RecordKey.state("x/1/y", 12), RecordKey.state("é", 0)}) {
      assertEquals(k, RecordKey.parse(k.bytes()), k.toString());
    }
    assertEquals("state/3/p/q", RecordKey.state("p/q", 3).toString());
    for (String bad : new String[] {"", "owner", "owner/", "state/x/c", "state/1/", "state//c",
        "other/c", "state/1234567890/c"}) {
      assertNull(RecordKey.parse(bad.getBytes(StandardCharsets.UTF_8)), bad);
    }
    assertNull(RecordKey.parse(null));
  }

  @Test
  void aFrameRoundTripsAndEveryFlippedByteIsCaught() throws Exception {
    byte[] key = RecordKey.state("c", 1).bytes();
    byte[] payload = "payload".getBytes(StandardCharsets.UTF_8);
    byte[] value = new Frame(RecordKind.STATE, "abcd1234", 7, 42, 3, 1, 2, payload).encode(key);
    assertEquals(Frame.OVERHEAD + payload.length, value.length);
    Frame f = Frame.decode(key, value);
    assertEquals(RecordKind.STATE, f.kind);
    assertEquals("abcd1234", f.logId);
    assertEquals(7, f.epoch);
    assertEquals(42, f.checkpointId);
    assertEquals(3, f.sequence);
    assertEquals(1, f.index);
    assertEquals(2, f.count);
    assertArrayEquals(payload, f.payload());
    for (int i = 0; i < value.length; i++) {
      byte[] damaged = value.clone();
      damaged[i] ^= 0x01;
      assertThrows(FrameException.class, () -> Frame.decode(key, damaged), "byte " + i);
    }
    assertThrows(FrameException.class, () -> Frame.decode(RecordKey.state("c", 0).bytes(), value),
        "a value under another key");
    assertThrows(FrameException.class, () -> Frame.decode(key, null));
    assertThrows(FrameException.class, () -> Frame.decode(key, new byte[10]));
  }

  @Test
  void aPartOfAPayloadIsFramedAsItsOwnRecord() throws Exception {
    byte[] key = RecordKey.state("c", 1).bytes();
    byte[] whole = new byte[] {1, 2, 3, 4, 5};
    byte[] value = new Frame(RecordKind.STATE, "abcd1234", 1, 1, 1, 1, 2, null)
        .encode(key, whole, 2, 3);
    assertArrayEquals(new byte[] {3, 4, 5}, Frame.decode(key, value).payload());
  }

  @Test
  void chunkCounts() {
    assertEquals(1, StateChunks.count(0));
    assertEquals(1, StateChunks.count(StateChunks.CHUNK_BYTES));
    assertEquals(2, StateChunks.count(StateChunks.CHUNK_BYTES + 1));
    assertEquals(32, StateChunks.count(dev.twophase.StateLog.MAX_STATE_BYTES));
  }

  @Test
  void transactionalIdsAreEscapedDistinctAndBounded() {
    assertEquals("twophase-log.t/c/partition-0",
        TransactionalIds.forCoordinator("twophase-log", "t", "partition-0"));
    assertEquals("p.t/c/a%2Fb%20c%C3%A9", TransactionalIds.forCoordinator("p", "t", "a/b cé"));
    assertEquals("p.t/log-id", TransactionalIds.forLogId("p", "t"));
    assertNotEquals(TransactionalIds.forLogId("p", "t"), TransactionalIds.forCoordinator("p", "t",
        "log-id"));
    String topic = "t".repeat(249);
    Set<String> ids = new HashSet<>();
    for (String c : new String[] {"é".repeat(127), "é".repeat(126) + "a", "x".repeat(255),
        "x".repeat(254) + "y"}) {
      String id = TransactionalIds.forCoordinator("twophase-log", topic, c);
      assertTrue(id.length() <= TransactionalIds.MAX_LENGTH, id.length() + ": " + id);
      assertTrue(id.matches("[A-Za-z0-9._/%~-]+"), id);
      assertTrue(ids.add(id), "two coordinators, one id: " + id);
    }
  }

  @Test
  void ownerPayloadsRoundTrip() {
    byte[] key = RecordKey.owner("c").bytes();
    Frame f = new Frame(RecordKind.OWNER, "abcd1234", 4, 0, 0, 0, 1,
        OwnerRecord.payload("12@host/1", true));
    OwnerRecord o = OwnerRecord.of(f, 9);
    assertEquals("12@host/1", o.holder);
    assertEquals(4, o.epoch);
    assertTrue(o.released);
    assertEquals(9, o.offset);
    assertNull(OwnerRecord.of(new Frame(RecordKind.OWNER, "abcd1234", 4, 0, 0, 0, 1,
        new byte[] {7}), 0));
    assertTrue(key.length > 0);
  }

  @Test
  void clientPropertiesAreSplitByClientAndTheLogsOwnAreForced() {
    ClientSettings s = new ClientSettings(Map.of("bootstrap.servers", "b:9092", "linger.ms", "1",
        "fetch.min.bytes", "1", "security.protocol", "PLAINTEXT", "custom.plugin.key", "v"));
    Map<String, Object> p = s.producer("tx");
    assertEquals("all", p.get("acks"));
    assertEquals(true, p.get("enable.idempotence"));
    assertEquals("tx", p.get("transactional.id"));
    assertEquals("1", p.get("linger.ms"));
    assertNull(p.get("fetch.min.bytes"));
    assertEquals("v", p.get("custom.plugin.key"));
    assertEquals(ClientSettings.DEFAULT_TRANSACTION_TIMEOUT_MS, p.get("transaction.timeout.ms"));
    Map<String, Object> c = s.consumer(org.apache.kafka.common.IsolationLevel.READ_COMMITTED, "r");
    assertEquals("read_committed", c.get("isolation.level"));
    assertNull(c.get("linger.ms"));
    assertEquals("PLAINTEXT", s.admin("t").get("security.protocol"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ClientSettings(Map.of("bootstrap.servers", "b", "max.request.size", "1000")));
    assertTrue(e.getMessage().contains("max.request.size"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new ClientSettings(Map.of()));
  }
}
