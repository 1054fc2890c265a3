package dev.twophase.docs;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.CommitOutcome;
import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.ParticipantContext;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.RetirementListener;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * The guide's example (docs/writing-a-participant.md): exactly-once rows in a database that has no
 * prepared transactions, through a staging table and a marker row per transaction.
 *
 * <ul>
 *   <li>Records go to {@code events_staging}, tagged with the transaction's name, on a connection of
 *       the transaction's own, in one local transaction that stays open until the pre-commit.
 *   <li>{@code preCommit} adds the marker {@code (name, 'PREPARED')} and commits the local
 *       transaction: the staged rows and the marker become durable together, still invisible in
 *       {@code events}.
 *   <li>{@code commit} publishes in ONE local transaction: copies the staged rows into
 *       {@code events}, deletes them from staging, and turns the marker to {@code 'PUBLISHED'}. The
 *       marker tells a repeated commit ({@code PUBLISHED}: ALREADY_COMMITTED) from a transaction
 *       that is gone (no marker: LOST) - for an empty transaction too, which has no rows to look at.
 *   <li>Markers of published transactions are deleted once the coordinator says they can no longer
 *       be committed again ({@link RetirementListener}).
 * </ul>
 *
 * <p>Crash points ({@link FaultInjector}): {@code staged.preCommit.beforeCommit},
 * {@code staged.commit.afterCopy} (rows copied, staging and marker not yet updated: inside the
 * publishing transaction), {@code staged.commit.afterCommit}.
 */
