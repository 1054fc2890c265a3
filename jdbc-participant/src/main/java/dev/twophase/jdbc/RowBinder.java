package dev.twophase.jdbc;

import dev.twophase.annotation.PublicEvolving;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Sets the parameters of the participant's insert statement from one record, for the batch insert
 * path ({@link JdbcParticipant.Builder#insert}). Called on the application thread; it must only set
 * parameters (no {@code addBatch}, no execution).
 *
 * @param <IN> the record type
 */
@PublicEvolving
@FunctionalInterface
public interface RowBinder<IN> {

  /** Sets every parameter of {@code statement} from {@code record}. */
  void bind(PreparedStatement statement, IN record) throws SQLException;
}
