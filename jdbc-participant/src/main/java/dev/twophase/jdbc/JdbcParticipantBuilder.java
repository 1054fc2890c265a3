package dev.twophase.jdbc;

import dev.twophase.FaultInjector;
import dev.twophase.Scheduler;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.jdbc.internal.Dialect;
import dev.twophase.jdbc.internal.Dialects;
import dev.twophase.jdbc.internal.MarkerTable;
import dev.twophase.jdbc.internal.SqlErrors;
import dev.twophase.jdbc.internal.TransactionEngine;
import dev.twophase.jdbc.internal.XaDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import javax.sql.XADataSource;

/**
 * Builds a {@link JdbcParticipant}. {@link #build()} checks the database at once, so a setting
 * that would make every checkpoint fail stops the application before its coordinator starts.
 *
 * @param <IN> the record type of the batch insert path
 */
@PublicEvolving
public final class JdbcParticipantBuilder<IN> {

  private final DataSource dataSource;
  private final XADataSource xaDataSource;
  private String markerTable = MarkerTable.DEFAULT_NAME;
  private boolean createMarkerTable = true;
  private FaultInjector faults = FaultInjector.none();
  private String insertSql;
  private RowBinder<? super IN> binder;
  private int batchSize = 1000;
  private int markerDeleteBatch = 1000;
  private String label = "JDBC participant";
  private Scheduler scheduler = Scheduler.system();

  private JdbcParticipantBuilder(DataSource dataSource, XADataSource xaDataSource) {
    this.dataSource = dataSource;
    this.xaDataSource = xaDataSource;
  }

  static JdbcParticipantBuilder<Object> forDataSource(DataSource dataSource) {
    return new JdbcParticipantBuilder<>(Objects.requireNonNull(dataSource, "dataSource"), null);
  }

