package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.RowBinder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Inserts records of one transaction in JDBC batches: binds each record at once (a record that
 * cannot be bound fails alone and is not added) and sends every {@code batchSize} rows, and the
 * rest at {@link #flush()}. A failed batch fails the transaction, on every database alike:
 * PostgreSQL aborts the whole transaction on a failed statement, while H2 and MariaDB roll back
 * only the failed rows and would commit the rest of the batch. So after a failed batch the writer
 * refuses every record and every flush, and the checkpoint that pre-commits the transaction fails
 * and aborts it: which rows of a batch the database kept is never what decides.
 *
 * <p>The statement is prepared at the first record, so a transaction without records stays
 * empty. Used by the application thread only.
 */
@Internal
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
  /** The failure of a batch, after which the transaction can only be aborted. */
  private Throwable failed;

  public BatchWriter(ConnectionSource connection, String sql, RowBinder<? super IN> binder, int batchSize) {
    this.connection = connection;
    this.sql = sql;
    this.binder = binder;
    this.batchSize = batchSize;
  }

  public void write(IN record) throws SQLException {
    if (failed != null) {
      throw notWritable();
    }
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
  /**
   * Sends the rows not yet sent.
   *
   * @throws SQLException if this batch or an earlier one failed: the transaction can only be
   *     aborted
   */
  public void flush() throws SQLException {
    if (failed != null) {
      throw notWritable();
    }
    if (pending > 0) {
      pending = 0;
      try {
        statement.executeBatch();
      } catch (SQLException | RuntimeException | Error e) {
        failed = e;
        throw e;
      }
    }
  }

  /** Whether a batch failed, so that the transaction can only be aborted. */
  public boolean failed() {
    return failed != null;
  }

  private SQLException notWritable() {
    return new SQLException("the transaction can no longer be committed: an earlier batch of "
        + "inserted rows failed (" + failedMessage() + "); the next checkpoint fails and rolls it "
        + "back, and the application writes its records again", failed);
  }

  private String failedMessage() {
    return failed instanceof SQLException e ? SqlErrors.describe(e) : String.valueOf(failed);
  }

  @Override
  public void close() throws SQLException {
    if (statement != null) {
      statement.close();
    }
  }
}
