package dev.twophase.jdbc.internal.statelog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog;
import dev.twophase.jdbc.JdbcStateLogStats;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The state log's logic that needs no database: checks, checksums, names, settings. */
class StateLogPureLogicTest {

  @Test
  void theChecksumCoversEveryField() {
    byte[] payload = {1, 2, 3};
    long base = RowChecksum.of("p0", 5, 2, payload);
    assertEquals(base, RowChecksum.of("p0", 5, 2, new byte[] {1, 2, 3}));
    assertNotEquals(base, RowChecksum.of("p1", 5, 2, payload));
    assertNotEquals(base, RowChecksum.of("p0", 6, 2, payload));
    assertNotEquals(base, RowChecksum.of("p0", 5, 3, payload));
    assertNotEquals(base, RowChecksum.of("p0", 5, 2, new byte[] {1, 2, 4}));
    assertTrue(base >= 0 && base <= 0xFFFFFFFFL);
  }

  @Test
  void tableNamesArePlainIdentifiers() {
    assertEquals("twophase_state_log", StateLogTable.requireName("twophase_state_log"));
    assertEquals("app.log_1", StateLogTable.requireName("app.log_1"));
    for (String bad : new String[] {"", "1log", "log-1", "a.b.c", "log; DROP TABLE x", "\"x\"",
        "x".repeat(64)}) {
      assertThrows(IllegalArgumentException.class, () -> StateLogTable.requireName(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> StateLogTable.requireName(null));
  }

  @Test
  void theTableSqlNamesEveryColumnPerDialect() {
    StateLogTable pg = new StateLogTable("t", new PostgresStateLogDialect());
    assertTrue(pg.createSql().contains("payload BYTEA"), pg.createSql());
    StateLogTable maria = new StateLogTable("app.t", new MariaDbStateLogDialect("MariaDB"));
    assertTrue(maria.createSql().contains("COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY"));
    assertTrue(maria.createSql().endsWith("ENGINE=InnoDB"), maria.createSql());
    assertEquals("app", maria.schema());
    assertEquals("t", maria.unqualifiedName());
    StateLogTable h2 = new StateLogTable("t", new H2StateLogDialect());
    assertTrue(h2.createSql().contains("payload BLOB"), h2.createSql());
    assertNull(h2.schema());
  }

  @Test
  void mariaDbSettingsAreCheckedForPacketSizeAndRedoFlush() {
    assertNull(MariaDbStateLogDialect.settingsProblem("MariaDB", 64L << 20, "1"));
    String small = MariaDbStateLogDialect.settingsProblem("MariaDB", 16L << 20, "1");
    assertTrue(small.contains("max_allowed_packet = 16777216"), small);
    assertTrue(MariaDbStateLogDialect.MIN_MAX_ALLOWED_PACKET > 2L * StateLog.MAX_STATE_BYTES);
    String lazy = MariaDbStateLogDialect.settingsProblem("MySQL", 64L << 20, "2");
    assertTrue(lazy.startsWith("MySQL has innodb_flush_log_at_trx_commit = 2"), lazy);
    assertTrue(MariaDbStateLogDialect.exactCollation("utf8mb4_nopad_bin"));
    assertTrue(MariaDbStateLogDialect.exactCollation("utf8mb4_0900_bin"));
    assertFalse(MariaDbStateLogDialect.exactCollation("utf8mb4_bin"), "pads trailing spaces");
    assertFalse(MariaDbStateLogDialect.exactCollation("utf8mb4_general_ci"));
  }

  @Test
  void logIdsAreEightCharactersOfLowerCaseLettersAndDigits() {
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      String id = LogIdRow.newLogId();
      assertTrue(LogIdRow.isLogId(id), id);
      ids.add(id);
    }
    assertEquals(1000, ids.size());
    assertFalse(LogIdRow.isLogId("ABCDEFGH"));
    assertFalse(LogIdRow.isLogId("abc"));
    assertFalse(LogIdRow.isLogId(null));
  }

  @Test
  void ownerNamesAreCheckedAndDefaultsDifferWithinAJvm() {
    assertEquals("orders-7", OwnerNames.require("orders-7"));
    assertThrows(IllegalArgumentException.class, () -> OwnerNames.require(" "));
    assertThrows(IllegalArgumentException.class, () -> OwnerNames.require("x".repeat(256)));
    String a = OwnerNames.processDefault();
    String b = OwnerNames.processDefault();
    assertNotEquals(a, b);
    assertTrue(a.contains(":" + ProcessHandle.current().pid()), a);
  }

  @Test
  void statsSubtractAndCountAppendsPerTransaction() {
    JdbcStateLogStats later = new JdbcStateLogStats(10, 4, 100, 4, 2, 1, 0);
    JdbcStateLogStats earlier = new JdbcStateLogStats(2, 1, 20, 2, 1, 0, 0);
    JdbcStateLogStats d = later.minus(earlier);
    assertEquals(new JdbcStateLogStats(8, 3, 80, 2, 1, 1, 0), d);
    assertEquals(4.0, d.appendsPerTransaction());
    assertEquals(0.0, new JdbcStateLogStats(0, 0, 0, 0, 0, 0, 0).appendsPerTransaction());
    assertThrows(IllegalArgumentException.class, () -> new JdbcStateLogStats(-1, 0, 0, 0, 0, 0, 0));
  }
}
