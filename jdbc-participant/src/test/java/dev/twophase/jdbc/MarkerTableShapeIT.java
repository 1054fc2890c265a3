package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A marker table of the wrong shape stops {@code build()} with a {@link DatabaseSetupException}
 * that names the table, the columns found and the ones expected, on every SQL dialect; one of the
 * documented shape builds.
 */
class MarkerTableShapeIT {

  private static String table() {
    return "markers_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aTableWithOtherColumnsIsRefusedWithTheColumnsFoundAndExpected(TestDatabase db) throws Exception {
    String table = table();
    db.execute("CREATE TABLE " + table + " (id INTEGER NOT NULL PRIMARY KEY, note VARCHAR(10))");
    try {
      for (boolean create : new boolean[] {true, false}) {
        DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
            () -> db.builder().get().markerTable(table).createMarkerTable(create).build());
        String m = e.getMessage();
        assertTrue(m.contains("marker table " + table + " has the wrong columns"), m);
        assertTrue(m.contains("no column name, no column owner, no column epoch"), m);
        assertTrue(m.contains("columns found: id "), m);
        assertTrue(m.contains(", note "), m);
        assertTrue(m.contains("expected: name VARCHAR(200) NOT NULL PRIMARY KEY, owner VARCHAR(200) NOT NULL, "
            + "epoch BIGINT NOT NULL"), m);
      }
    } finally {
      db.execute("DROP TABLE " + table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void columnsTooNarrowOrOfTheWrongTypeAreNamed(TestDatabase db) throws Exception {
    String table = table();
    db.execute("CREATE TABLE " + table + " (name VARCHAR(50) NOT NULL PRIMARY KEY, owner VARCHAR(200) NOT NULL, "
        + "epoch VARCHAR(20) NOT NULL)");
    try {
      DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
          () -> db.builder().get().markerTable(table).createMarkerTable(false).build());
      String m = e.getMessage();
      assertTrue(m.contains("name holds 50 characters, fewer than 200"), m);
      assertTrue(m.contains("epoch is not a 64-bit integer column"), m);
    } finally {
      db.execute("DROP TABLE " + table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void anotherNotNullColumnWithoutADefaultIsRefusedAndNothingIsLeftInTheTable(TestDatabase db) throws Exception {
    String table = table();
    db.execute("CREATE TABLE " + table + " (name VARCHAR(200) NOT NULL PRIMARY KEY, owner VARCHAR(200) NOT NULL, "
        + "epoch BIGINT NOT NULL, note VARCHAR(20) NOT NULL)");
    try {
      DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
          () -> db.builder().get().markerTable(table).createMarkerTable(false).build());
      String m = e.getMessage();
      assertTrue(m.contains("marker table " + table + " does not take a marker row (name, owner, epoch)"), m);
      assertTrue(m.toLowerCase(java.util.Locale.ROOT).contains("note"), "the database's reason names the column: " + m);
      assertTrue(m.contains("columns found: name "), m);
      assertTrue(m.contains("expected: name VARCHAR(200) NOT NULL PRIMARY KEY"), m);
      assertEquals(0, db.count("SELECT COUNT(*) FROM " + table), "the probe row was rolled back");
      db.execute("ALTER TABLE " + table + " DROP COLUMN note");
      db.execute("ALTER TABLE " + table + " ADD COLUMN note VARCHAR(20) DEFAULT 'x' NOT NULL");
      db.builder().get().markerTable(table).createMarkerTable(false).build().close();
      assertEquals(0, db.count("SELECT COUNT(*) FROM " + table), "with a default it builds, and leaves no row");
    } finally {
      db.execute("DROP TABLE " + table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void theDocumentedShapeBuilds(TestDatabase db) throws Exception {
    String table = table();
    db.execute("CREATE TABLE " + table + " (name VARCHAR(200) NOT NULL PRIMARY KEY, owner VARCHAR(200) NOT NULL, "
        + "epoch BIGINT NOT NULL)");
    try {
      JdbcParticipant<Object> p = db.builder().get().markerTable(table).createMarkerTable(false).build();
      p.close();
      JdbcParticipant<Object> created = db.builder().get().markerTable(table + "_new").build();
      created.close();
      assertEquals(0, db.count("SELECT COUNT(*) FROM " + table + "_new"));
    } finally {
      db.execute("DROP TABLE " + table);
      db.execute("DROP TABLE IF EXISTS " + table + "_new");
    }
  }
}
