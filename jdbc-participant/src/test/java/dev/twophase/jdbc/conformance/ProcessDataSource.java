package dev.twophase.jdbc.conformance;

import dev.twophase.jdbc.servers.ForwardingDataSource;
import dev.twophase.testkit.SimulatedProcess;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections belong to one {@link SimulatedProcess}: when the process
 * is killed, each connection it still holds is aborted, as the server sees a killed client's socket
 * close. Nothing of the participant runs.
 */
final class ProcessDataSource extends ForwardingDataSource {

  private final SimulatedProcess process;

  ProcessDataSource(DataSource target, SimulatedProcess process) {
    super(target);
    this.process = process;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return process.track(target.getConnection(), ProcessDataSource::drop);
  }

  private static void drop(Connection connection) throws SQLException {
    if (!connection.isClosed()) {
      connection.abort(Runnable::run);
    }
  }
}
