package dev.twophase.jdbc.internal.statelog;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.DatabaseSetupException;
import dev.twophase.jdbc.JdbcStateLogStats;
import dev.twophase.jdbc.internal.SqlErrors;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC state log behind {@link dev.twophase.jdbc.JdbcStateLog}: the checked table, the
 * claims, the open views and the writer.
 */
@Internal
public final class StateLogCore {

  /** The logger of everything the JDBC state log logs. */
  static final String LOGGER = "dev.twophase.jdbc.JdbcStateLog";

  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

  /** What the builder configured. */
  public record Settings(DataSource dataSource, String table, boolean createTable, String owner,
      boolean takeOver, Duration timeout, int maxBatch, Clock clock) {}

  private final Sessions sessions;
  private final StateLogTable table;
  private final StateLogDialect dialect;
  private final String logId;
  private final String owner;
  private final Claimer claimer;
  private final Counters counters = new Counters();
  private final GroupWriter writer;

  private final Object lock = new Object();
  /** The coordinators open or being opened on this object; guarded by {@link #lock}. */
  private final Map<String, CoordinatorView> views = new HashMap<>();
  /** Guarded by {@link #lock}. */
  private boolean closed;

  private StateLogCore(Settings settings, Sessions sessions, TableSetup.Opened opened) {
    this.sessions = sessions;
    this.table = opened.table();
    this.dialect = opened.dialect();
    this.logId = opened.logId();
    this.owner = settings.owner();
    this.claimer = new Claimer(table, dialect, owner, settings.takeOver(), settings.clock());
    this.writer = new GroupWriter(sessions, table, dialect, counters, settings.maxBatch());
  }

  /**
   * Checks the database, creates or checks the table, reads or creates the log id, and starts the
   * writer. A failure leaves no thread and no connection behind.
   */
  public static StateLogCore open(Settings settings) {
    Sessions sessions = new Sessions(settings.dataSource(), settings.timeout());
    TableSetup.Opened opened;
    Sessions.Session s;
    try {
      s = sessions.open(true);
    } catch (SQLException e) {
      throw new DatabaseSetupException("state log table " + settings.table() + ": cannot "
          + "connect to the database (" + SqlErrors.describe(e) + ")", e);
    }
    boolean ok = false;
    try {
      opened = TableSetup.open(s.connection(), settings.table(), settings.createTable());
      ok = true;
    } catch (SQLException e) {
      throw new DatabaseSetupException("state log table " + settings.table() + ": cannot check "
          + "the database or the table (" + SqlErrors.describe(e) + ")", e);
    } finally {
      if (ok) {
        Sessions.giveBack(s);
      } else {
        Sessions.discard(s.connection());
      }
    }
    StateLogCore core = new StateLogCore(settings, sessions, opened);
    core.writer.start();
    LOG.info("State log table {} on {} opened: log id {}, owner '{}'{}", opened.table().name(),
        opened.dialect().product(), opened.logId(), settings.owner(),
        settings.takeOver() ? ", taking coordinators over" : "");
    return core;
  }

  public String logId() {
    return logId;
  }

  public String tableName() {
    return table.name();
  }

  public String product() {
    return dialect.product();
  }

  public String owner() {
    return owner;
  }

  public JdbcStateLogStats stats() {
    return counters.snapshot();
  }

  GroupWriter writer() {
    return writer;
  }

  /** The writer's thread, for tests that check nothing is left running. */
  public Thread writerThread() {
    return writer.thread();
  }

