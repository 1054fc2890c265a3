package dev.twophase.jdbc.crash;

import dev.twophase.crash.ChildProgram;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * The independent checker of the JDBC crash tests: counts the committed rows of each database
 * (every input exactly once, none lost, none twice), and finds what is left prepared.
 */
final class JdbcCrashChecker {

  private JdbcCrashChecker() {}

  /** The child's report right after recovery: the restored position and each database's rows. */
  static void writeReport(Path report, long position, Map<String, DataSource> databases, String table)
      throws IOException, SQLException {
    StringBuilder text = new StringBuilder("position=" + position + "\n");
    for (Map.Entry<String, DataSource> e : databases.entrySet()) {
      text.append(e.getKey()).append('=').append(join(rows(e.getValue(), table))).append('\n');
    }
    ChildProgram.writeReport(report, text.toString());
  }

  static List<Long> rows(DataSource ds, String table) throws SQLException {
    List<Long> rows = new ArrayList<>();
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT n FROM " + table)) {
      while (rs.next()) {
        rows.add(rs.getLong(1));
      }
    }
    return rows;
  }

  private static String join(List<Long> rows) {
    StringBuilder b = new StringBuilder();
    for (long r : rows) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(r);
    }
    return b.toString();
  }

  /** What is wrong with {@code rows} if it should hold 0..expected-1 exactly once; empty if nothing. */
  static List<String> exactlyOnce(String database, SortedMap<Long, Integer> rows, long expected) {
    List<String> findings = new ArrayList<>();
    List<Long> missing = new ArrayList<>();
    List<Long> twice = new ArrayList<>();
    List<Long> extra = new ArrayList<>();
    for (long i = 0; i < expected; i++) {
      Integer count = rows.get(i);
      if (count == null) {
        missing.add(i);
      } else if (count > 1) {
        twice.add(i);
      }
    }
    for (long r : rows.keySet()) {
      if (r < 0 || r >= expected) {
        extra.add(r);
      }
    }
    if (!missing.isEmpty()) {
      findings.add(database + ": lost " + ChildProgram.ranges(missing));
    }
    if (!twice.isEmpty()) {
      findings.add(database + ": twice or more " + ChildProgram.ranges(twice));
    }
    if (!extra.isEmpty()) {
      findings.add(database + ": committed beyond the position " + expected + ": " + ChildProgram.ranges(extra));
    }
    return findings;
  }

  /** Checks a report: every database shows exactly 0..position-1. */
  static List<String> checkRecovery(Path report, List<String> databases) throws IOException {
    Properties p = ChildProgram.readReport(report);
    long position = Long.parseLong(p.getProperty("position"));
    List<String> findings = new ArrayList<>();
    for (String db : databases) {
      findings.addAll(exactlyOnce(db + " right after recovery (position " + position + ")",
          ChildProgram.counts(p.getProperty(db, "")), position));
    }
    return findings;
  }

  static long position(Path report) throws IOException {
    return Long.parseLong(ChildProgram.readReport(report).getProperty("position"));
  }
}
