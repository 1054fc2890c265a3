package dev.twophase.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.twophase.FileStateLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.StateLogSnapshot;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.internal.StateCodec;
import dev.twophase.internal.StateCodec.VersionedBytes;
import dev.twophase.internal.StateCodec.CoordinatorRecord;
import dev.twophase.internal.StateCodec.HandleRecord;
import dev.twophase.internal.StateCodec.ParticipantRecord;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * Prints what a state log holds, for operators: per coordinator, the last decided checkpoint, the
 * transactions still to be committed (pending) and to be aborted on restart (current), with their
 * ages, and the application's snapshot. Read-only and lock-free, so it can run next to the owning
 * process.
 *
 * <pre>
 * java -cp twophase-core.jar:jackson-*.jar:slf4j-api.jar dev.twophase.cli.StateLogTool DIR [--json] [--coordinator ID]
 * </pre>
 *
 * <p>It prints {@link FileStateLog#inspect(Path)}'s view, decoding each coordinator's state.
 *
 * <p>Exit status: 0 when the log was read, 1 when it is damaged (the message names file and
 * offset) or a state cannot be decoded, 2 on bad usage, an unreadable directory or a directory
 * that holds no state log, 3 when {@code --coordinator} names an id the log does not hold (the
 * message lists the ids it holds).
 *
 * <p>Design note: a missing coordinator gets a status of its own, as {@code grep} and {@code git
 * config --get} give "nothing found" one apart from "could not read", so that a script can tell a
 * mistyped or retired id from a damaged log; nothing is printed to standard output then, so a
 * pipeline into {@code jq} does not go on with an empty document.
 */
@PublicEvolving
public final class StateLogTool {

  /** Most coordinator ids a "no coordinator" message lists (a log may hold one per partition). */
  private static final int MAX_IDS_LISTED = 50;

  private final PrintStream out;
  private final Clock clock;

  private StateLogTool(PrintStream out, Clock clock) {
    this.out = out;
    this.clock = clock;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err, Clock.systemUTC()));
  }

  /** The tool, minus {@code System.exit}: returns the exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err, Clock clock) {
    Path dir = null;
    boolean json = false;
    String only = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--json" -> json = true;
        case "--coordinator" -> {
          if (i + 1 >= args.length) {
            return usage(err, "--coordinator needs an id");
          }
          only = args[++i];
        }
        case "-h", "--help" -> {
          usage(out, null);
          return 0;
        }
        default -> {
          if (args[i].startsWith("-") || dir != null) {
            return usage(err, "unexpected argument " + args[i]);
          }
          dir = Path.of(args[i]);
        }
      }
    }
    if (dir == null) {
      return usage(err, "name the state log directory");
    }
    StateLogSnapshot snapshot;
    try {
      snapshot = FileStateLog.inspect(dir);
    } catch (StateLogCorruptedException e) {
      err.println("state log damaged: " + e.getMessage());
      return 1;
    } catch (UncheckedIOException e) {
      Throwable cause = e.getCause();
      if (cause instanceof NoSuchFileException n) {
        err.println("no state log in " + n.getFile() + ": it "
            + (n.getReason() == null ? "does not exist" : n.getReason())
            + "; name the directory of a FileStateLog");
      } else if (cause instanceof NotDirectoryException) {
        err.println("no state log in " + dir + ": it is not a directory; name the directory of a"
            + " FileStateLog");
      } else {
        err.println("cannot read state log " + dir + ": " + cause);
      }
      return 2;
    }
    if (only != null && snapshot.coordinator(only).isEmpty()) {
      err.println(notInLog(snapshot, only));
      return 3;
    }
    StateLogTool tool = new StateLogTool(out, clock);
    try {
      if (json) {
        tool.printJson(snapshot, only);
      } else {
        tool.printText(snapshot, only);
      }
    } catch (TwoPhaseException e) {
      err.println("cannot decode a coordinator state: " + e.getMessage());
      return 1;
    }
    return 0;
  }

  private static String notInLog(StateLogSnapshot snapshot, String id) {
    if (snapshot.coordinators().isEmpty()) {
      return "no coordinator '" + id + "' in state log " + snapshot.directory()
          + ": it holds no coordinator yet";
    }
    StringBuilder m = new StringBuilder("no coordinator '").append(id).append("' in state log ")
        .append(snapshot.directory()).append("; it holds ");
    int listed = 0;
    for (String held : snapshot.coordinators().keySet()) {
      if (listed == MAX_IDS_LISTED) {
        m.append(" and ").append(snapshot.coordinators().size() - listed)
            .append(" more (run without --coordinator to see all)");
        break;
      }
      m.append(listed++ == 0 ? "'" : ", '").append(held).append("'");
    }
    return m.toString();
  }

  private static int usage(PrintStream to, String problem) {
    if (problem != null) {
      to.println("error: " + problem);
    }
    to.println("usage: StateLogTool <state-log-directory> [--json] [--coordinator <id>]");
    to.println("  prints each coordinator's last checkpoint, pending and open transactions");
    return problem == null ? 0 : 2;
  }

  // ---------------------------------------------------------------- text

  private void printText(StateLogSnapshot s, String only) {
    out.printf("state log %s%n", s.directory());
    out.printf("  log id %s, owner epoch %d, %d segment(s), %d bytes%n", s.logId(), s.ownerEpoch(),
        s.segments().size(), s.totalBytes());
    s.tailInProgress().ifPresent(t -> out.printf(
        "  tail in progress: %d byte(s) at offset %d of %s (%s)%n", t.bytes(), t.offset(), t.file().getFileName(), t.reason()));
    for (StateLogSnapshot.Coordinator c : s.coordinators().values()) {
      if (only != null && !only.equals(c.coordinatorId())) {
        continue;
      }
      out.printf("%ncoordinator %s%n", c.coordinatorId());
      if (c.lastState().isEmpty()) {
        out.printf("  no state recorded; last completed checkpoint %d%n", c.lastCompletedCheckpointId());
        continue;
      }
      StateLogSnapshot.State state = c.lastState().get();
      CoordinatorRecord r = decode(c.coordinatorId(), state);
      out.printf("  last checkpoint %d (written %s, %s ago, epoch %d)%s%n", r.checkpointId(),
          Instant.ofEpochMilli(r.writtenAtMillis()), age(r.writtenAtMillis()), state.epoch(),
          r.finished() ? ", finished" : "");
      out.printf("  last completed checkpoint %d%n", c.lastCompletedCheckpointId());
      for (ParticipantRecord p : r.participants()) {
        out.printf("  participant %s (handle codec v%d)%n", p.name(), p.transactionCodecVersion());
        List<HandleRecord> pending = pendingAfter(p, c.lastCompletedCheckpointId());
        if (pending.isEmpty()) {
          out.printf("    pending: none%n");
        }
        for (HandleRecord h : pending) {
          out.printf("    pending  checkpoint %d, age %s: %s%n", h.checkpointId(), age(h.begunAtMillis()), show(h.handle()));
        }
        if (p.current() != null) {
          HandleRecord h = p.current();
          out.printf("    open     for checkpoint %d, age %s: %s%n", h.checkpointId(), age(h.begunAtMillis()), show(h.handle()));
        }
        if (p.context() != null) {
          out.printf("    context  v%d: %s%n", p.context().version(), show(p.context().bytes()));
        }
      }
      if (r.application() != null) {
        out.printf("  application snapshot v%d: %s%n", r.application().version(), show(r.application().bytes()));
      }
    }
  }

  /** Pending handles not yet covered by a completion mark: what a restart would commit. */
  private static List<HandleRecord> pendingAfter(ParticipantRecord p, long lastCompleted) {
    List<HandleRecord> result = new ArrayList<>();
    if (p.pending() != null) {
      for (HandleRecord h : p.pending()) {
        if (h.checkpointId() > lastCompleted) {
          result.add(h);
        }
      }
    }
    return result;
  }

  /** Decodes a coordinator's state (a state of another format says which). */
  private static CoordinatorRecord decode(String coordinatorId, StateLogSnapshot.State state) {
    return StateCodec.decode(state.payload(), "the state of coordinator '" + coordinatorId + "'");
  }

  private String age(long sinceMillis) {
    Duration d = Duration.ofMillis(Math.max(0, clock.millis() - sinceMillis));
    return d.toString().substring(2).toLowerCase(Locale.ROOT);
  }

  /** Handles are usually JSON or text; show them as such, else as base64. */
  private static String show(byte[] bytes) {
    String text = utf8(bytes);
    return text != null ? text : "base64:" + Base64.getEncoder().encodeToString(bytes);
  }

  private static String utf8(byte[] bytes) {
    try {
      String s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
      return s.chars().allMatch(ch -> ch >= 0x20 || ch == '\t') ? s : null;
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------- JSON

  private void printJson(StateLogSnapshot s, String only) {
    ObjectNode root = StateCodec.mapper().createObjectNode();
    root.put("directory", s.directory().toString());
    root.put("logId", s.logId());
    root.put("ownerEpoch", s.ownerEpoch());
    root.put("totalBytes", s.totalBytes());
    ArrayNode segments = root.putArray("segments");
    for (StateLogSnapshot.Segment seg : s.segments()) {
      segments.addObject().put("file", seg.file().getFileName().toString())
          .put("sequence", seg.sequence()).put("bytes", seg.sizeBytes()).put("records", seg.records());
    }
    s.tailInProgress().ifPresent(t -> root.putObject("tailInProgress")
        .put("file", t.file().getFileName().toString()).put("offset", t.offset())
        .put("bytes", t.bytes()).put("reason", t.reason()));
    ArrayNode coordinators = root.putArray("coordinators");
    for (StateLogSnapshot.Coordinator c : s.coordinators().values()) {
      if (only != null && !only.equals(c.coordinatorId())) {
        continue;
      }
      ObjectNode cn = coordinators.addObject();
      cn.put("coordinatorId", c.coordinatorId());
      cn.put("lastCompletedCheckpointId", c.lastCompletedCheckpointId());
      if (c.lastState().isEmpty()) {
        continue;
      }
      StateLogSnapshot.State state = c.lastState().get();
      CoordinatorRecord r = decode(c.coordinatorId(), state);
      cn.put("lastCheckpointId", r.checkpointId());
      cn.put("epoch", state.epoch());
      cn.put("writtenAt", Instant.ofEpochMilli(r.writtenAtMillis()).toString());
      cn.put("finished", r.finished());
      ArrayNode participants = cn.putArray("participants");
      for (ParticipantRecord p : r.participants()) {
        ObjectNode pn = participants.addObject();
        pn.put("name", p.name());
        pn.put("handleCodecVersion", p.transactionCodecVersion());
        ArrayNode pending = pn.putArray("pending");
        for (HandleRecord h : pendingAfter(p, c.lastCompletedCheckpointId())) {
          handle(pending.addObject(), h);
        }
        if (p.current() != null) {
          handle(pn.putObject("open"), p.current());
        }
        if (p.context() != null) {
          blob(pn.putObject("context"), p.context());
        }
      }
      if (r.application() != null) {
        blob(cn.putObject("application"), r.application());
      }
    }
    out.println(root.toPrettyString());
  }

  private void handle(ObjectNode node, HandleRecord h) {
    node.put("checkpointId", h.checkpointId());
    node.put("begunAt", Instant.ofEpochMilli(h.begunAtMillis()).toString());
    node.put("ageMillis", Math.max(0, clock.millis() - h.begunAtMillis()));
    putBytes(node, "handle", h.handle());
  }

  private static void blob(ObjectNode node, VersionedBytes b) {
    node.put("version", b.version());
    putBytes(node, "value", b.bytes());
  }

  private static void putBytes(ObjectNode node, String field, byte[] bytes) {
    String text = utf8(bytes);
    if (text == null) {
      node.put(field + "Base64", Base64.getEncoder().encodeToString(bytes));
      return;
    }
    try {
      node.set(field, StateCodec.mapper().readTree(text));
    } catch (Exception notJson) {
      node.put(field, text);
    }
  }
}
