package dev.twophase.jdbc.statelog;

import dev.twophase.StateLog;
import dev.twophase.jdbc.JdbcStateLog;
import dev.twophase.testkit.statelog.StateLogFactory;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Opens a {@link JdbcStateLog} for {@link dev.twophase.testkit.statelog.StateLogConformanceSuite},
 * in the test's JVM and in its child JVMs, from the settings {@value #URL} (a JDBC URL that
 * carries the user) and {@value #TABLE}. Every owner gets the default owner name (host, pid and a
 * counter), so that two owners never share a name, in one JVM or across JVMs.
 */
public final class JdbcStateLogFactory implements StateLogFactory {

  // Keys of a length divisible by 3: StateLogChild splits its arguments at the first '=', which
  // must not be the padding of the base64 of the key.
  /** The JDBC URL of the database, with its user. */
  public static final String URL = "url";
  /** The state log's table. */
  public static final String TABLE = "log_table";

  public JdbcStateLogFactory() {}

  @Override
  public StateLog open(Map<String, String> settings, boolean takeOver) throws SQLException {
    return JdbcStateLog.builder(dataSource(settings.get(URL)))
        .table(settings.get(TABLE))
        .takeOver(takeOver)
        .build();
  }

  /** A plain (unpooled) data source for {@code url}. */
  static DataSource dataSource(String url) throws SQLException {
    if (url.startsWith("jdbc:postgresql:")) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setUrl(url);
      return ds;
    }
    if (url.startsWith("jdbc:mariadb:")) {
      return new MariaDbDataSource(url);
    }
    if (url.startsWith("jdbc:h2:")) {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL(url);
      ds.setUser("sa");
      ds.setPassword("");
      return ds;
    }
    throw new IllegalArgumentException("no data source for " + url);
  }
}
