package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.StateLog;
import dev.twophase.docs.H2;
import dev.twophase.jdbc.JdbcStateLog;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** state-log-jdbc.md's block, run on an H2 file database. */
class JdbcStateLogPageSnippetsTest {

  @TempDir Path tmp;

  @Test
  void aLogInATableClaimsAndReleases() {
    DataSource dataSource = H2.dataSource(tmp);
    // snippet: state-log-jdbc-configure
    try (JdbcStateLog log = JdbcStateLog.builder(dataSource) // your pool; the log never closes it
        .table("twophase_state_log")                         // the default
        .ownerName("orders-7")                               // stable across restarts: see below
        .build()) {
      StateLog.CoordinatorLog partition0 = log.open("partition-0"); // a Coordinator does this
      partition0.close();                                           // and this: the release
    }
    // end snippet
    try (JdbcStateLog log = JdbcStateLog.builder(dataSource).ownerName("orders-8").build()) {
      assertEquals(2, log.open("partition-0").ownerEpoch(), "released: claimed without take-over");
    }
  }
}
