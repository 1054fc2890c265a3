package dev.twophase.docs;

import dev.twophase.Participant;
import dev.twophase.docs.StagedTableParticipant.Event;
import dev.twophase.testkit.crash.CrashEnvironment;
import dev.twophase.testkit.crash.CrashSubject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The walk-through's participant as the crash harness runs it in each child JVM. */
public class StagedTableCrashSubject implements CrashSubject<Event> {

  @Override
  public Participant<?, ?> participant(CrashEnvironment environment) throws SQLException {
    return new StagedTableParticipant(database(environment), environment.faults());
  }

  /** The work directory's database, its tables created (the harness may read before the first start). */
  private static DataSource database(CrashEnvironment environment) throws SQLException {
    DataSource database = H2.dataSource(environment.workDirectory());
    StagedTableParticipant.createTables(database);
    return database;
  }

  @Override
  public Event record(long n) {
    return new Event(n, "event-" + n);
  }

  @Override
  public List<Event> committedRecords(CrashEnvironment environment) throws SQLException {
    List<Event> rows = new ArrayList<>();
    try (Connection c = database(environment).getConnection();
        ResultSet rs = c.createStatement().executeQuery("SELECT id, body FROM events ORDER BY _ROWID_")) {
      while (rs.next()) {
        rows.add(new Event(rs.getLong(1), rs.getString(2)));
      }
    }
    return rows;
  }

  @Override
  public List<String> openTransactions(CrashEnvironment environment) throws SQLException {
    List<String> open = new ArrayList<>();
    try (Connection c = database(environment).getConnection();
        ResultSet rs = c.createStatement().executeQuery(
            "SELECT txn FROM twophase_markers WHERE state = 'PREPARED' "
                + "UNION SELECT DISTINCT txn FROM events_staging")) {
      while (rs.next()) {
        open.add(rs.getString(1));
      }
    }
    return open;
  }
}