  /** See {@link dev.twophase.jdbc.JdbcStateLog#open(String)}. */
  public StateLog.CoordinatorLog open(String coordinatorId) {
    validateId(coordinatorId);
    synchronized (lock) {
      if (closed) {
        throw new FencedException("state log table " + table.name() + " on " + dialect.product()
            + ": this log is closed; coordinator '" + coordinatorId + "' cannot be opened on it. "
            + "Build a new JdbcStateLog");
      }
      if (views.containsKey(coordinatorId)) {
        CoordinatorView open = views.get(coordinatorId);
        throw new CoordinatorHeldException(coordinatorId, owner + " (this log object)",
            open == null ? 0 : open.ownerEpoch(), "coordinator '" + coordinatorId + "' is "
                + "already open on this JdbcStateLog (table " + table.name() + ", owner '" + owner
                + "'): close its CoordinatorLog first; two coordinators must never share an id");
      }
      views.put(coordinatorId, null); // reserved while it is claimed
    }
    CoordinatorView view = null;
    try {
      view = claim(coordinatorId);
      return view;
    } finally {
      synchronized (lock) {
        if (view == null) {
          views.remove(coordinatorId);
        } else {
          views.put(coordinatorId, view);
        }
      }
    }
  }

  private CoordinatorView claim(String coordinatorId) {
    Sessions.Session s;
    try {
      s = sessions.open(false);
    } catch (SQLException e) {
      throw new FatalTwoPhaseException("coordinator '" + coordinatorId + "': cannot connect to "
          + "the database of state log table " + table.name() + " (" + SqlErrors.describe(e)
          + "); nothing was claimed", e);
    }
    boolean reusable = false;
    try {
      dialect.checkSession(s.connection()); // a claim's commit must be as durable as an append's
      ClaimedRow claimed = claimer.claim(s.connection(), coordinatorId);
      reusable = true;
      counters.claims.increment();
      CoordinatorView view = new CoordinatorView(this, coordinatorId, claimed);
      synchronized (lock) {
        if (!closed) {
          return view;
        }
      }
      releaseNow(s.connection(), view); // the log was closed while this claimed
      throw new FencedException("state log table " + table.name() + ": the log was closed "
          + "while coordinator '" + coordinatorId + "' was being opened; it was released again");
    } catch (SQLException e) {
      throw new FatalTwoPhaseException("coordinator '" + coordinatorId + "' could not be claimed "
          + "in state log table " + table.name() + " on " + dialect.product() + " ("
          + SqlErrors.describe(e) + "): nothing was claimed, or, if the commit of the claim "
          + "failed, the claim only raised the epoch; open it again", e);
    } catch (TwoPhaseException e) {
      reusable = true; // refused by the claim's checks, which rolled back
      throw e;
    } finally {
      if (reusable) {
        Sessions.giveBack(s);
      } else {
        Sessions.discard(s.connection());
      }
    }
  }

  private void releaseNow(Connection c, CoordinatorView view) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(table.release)) {
      s.setLong(1, 0);
      s.setString(2, view.coordinatorId());
      s.setLong(3, view.ownerEpoch());
      s.executeUpdate();
      c.commit();
    }
  }

  /** A view closed. */
  void closed(CoordinatorView view) {
    synchronized (lock) {
      views.remove(view.coordinatorId(), view);
    }
  }

  /** Closes every open view (releasing them), then stops the writer. Idempotent. */
  public void close() {
    List<CoordinatorView> open;
    synchronized (lock) {
      closed = true;
      open = new ArrayList<>();
      for (CoordinatorView v : views.values()) {
        if (v != null) {
          open.add(v);
        }
      }
    }
    try {
      for (CoordinatorView v : open) {
        v.close();
      }
    } finally {
      writer.stop();
    }
  }

  public boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  private static void validateId(String coordinatorId) {
    if (coordinatorId == null) {
      throw new NullPointerException("coordinatorId");
    }
    if (coordinatorId.isEmpty()) {
      throw new IllegalArgumentException("coordinatorId must not be empty");
    }
    ByteBuffer utf8;
    try {
      utf8 = StandardCharsets.UTF_8.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(coordinatorId));
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("coordinatorId must be valid Unicode text (it has an "
          + "unpaired surrogate): " + coordinatorId, e);
    }
    if (utf8.remaining() > StateLogTable.ID_CHARS) {
      throw new IllegalArgumentException("coordinatorId must be at most " + StateLogTable.ID_CHARS
          + " UTF-8 bytes, was " + utf8.remaining());
    }
  }
}
