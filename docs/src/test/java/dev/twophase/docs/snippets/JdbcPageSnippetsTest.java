package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.Coordinator;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.docs.H2;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.testing.InMemoryStateLog;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import javax.sql.XADataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jdbc-participant.md's blocks, run on an H2 file database: each commits its row once. The
 * {@code XADataSource} block only compiles.
 */
class JdbcPageSnippetsTest {

  /** An input record of the batch example. */
  record Order(long id, BigDecimal amount) {}

  @TempDir Path tmp;
  private DataSource pool;

  @BeforeEach
  void createTheTable() throws SQLException {
    pool = H2.dataSource(tmp);
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE orders (id BIGINT NOT NULL, amount DECIMAL(10, 2) NOT NULL)");
    }
  }

  @Test
  void theApplicationWritesThroughTheTransactionsConnection() throws Exception {
    connection(pool, new InMemoryStateLog()).close(); // close() waits for the commit
    assertEquals(List.of("42 12.50"), rows());
  }

  @Test
  void recordsWrittenThroughOutputAreInserted() throws Exception {
    Coordinator coordinator = batch(pool, new InMemoryStateLog());
    coordinator.checkpoint();
    coordinator.close();
    assertEquals(List.of("42 12.50"), rows());
  }

  private List<String> rows() throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = pool.getConnection(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT id, amount FROM orders ORDER BY id")) {
      while (r.next()) {
        rows.add(r.getLong(1) + " " + r.getBigDecimal(2));
      }
    }
    return rows;
  }

  private static Coordinator connection(DataSource pool, StateLog log) throws Exception {
    // snippet: jdbc-use
    JdbcParticipant<Object> db = JdbcParticipant.builder(pool).build();   // checks the server now

    Coordinator coordinator = Coordinator.builder("orders", log)
        .participant("db", db)
        .build();

    // The application writes through the connection bound to the current transaction.
    Connection c = db.connection(coordinator.currentTransaction(db));
    try (PreparedStatement s = c.prepareStatement("INSERT INTO orders (id, amount) VALUES (?, ?)")) {
      s.setLong(1, 42);
      s.setBigDecimal(2, new BigDecimal("12.50"));
      s.executeUpdate();
    }
    coordinator.checkpoint();                        // prepares; commits after the decision
    // end snippet
    return coordinator;
  }

  private static Coordinator batch(DataSource pool, StateLog log) throws Exception {
    // snippet: jdbc-batch
    JdbcParticipant<Order> db = JdbcParticipant.builder(pool)
        .<Order>insert("INSERT INTO orders (id, amount) VALUES (?, ?)", (s, o) -> {
          s.setLong(1, o.id());
          s.setBigDecimal(2, o.amount());
        })
        .batchSize(1000)                             // rows per JDBC batch (default 1000)
        .build();
    Coordinator coordinator = Coordinator.builder("orders", log)
        .participant("db", db)
        .build();
    Output<Order> out = coordinator.output(db);
    out.write(new Order(42, new BigDecimal("12.50")));
    // end snippet
    return coordinator;
  }

  /** Compiles only: H2 is refused on this path, and the test has no other XA database. */
  static JdbcParticipant<Object> xa(XADataSource xaDataSource) throws Exception {
    // snippet: jdbc-xa
    JdbcParticipant<Object> db = JdbcParticipant.xaBuilder(xaDataSource).build();
    // end snippet
    return db;
  }
}
