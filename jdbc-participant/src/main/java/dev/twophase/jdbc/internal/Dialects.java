package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/** Picks the dialect of a data source from its driver's metadata. */
@Internal
public final class Dialects {

  private Dialects() {}

  /**
   * The SQL dialect for the database behind {@code dataSource}.
   *
   * @throws IllegalArgumentException for a database without one (use an {@code XADataSource})
   */
  public static Dialect detect(DataSource dataSource) throws SQLException {
    String product;
    String version;
    try (Connection c = dataSource.getConnection()) {
      DatabaseMetaData md = c.getMetaData();
      product = md.getDatabaseProductName();
      version = md.getDatabaseProductVersion();
    }
    String p = product.toLowerCase(Locale.ROOT);
    if (p.contains("postgresql")) {
      return new PostgresDialect(dataSource);
    }
    if (p.contains("mariadb") || version.toLowerCase(Locale.ROOT).contains("mariadb")) {
      return new MariaDbDialect(dataSource, "MariaDB");
    }
    if (p.contains("mysql")) {
      return new MariaDbDialect(dataSource, "MySQL");
    }
    if (p.equals("h2")) {
      return new H2Dialect(dataSource);
    }
    throw new IllegalArgumentException(
        "no SQL dialect for " + product + " " + version + " (supported: PostgreSQL, MariaDB, "
            + "MySQL, H2); give the participant the database's XADataSource instead");
  }
}
