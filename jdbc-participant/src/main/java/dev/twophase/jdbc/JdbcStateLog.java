package dev.twophase.jdbc;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.jdbc.internal.statelog.OwnerNames;
import dev.twophase.jdbc.internal.statelog.StateLogCore;
import dev.twophase.jdbc.internal.statelog.StateLogTable;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A shared {@link StateLog} in a database table (PostgreSQL, MariaDB, MySQL or H2): many
 * processes open it at once, each claims the coordinators it runs, and any of them can claim a
 * coordinator whose owner is gone, on any machine that reaches the database. With a replicated
 * database (synchronous replication, semi-synchronous replication or Galera) a decision survives
 * the loss of the machine that made it and of the database's primary.
 *
 * <pre>{@code
 * try (JdbcStateLog log = JdbcStateLog.builder(dataSource).ownerName("orders-7").build()) {
 *   StateLog.CoordinatorLog partition0 = log.open("partition-0");
 *   ...
 * }
 * }</pre>
 *
 * <p><b>The table.</b> One row per coordinator (default table {@value
 * #DEFAULT_TABLE}, see {@link Builder#table}), holding its owner epoch, its holder,
 * its last state with a CRC32C checksum and its highest completion mark; plus one row, of the
 * empty coordinator id, holding the log's {@link #logId()}. {@link Builder#build()} creates the
 * table if it is missing and refuses one of another shape; docs/state-log-jdbc.md shows it.
 *
 * <p><b>Ownership.</b> {@link #open(String)} claims a coordinator in one transaction: it locks
 * the row, refuses with {@link CoordinatorHeldException} if another owner holds it (unless {@link
 * Builder#takeOver(boolean)}), raises the epoch, records this log's {@link Builder#ownerName
 * owner name} and reads the last state. An owner that reclaims a coordinator under its own name (a
 * restarted process with a stable name) needs no take-over. Closing a view releases the
 * coordinator (holder NULL, epoch kept).
 *
 * <p><b>Appends.</b> {@link CoordinatorLog#appendState} is an update conditional on the epoch,
 * committed before it returns; 0 rows updated means another owner claimed the coordinator:
 * {@link FencedException}, nothing stored. Appends of concurrent coordinators are committed
 * together by the log's single writer thread (group commit, {@link #stats()}): one fenced
 * coordinator does not fail the others. If the connection fails or the commit throws, the outcome
 * of the append is unknown: it throws a {@link dev.twophase.FatalTwoPhaseException} saying so,
 * the view turns unusable (its coordinator must stop and be opened again, which reads what the
 * table holds), and nothing is retried. Completion marks are not waited for: they are written with
 * the writer's next transaction, and at the latest when the view is closed.
 *
 * <p><b>Damage.</b> A state whose checksum fails is reported when its coordinator is opened
 * ({@link StateLogCorruptedException}, naming the table and the coordinator), never skipped.
 *
 * <p><b>Connections.</b> They come from the {@link DataSource} given to {@link #builder}: one is
 * held by the writer while the log is open (it is validated after 5 s of idleness and replaced if
 * it went away), one is taken for each claim and given back at once (so a pool needs at least
 * two). Every statement runs under
 * {@link Builder#timeout(Duration)}. The log never closes the data source: the caller does, after
 * closing the log.
 *
 * <p>Everything the log logs goes to the logger {@code dev.twophase.jdbc.JdbcStateLog}.
 * Thread-safe; so are the views {@link #open} returns.
 */
@PublicEvolving
public final class JdbcStateLog implements StateLog {

  /** Default {@link Builder#table(String)}: {@value}. */
  public static final String DEFAULT_TABLE = StateLogTable.DEFAULT_NAME;
  /** Default {@link Builder#timeout(Duration)}: 30 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
  /** Default {@link Builder#maxBatch(int)}: 256. */
  public static final int DEFAULT_MAX_BATCH = 256;

  private final StateLogCore core;

  private JdbcStateLog(StateLogCore core) {
    this.core = core;
  }

  /** A builder for a log whose connections come from {@code dataSource}. */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /** Settings of a {@link JdbcStateLog}. */
  public static final class Builder {
    private final DataSource dataSource;
    private String table = StateLogTable.DEFAULT_NAME;
    private boolean createTable = true;
    private String ownerName;
    private boolean takeOver;
    private Duration timeout = DEFAULT_TIMEOUT;
    private int maxBatch = DEFAULT_MAX_BATCH;
    private Clock clock = Clock.systemUTC();

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * The log's table (default {@value #DEFAULT_TABLE}): a plain SQL identifier,
     * optionally {@code schema.table}. Every process of one deployment uses the same table;
     * another deployment uses a table of its own (and so has its own {@link #logId()}).
     *
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder table(String table) {
      this.table = StateLogTable.requireName(table);
      return this;
    }

    /**
     * Whether {@link #build()} creates the table if it is missing (default true). Turn it off
     * where the log's user may not create tables; the table must then exist as
     * docs/state-log-jdbc.md shows. The shape is checked either way.
     */
    public Builder createTable(boolean create) {
      this.createTable = create;
      return this;
    }

    /**
     * The name this log's claims record as holder, up to 255 characters; default the host name
     * and the process id (and, for the second and later log built in one JVM, a counter). Give a
     * name that stays the same when the process restarts (a pod or service name, say) for the
     * restarted process to reclaim its coordinators without {@link #takeOver(boolean)}; never
     * give two running processes the same name, which would let each claim the other's
     * coordinators without being refused.
     */
    public Builder ownerName(String ownerName) {
      this.ownerName = OwnerNames.require(ownerName);
      return this;
    }

    /**
     * Whether {@link #open(String)} takes over a coordinator that another owner holds and has not
     * released (default false: it refuses with {@link CoordinatorHeldException}). Taking over
     * fences the holder for good: its next append fails with {@link FencedException}. Turn it on
     * where something outside the log (a group membership, an operator) has made sure the holder
     * is gone or is to be fenced.
     */
    public Builder takeOver(boolean takeOver) {
      this.takeOver = takeOver;
      return this;
    }

    /**
     * How long one statement or commit may wait for the database (default 30 s), as the JDBC
     * network timeout of the log's connections. An append whose commit times out has an unknown
     * outcome, as after a lost connection.
     *
     * @throws IllegalArgumentException if it is not positive
     */
    public Builder timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, was " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /** The most writes the writer commits in one transaction (default 256, at least 1). */
    public Builder maxBatch(int maxBatch) {
      if (maxBatch < 1) {
        throw new IllegalArgumentException("maxBatch must be >= 1, was " + maxBatch);
      }
      this.maxBatch = maxBatch;
      return this;
    }

    /** The clock of the claimed-at times the table records (default UTC system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Checks the database, creates the table if it is missing (see {@link #createTable}), checks
     * its shape, reads or creates the log id and starts the writer thread. A failed build leaves
     * no thread and no connection behind.
     *
     * @throws DatabaseSetupException if the database is unreachable, a setting makes commits not
     *     durable ({@code synchronous_commit = off}, {@code innodb_flush_log_at_trx_commit} other
     *     than 1, an H2 database in memory or with a write delay) or too small ({@code
     *     max_allowed_packet}), or the table is missing or of another shape; the message names
     *     the table or the setting and the fix
     * @throws StateLogCorruptedException if the row of the log id is damaged, or missing from a
     *     table that holds coordinators
     * @throws IllegalArgumentException if the database is not one the log supports
     */
    public JdbcStateLog build() {
      String owner = ownerName != null ? ownerName : OwnerNames.processDefault();
      return new JdbcStateLog(StateLogCore.open(new StateLogCore.Settings(dataSource, table,
          createTable, owner, takeOver, timeout, maxBatch, clock)));
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>One database transaction ({@code SELECT ... FOR UPDATE}, an update, a commit; the first
   * open of a coordinator inserts its row before).
   *
   * @throws IllegalArgumentException if the id is empty, longer than 255 UTF-8 bytes or not valid
   *     Unicode text
   * @throws CoordinatorHeldException if the id is open on this log object, or another owner holds
   *     it and {@link Builder#takeOver(boolean)} is off; the message names the holder, its epoch,
   *     when it claimed and the setting
   * @throws StateLogCorruptedException if the coordinator's last state fails its checksum;
   *     nothing was claimed
   * @throws FencedException if this log is closed
   * @throws TwoPhaseException if the database failed; nothing was claimed, or the claim only raised
   *     the epoch
   */
  @Override
  public CoordinatorLog open(String coordinatorId) {
    return core.open(coordinatorId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Kept in the row of the empty coordinator id, created by the first build on an empty table
   * (by one process if several build at once).
   */
  @Override
  public String logId() {
    return core.logId();
  }

  /** True: any process with this table claims coordinators from any other, fenced by its rows. */
  @Override
  public boolean isShared() {
    return true;
  }

  /** The table as configured. */
  public String table() {
    return core.tableName();
  }

  /** The name this log's claims record as holder. */
  public String ownerName() {
    return core.owner();
  }

  /** What this log has done since it was built. Cheap; also after {@link #close()}. */
  public JdbcStateLogStats stats() {
    return core.stats();
  }

  /**
   * Closes every coordinator still open on it (each writes its last completion mark and is
   * released), lets the writer finish, stops its thread and gives its connection back. Does not
   * close the data source. Idempotent.
   */
  @Override
  public void close() {
    core.close();
  }

  /** The writer thread, for tests that check nothing is left running. */
  Thread writerThread() {
    return core.writerThread();
  }

  @Override
  public String toString() {
    return "JdbcStateLog{" + core.tableName() + " on " + core.product() + ", logId="
        + core.logId() + ", owner=" + core.owner() + (core.isClosed() ? ", closed" : "")
        + "}";
  }
}