  static JdbcParticipantBuilder<Object> forXaDataSource(XADataSource dataSource) {
    return new JdbcParticipantBuilder<>(null, Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * The table of marker rows (default {@value MarkerTable#DEFAULT_NAME}); a plain identifier,
   * optionally {@code schema.table}. Several participants and coordinators may share it.
   */
  public JdbcParticipantBuilder<IN> markerTable(String table) {
    this.markerTable = Objects.requireNonNull(table, "table");
    return this;
  }

  /**
   * Whether {@link #build()} creates the marker table if it is missing (default true). Turn it off
   * where the participant's user may not create tables, and create it beforehand as
   * {@code docs/jdbc-participant.md} shows.
   */
  public JdbcParticipantBuilder<IN> createMarkerTable(boolean create) {
    this.createMarkerTable = create;
    return this;
  }

  /**
   * Where crash tests halt the process: the participant calls it at {@code
   * jdbc.preCommit.beforePrepare}, {@code jdbc.preCommit.afterPrepare}, {@code
   * jdbc.commit.beforeCommitPrepared} and {@code jdbc.commit.afterCommitPrepared}.
   */
  public JdbcParticipantBuilder<IN> faultInjector(FaultInjector injector) {
    this.faults = Objects.requireNonNull(injector, "injector");
    return this;
  }

  /**
   * How the participant waits between its attempts to finish a prepared transaction that the
   * database still counts as held by another session (MariaDB and MySQL do until they notice that
   * the session ended; the pauses add up to 5 s, then the participant throws and the coordinator
   * retries); default {@link Scheduler#system()}, as the coordinator's. A test may give one that
   * runs each task at once; the participant's thread blocks until the scheduler runs it.
   */
  public JdbcParticipantBuilder<IN> scheduler(Scheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    return this;
  }

  /** A name for this participant in log lines and exception messages. */
  public JdbcParticipantBuilder<IN> name(String name) {
    this.label = Objects.requireNonNull(name, "name");
    return this;
  }

  /**
   * Records written through the coordinator's {@code Output} are inserted with {@code sql} (an
   * {@code INSERT} with parameters), bound by {@code binder}, in JDBC batches.
   */
  @SuppressWarnings("unchecked")
  public <T> JdbcParticipantBuilder<T> insert(String sql, RowBinder<? super T> binder) {
    JdbcParticipantBuilder<T> self = (JdbcParticipantBuilder<T>) this;
    self.insertSql = Objects.requireNonNull(sql, "sql");
    self.binder = Objects.requireNonNull(binder, "binder");
    return self;
  }

  /** Rows per JDBC batch on the insert path (default 1000). */
  public JdbcParticipantBuilder<IN> batchSize(int rows) {
    if (rows <= 0) {
      throw new IllegalArgumentException("batchSize must be positive, was " + rows);
    }
    this.batchSize = rows;
    return this;
  }

  /**
   * How many retired transactions' marker rows are deleted together (default 1000). Each delete is
   * a durable transaction of its own, run on the coordinator's committer thread; 1 deletes at every
   * checkpoint, which costs a synced commit per checkpoint in the database.
   */
  public JdbcParticipantBuilder<IN> markerDeleteBatch(int rows) {
    if (rows <= 0) {
      throw new IllegalArgumentException("markerDeleteBatch must be positive, was " + rows);
    }
    this.markerDeleteBatch = rows;
    return this;
  }

  /**
   * Checks the database and builds the participant.
   *
   * @throws DatabaseSetupException if the database cannot keep the participant's promises as it
   *     is set up (the message names the setting and the fix)
   */
  public JdbcParticipant<IN> build() {
    Dialect dialect;
    MarkerTable markers;
    try {
      dialect = dataSource != null ? Dialects.detect(dataSource) : xaDialect(xaDataSource);
      markers = new MarkerTable(markerTable);
    } catch (SQLException e) {
      throw new DatabaseSetupException(label + ": cannot reach the database to check it ("
          + SqlErrors.describe(e) + ")", e);
    }
    try {
      dialect.checkServer();
      try (Connection c = dialect.autoCommitConnection()) {
        if (createMarkerTable) {
          markers.createIfAbsent(c);
        }
        String mismatch = markers.shapeMismatch(c);
        if (mismatch != null) {
          throw new DatabaseSetupException(label + " on " + dialect.product() + ": the marker table "
              + markerTable + " has the wrong columns: " + mismatch + ". Give the participant a "
              + "table of its own with markerTable(name), or create " + markerTable + " as "
              + "docs/jdbc-participant.md shows");
        }
        markers.check(c);
        String insert = markers.insertProblem(c);
        if (insert != null) {
          throw new DatabaseSetupException(label + " on " + dialect.product() + ": the marker table "
              + markerTable + " does not take a marker row (name, owner, epoch): " + insert + ". Give the "
              + "participant a table of its own with markerTable(name), or give every other column a default");
        }
      }
    } catch (SQLException e) {
      throw new DatabaseSetupException(label + " on " + dialect.product() + ": the marker table "
          + markerTable + " cannot be " + (createMarkerTable ? "created or " : "") + "read ("
          + SqlErrors.describe(e) + "). Create it as docs/jdbc-participant.md shows and grant "
          + "the participant's user SELECT, INSERT and DELETE on it", e);
    }
    return new JdbcParticipant<>(
        new TransactionEngine(label, dialect, markers, faults, scheduler), insertSql, binder, batchSize,
        markerDeleteBatch);
  }

  private static Dialect xaDialect(XADataSource ds) throws SQLException {
    String name = ds.getClass().getName();
    if (name.startsWith("org.h2.")) {
      throw new DatabaseSetupException("H2's XADataSource rolls back a prepared transaction when "
          + "its XAConnection closes; give the participant H2's DataSource (the same "
          + "org.h2.jdbcx.JdbcDataSource, passed as a javax.sql.DataSource)");
    }
    String product;
    javax.sql.XAConnection xa = ds.getXAConnection();
    try (Connection c = xa.getConnection()) {
      product = c.getMetaData().getDatabaseProductName();
    } finally {
      xa.close();
    }
    return new XaDialect(ds, product);
  }
}
