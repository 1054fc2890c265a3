package dev.twophase.jdbc.internal;

import dev.twophase.jdbc.RowBinder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Inserts records of one transaction in JDBC batches: binds each record at once (a record that
 * cannot be bound fails alone and is not added) and sends every {@code batchSize} rows, and the
 * rest at {@link #flush()}. A failed batch fails the transaction: most databases abort the whole
 * transaction on a failed statement, so its checkpoint must fail.
 *
 * <p>The statement is prepared at the first record, so a transaction without records stays
 * empty. Used by the application thread only.
 */
public final class BatchWriter<IN> implements AutoCloseable {

  /** Gives the transaction's connection, marking the transaction written. */
  @FunctionalInterface
  public interface ConnectionSource {
    Connection connection() throws SQLException;
  }

  private final ConnectionSource connection;
  private final String sql;
  private final RowBinder<? super IN> binder;
  private final int batchSize;
  private PreparedStatement statement;
  private int pending;

  public BatchWriter(ConnectionSource connection, String sql, RowBinder<? super IN> binder, int batchSize) {
    this.connection = connection;
    this.sql = sql;
    this.binder = binder;
    this.batchSize = batchSize;
  }

  public void write(IN record) throws SQLException {
    if (statement == null) {
      statement = connection.connection().prepareStatement(sql);
    }
    try {
      binder.bind(statement, record);
    } catch (SQLException | RuntimeException | Error e) {
      statement.clearParameters();
      throw e;
    }
    statement.addBatch();
    if (++pending >= batchSize) {
      flush();
    }
  }

  /** Sends the rows not yet sent. */
  public void flush() throws SQLException {
    if (pending > 0) {
      pending = 0;
      statement.executeBatch();
    }
  }

  @Override
  public void close() throws SQLException {
    if (statement != null) {
      statement.close();
    }
  }
}