public final class StagedTableParticipant
    implements Participant<StagedTableParticipant.Txn, Void>,
        Writable<StagedTableParticipant.Event, StagedTableParticipant.Txn>,
        RetirementListener<StagedTableParticipant.Txn> {

  /** A record: a row of {@code events}. */
  public record Event(long id, String body) {
    public Event {
      Objects.requireNonNull(body, "body");
    }
  }

  // snippet: staged-txn
  /** The handle: the transaction's name is all a new process needs. */
  public record Txn(String name) {
    public Txn {
      Objects.requireNonNull(name, "name");
    }
  }
  // end snippet

  /** Creates the three tables if they are missing. */
  public static void createTables(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection(); var s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS events (id BIGINT NOT NULL, body VARCHAR(1000) NOT NULL)");
      s.execute("CREATE TABLE IF NOT EXISTS events_staging ("
          + "txn VARCHAR(200) NOT NULL, id BIGINT NOT NULL, body VARCHAR(1000) NOT NULL)");
      s.execute("CREATE INDEX IF NOT EXISTS events_staging_txn ON events_staging (txn)");
      s.execute("CREATE TABLE IF NOT EXISTS twophase_markers ("
          + "txn VARCHAR(200) PRIMARY KEY, state VARCHAR(10) NOT NULL)");
    }
  }

  private static final Codec<Txn> CODEC = Codecs.json(Txn.class);

  private final DataSource dataSource;
  private final FaultInjector faults;
  /** Transactions begun here and not yet pre-committed or aborted: their open connection. */
  private final Map<String, Open> open = new ConcurrentHashMap<>();

  /** A participant on {@code dataSource}; {@code faults} is {@link FaultInjector#none()} in production. */
  public StagedTableParticipant(DataSource dataSource, FaultInjector faults) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.faults = Objects.requireNonNull(faults, "faults");
  }

  @Override
  public Codec<Txn> transactionCodec() {
    return CODEC;
  }

  @Override
  public Txn beginTransaction(TransactionContext<Void> context) throws SQLException {
    String name = context.transactionName();
    Connection connection = dataSource.getConnection();
    try {
      connection.setAutoCommit(false);
      PreparedStatement insert =
          connection.prepareStatement("INSERT INTO events_staging (txn, id, body) VALUES (?, ?, ?)");
      open.put(name, new Open(name, connection, insert));
      return new Txn(name);
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  @Override
  public RecordWriter<Event> writerFor(Txn transaction) {
    return open(transaction);
  }

  // snippet: staged-pre-commit
  @Override
  public Txn preCommit(Txn transaction) throws SQLException {
    Open t = open(transaction);
    try {
      t.insert.executeBatch();
      try (PreparedStatement marker = t.connection.prepareStatement(
          "INSERT INTO twophase_markers (txn, state) VALUES (?, 'PREPARED')")) {
        marker.setString(1, transaction.name());
        marker.executeUpdate();
      }
      faults.reached("staged.preCommit.beforeCommit");
      t.connection.commit(); // rows and marker durable together
    } finally {
      open.remove(transaction.name());
      t.close();
    }
    return transaction;
  }
  // end snippet

  // snippet: staged-commit
  @Override
  public CommitOutcome commit(Txn transaction) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        String state = markerState(c, transaction.name(), true);
        if (state == null) {
          c.rollback();
          return CommitOutcome.LOST; // aborted, or never pre-committed: its rows are gone
        }
        if (state.equals("PUBLISHED")) {
          c.rollback();
          return CommitOutcome.ALREADY_COMMITTED;
        }
        update(c, "INSERT INTO events (id, body) SELECT id, body FROM events_staging WHERE txn = ?",
            transaction.name());
        faults.reached("staged.commit.afterCopy");
        update(c, "DELETE FROM events_staging WHERE txn = ?", transaction.name());
        update(c, "UPDATE twophase_markers SET state = 'PUBLISHED' WHERE txn = ?", transaction.name());
        c.commit(); // the publication and its proof, in one local transaction
      } catch (SQLException | RuntimeException | Error e) {
        c.rollback();
        throw e;
      }
    }
    faults.reached("staged.commit.afterCommit");
    return CommitOutcome.COMMITTED;
  }
  // end snippet

  @Override
  public void abort(Txn transaction) throws SQLException {
    Open t = open.remove(transaction.name());
    if (t != null) {
      t.rollbackAndClose(); // never pre-committed: nothing of it reached the database
      return;
    }
    deleteUnpublished(transaction.name());
  }

  // snippet: staged-recover-and-abort
  @Override
  public AbortOutcome recoverAndAbort(Txn transaction) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      String state = markerState(c, transaction.name(), false);
      if ("PUBLISHED".equals(state)) {
        return AbortOutcome.COMMITTED; // leave it: the log lost the decision that published it
      }
    }
    return deleteUnpublished(transaction.name()) ? AbortOutcome.ABORTED : AbortOutcome.NOT_FOUND;
  }
  // end snippet

  @Override
  public void finishRecoveringContext(RecoveryContext<Txn, Void> context) throws SQLException {
    Predicate<String> leftover = context.leftovers(Txn::name);
    Set<String> lingering = new HashSet<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement q = c.prepareStatement(
            "SELECT txn FROM twophase_markers WHERE state = 'PREPARED' "
                + "UNION SELECT DISTINCT txn FROM events_staging")) {
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString(1);
          // Only this coordinator's participant's names, never another's rows.
          if (leftover.test(name) && !open.containsKey(name)) {
            lingering.add(name);
          }
        }
      }
    }
    for (String name : lingering) {
      deleteUnpublished(name);
    }
  }

  @Override
  public void onRetired(List<Txn> transactions) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement delete = c.prepareStatement(
            "DELETE FROM twophase_markers WHERE txn = ? AND state = 'PUBLISHED'")) {
      for (Txn t : transactions) {
        delete.setString(1, t.name());
        delete.addBatch();
      }
      delete.executeBatch();
    }
  }

  @Override
  public void onEarlierIncarnationsRetired(ParticipantContext context) throws SQLException {
    Set<String> retired = new HashSet<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement q = c.prepareStatement("SELECT txn FROM twophase_markers WHERE state = 'PUBLISHED'");
        ResultSet rs = q.executeQuery()) {
      while (rs.next()) {
        String name = rs.getString(1);
        if (context.isOwnTransactionName(name) && epochOf(context, name) < context.ownerEpoch()) {
          retired.add(name);
        }
      }
    }
    onRetired(retired.stream().map(Txn::new).toList());
  }

  @Override
  public void close() {
    open.values().forEach(Open::closeQuietly);
    open.clear();
  }

  // ------------------------------------------------------------------ helpers

  private Open open(Txn transaction) {
    Open t = open.get(transaction.name());
    if (t == null) {
      throw new IllegalStateException("transaction " + transaction.name() + " is not open here");
    }
    return t;
  }

  /** The epoch part of one of this participant's names: {@code <prefix><epoch>-<sequence>}. */
  private static long epochOf(ParticipantContext context, String name) {
    String rest = name.substring(context.transactionNamePrefix().length());
    return Long.parseLong(rest.substring(0, rest.indexOf('-')));
  }

  /** Deletes staged rows and a PREPARED marker in one local transaction; returns whether any were there. */
  private boolean deleteUnpublished(String name) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        int rows = update(c, "DELETE FROM events_staging WHERE txn = ?", name);
        int markers = update(c, "DELETE FROM twophase_markers WHERE txn = ? AND state = 'PREPARED'", name);
        c.commit();
        return rows + markers > 0;
      } catch (SQLException | RuntimeException | Error e) {
        c.rollback();
        throw e;
      }
    }
  }

  private static String markerState(Connection c, String name, boolean forUpdate) throws SQLException {
    try (PreparedStatement q = c.prepareStatement(
        "SELECT state FROM twophase_markers WHERE txn = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
      q.setString(1, name);
      try (ResultSet rs = q.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static int update(Connection c, String sql, String name) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, name);
      return s.executeUpdate();
    }
  }

  /** An open transaction: its connection, and the writer of its records. */
  private static final class Open implements RecordWriter<Event> {
    final String name;
    final Connection connection;
    final PreparedStatement insert;
    int batched;

    Open(String name, Connection connection, PreparedStatement insert) {
      this.name = name;
      this.connection = connection;
      this.insert = insert;
    }

    @Override
    public void write(Event event) throws SQLException {
      insert.setString(1, name);
      insert.setLong(2, event.id());
      insert.setString(3, event.body());
      insert.addBatch();
      if (++batched == 1_000) {
        insert.executeBatch();
        batched = 0;
      }
    }

    void rollbackAndClose() throws SQLException {
      try {
        connection.rollback();
      } finally {
        close();
      }
    }

    void close() throws SQLException {
      try {
        insert.close();
      } finally {
        connection.close();
      }
    }

    void closeQuietly() {
      try {
        rollbackAndClose();
      } catch (SQLException ignored) {
        // closing: the database rolls back what the connection held
      }
    }
  }
}
