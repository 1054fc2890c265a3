package dev.twophase.docs;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** An H2 file database for the examples; durable commits need {@code WRITE_DELAY=0}. */
public final class H2 {

  private H2() {}

  public static DataSource dataSource(Path directory) {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:file:" + directory.resolve("db").toAbsolutePath()
        + ";WRITE_DELAY=0;LOCK_TIMEOUT=5000");
    return ds;
  }

  /** Aborts the connection without a rollback, as the death of its process would. */
  public static void kill(Connection connection) {
    try {
      connection.abort(Runnable::run);
    } catch (SQLException ignored) {
      // already gone
    }
  }
}
