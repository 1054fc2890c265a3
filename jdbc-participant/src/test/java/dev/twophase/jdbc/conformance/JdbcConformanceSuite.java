package dev.twophase.jdbc.conformance;

import dev.twophase.Participant;
import dev.twophase.TransactionContext;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.jdbc.JdbcTransaction;
import dev.twophase.jdbc.internal.BranchNames;
import dev.twophase.jdbc.internal.Dialect;
import dev.twophase.testkit.ParticipantConformanceSuite;
import dev.twophase.testkit.SimulatedProcess;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The testkit's conformance suite against one real database: records are strings inserted through
 * the participant's batch path into a table whose identity column gives write order (the suite
 * writes and commits transactions in the same order).
 */
abstract class JdbcConformanceSuite
    extends ParticipantConformanceSuite<JdbcTransaction, Void, String> {

  /** The database, reached without the participant. */
  protected abstract DataSource dataSource();

  /** {@code CREATE TABLE IF NOT EXISTS <table> (...)} with an identity {@code seq} and {@code v}. */
  protected abstract String createTable(String table);

  /** Rolls back every prepared transaction earlier tests left. */
  protected abstract void rollBackLeftovers() throws Exception;

  /** The dialect, for the in-progress check and for expiring a transaction. */
  protected abstract Dialect dialect();

  protected final String table() {
    return "conformance_rows";
  }

  @Override
  protected void setUpResource() throws Exception {
    rollBackLeftovers();
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute(createTable(table()));
      s.execute("DELETE FROM " + table());
    }
  }

  /**
   * Every connection the participant takes belongs to {@code process}: a killed process's
   * connections are dropped, so the server rolls back what they had open and keeps what they had
   * prepared.
   */
  @Override
  protected Participant<JdbcTransaction, Void> newParticipant(SimulatedProcess process) {
    return JdbcParticipant.builder(new ProcessDataSource(dataSource(), process))
        .<String>insert("INSERT INTO " + table() + " (v) VALUES (?)", (s, r) -> s.setString(1, r))
        .batchSize(2)
        .build();
  }

  @Override
  protected List<String> committedRecords() throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT v FROM " + table() + " ORDER BY seq")) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }

  @Override
  protected String record(int i) {
    return "record-" + i;
  }

  @Override
  protected boolean inProgressCheckSupported() {
    return true;
  }

  /** Prepared transactions only: an open one is not listed by any of the databases. */
  @Override
  protected boolean isInProgress(JdbcTransaction transaction) throws Exception {
    return dialect().preparedNames().contains(transaction.name());
  }

  @Override
  protected Optional<JdbcTransaction> handleNeverBegun(TransactionContext<Void> context) {
    return Optional.of(JdbcTransaction.begun(BranchNames.of(
        context.transactionNamePrefix(), context.transactionName(), dialect().maxNameBytes())));
  }

  @Override
  protected boolean lostTransactionSupported() {
    return true;
  }

  /** The database rolls the prepared transaction back behind the participant's back. */
  @Override
  protected void makeLost(JdbcTransaction transaction) throws Exception {
    dialect().rollbackRecovered(transaction.name());
  }

  static void execute(DataSource ds, String sql) throws Exception {
    try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.execute();
    }
  }
}
