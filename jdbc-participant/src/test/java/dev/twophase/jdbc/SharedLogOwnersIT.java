package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcome;
import dev.twophase.FencedException;
import dev.twophase.ParticipantContext;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.testing.TestContexts;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A coordinator on a shared state log changes owner while the old owner's process still runs (it
 * was stopped, or cut off, and does not know it lost the coordinator): the new owner's claim in
 * the database is the owner epoch recorded in the marker table, never a lock the old owner's
 * sessions could hold, so it starts at once; its recovery commits what the old owner decided and
 * rolls back what it did not, and never touches a newer owner's transactions; the old owner, when
 * it resumes, is told it was superseded (a {@link FencedException}), not that a transaction was
 * lost; an owner whose start-up comes after a newer owner's is refused before it touches anything.
 *
 * <p>MariaDB keeps a prepared branch attached to the session that prepared it until that session
 * ends: there the new owner's commit of the old owner's branch is refused (retriably, saying so)
 * while the old owner's sessions live, and goes through once the server ended them (here: {@code
 * KILL}, as an operator or the server's keepalive would).
 */
class SharedLogOwnersIT {

  private static final String LOG = TestContexts.LOG_ID;

  private static ParticipantContext owner(String id, long epoch) {
    return TestContexts.participant(id, "db", LOG, epoch, true);
  }

  /** Prepares a transaction of one row; adds the id of its session to {@code sessions} on MariaDB. */
  private static JdbcTransaction prepared(JdbcParticipant<Object> p, String id, long epoch, long checkpoint,
      String table, int row, List<Long> sessions) throws Exception {
    JdbcTransaction t = p.beginTransaction(TestContexts.<Void>transaction(id, "db", epoch, checkpoint, checkpoint));
    Connection c = p.connection(t);
    try (PreparedStatement s = c.prepareStatement("INSERT INTO " + table + " (id) VALUES (?)")) {
      s.setInt(1, row);
      s.executeUpdate();
    }
    if (p.database().startsWith("MariaDB")) {
      try (PreparedStatement s = c.prepareStatement("SELECT CONNECTION_ID()"); ResultSet rs = s.executeQuery()) {
        rs.next();
        sessions.add(rs.getLong(1));
      }
    }
    return p.preCommit(t);
  }

  /** A prepared transaction's name as the database lists it, decoded from an XA listing if need be. */
  private static String plainName(String listed) {
    Matcher xa = XA_LISTING.matcher(listed);
    return xa.matches() ? new String(Base64.getDecoder().decode(xa.group(1)), StandardCharsets.UTF_8) : listed;
  }

  /** PostgreSQL's listing of an XA branch: {@code <formatId>_<base64 gtrid>_<base64 bqual>}. */
  private static final Pattern XA_LISTING = Pattern.compile("[0-9]+_([A-Za-z0-9+/=]+)_[A-Za-z0-9+/=]*");

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#all")
  void aNewOwnerTakesOverWhileTheOldOwnerHoldsItsSessions(TestDatabase db) throws Exception {
    String id = "shared" + UUID.randomUUID().toString().substring(0, 8);
    String table = "rows_" + id;
    db.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY)");

    // A (epoch 3): a decided transaction not yet committed, and one prepared and never decided.
    JdbcParticipant<Object> a = db.builder().get().build();
    a.startRecovery(owner(id, 3));
    a.finishRecoveringContext(TestContexts.recovery(id, "db", LOG, 3, true, List.of(), null, 0));
    List<Long> sessionsOfA = new ArrayList<>();
    JdbcTransaction decided = prepared(a, id, 3, 1, table, 1, sessionsOfA);
    JdbcTransaction undecided = prepared(a, id, 3, 2, table, 2, sessionsOfA);

    // B (epoch 4) claims while A's participant, and every session of it, is still open.
    JdbcParticipant<Object> b = db.builder().get().build();
    b.startRecovery(owner(id, 4));
    // C (epoch 5) claims after B and prepares before B's recovery ends: B is superseded too.
    JdbcParticipant<Object> c = db.builder().get().build();
    c.startRecovery(owner(id, 5));
    JdbcTransaction newer = prepared(c, id, 5, 3, table, 3, new ArrayList<>());

    if (!sessionsOfA.isEmpty()) {
      RetriableTwoPhaseException attached = assertThrows(RetriableTwoPhaseException.class,
          () -> b.recoverAndCommit(decided));
      assertTrue(attached.getMessage().contains("the session that prepared it is still alive"), attached.getMessage());
      for (long session : sessionsOfA) {
        db.execute("KILL CONNECTION " + session);
      }
    }
    assertEquals(CommitOutcome.COMMITTED, b.recoverAndCommit(decided));
    b.finishRecoveringContext(TestContexts.recovery(id, "db", LOG, 4, true, List.of(decided), null, 1));
    List<String> prepared = db.prepared().get().stream().map(SharedLogOwnersIT::plainName).toList();
    assertTrue(prepared.stream().noneMatch(n -> n.contains(id + "-db-" + LOG + "-3-")),
        "B rolled back what A prepared and never decided: " + prepared);
    assertTrue(prepared.stream().anyMatch(n -> n.contains(id + "-db-" + LOG + "-5-")),
        "B left the newer owner's prepared transaction alone: " + prepared);
    assertEquals(CommitOutcome.COMMITTED, c.commit(newer));
    b.onEarlierIncarnationsRetired(owner(id, 4)); // deletes A's marker rows

    // A resumes: its commit of the decision B already finished is refused as superseded, not lost.
    FencedException fenced = assertThrows(FencedException.class, () -> a.commit(decided));
    assertTrue(fenced.getMessage().contains("newer owner (epoch 5)")
        && fenced.getMessage().contains("owner (epoch 3) was superseded"), fenced.getMessage());
    a.abort(undecided); // its close path: the transaction is gone already
    a.close();

    // An owner that claims after a newer one is refused before it touches anything.
    JdbcParticipant<Object> late = db.builder().get().build();
    FencedException refused = assertThrows(FencedException.class, () -> late.startRecovery(owner(id, 4)));
    assertTrue(refused.getMessage().contains("newer owner (epoch 5)") && refused.getMessage().contains("superseded"),
        refused.getMessage());
    late.close();

    assertEquals(2, db.count("SELECT COUNT(*) FROM " + table), "rows 1 (A's decision) and 3 (C's)");
    assertEquals(0, db.count("SELECT COUNT(*) FROM " + table + " WHERE id = 2"), "A's undecided row is not there");
    b.close();
    c.close();
    db.execute("DROP TABLE " + table);
  }
}
