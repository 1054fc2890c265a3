package dev.twophase.testkit.statelog;

import dev.twophase.StateLog;
import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.StoredState;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The other process of {@link StateLogConformanceSuite}'s checks across JVMs: a JVM that owns the
 * log under test and does what the test tells it, one command a line on its standard input, one
 * reply a line on its standard output (prefixed {@value #REPLY}, so that other output is
 * ignored):
 *
 * <ul>
 *   <li>{@code openlog}: opens a new owner through the factory; replies {@code ok <logId>}
 *   <li>{@code open <coordinator>}: claims the coordinator; replies {@code ok <ownerEpoch>
 *       <last checkpoint id, -1 if none> <last completed checkpoint id>}
 *   <li>{@code append <coordinator> <checkpoint>}: appends {@code Payloads.of(coordinator,
 *       checkpoint)}; replies {@code ok} once the append returned
 *   <li>{@code complete <coordinator> <checkpoint>}, {@code close <coordinator>} (the view),
 *       {@code closelog}, {@code exit}
 *   <li>{@code appendloop <coordinator>}: starts appending checkpoints 2, 3, ... on a thread of
 *       its own until an append fails; {@code loopstatus <coordinator>} replies {@code ok <last
 *       checkpoint whose append returned>}; {@code awaitloop <coordinator> <millis>} waits that
 *       long for the loop to end and replies {@code ok <last> <exception class, or none if it
 *       still runs>}
 * </ul>
 *
 * A command that throws replies {@code error <exception class> <message>}. Arguments: the
 * factory class, whether to take coordinators over, then the settings as {@code
 * base64(key)=base64(value)}.
 */
final class StateLogChild {

  static final String REPLY = "@@ ";

  private final StateLogFactory factory;
  private final Map<String, String> settings;
  private final boolean takeOver;
  private final Map<String, CoordinatorLog> views = new HashMap<>();
  private final Map<String, RacingAppender> loops = new HashMap<>();
  private StateLog log;

  private StateLogChild(StateLogFactory factory, Map<String, String> settings, boolean takeOver) {
    this.factory = factory;
    this.settings = settings;
    this.takeOver = takeOver;
  }

  public static void main(String[] args) throws Exception {
    StateLogFactory factory = Class.forName(args[0]).asSubclass(StateLogFactory.class)
        .getDeclaredConstructor().newInstance();
    boolean takeOver = Boolean.parseBoolean(args[1]);
    Map<String, String> settings = new HashMap<>();
    for (int i = 2; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      settings.put(decode(args[i].substring(0, eq)), decode(args[i].substring(eq + 1)));
    }
    new StateLogChild(factory, settings, takeOver).serve();
  }

  static String encode(String s) {
    return Base64.getUrlEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String decode(String s) {
    return new String(Base64.getUrlDecoder().decode(s), StandardCharsets.UTF_8);
  }

  private void serve() throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] words = line.trim().split(" ");
      String reply;
      try {
        if (words[0].equals("exit")) {
          out.println(REPLY + "ok");
          Runtime.getRuntime().halt(0);
        }
        reply = "ok" + execute(words);
      } catch (Throwable t) { // reported to the test, whatever it is
        String message = String.valueOf(t.getMessage()).replace('\n', ' ').replace('\r', ' ');
        reply = "error " + t.getClass().getName() + " " + message;
      }
      out.println(REPLY + reply);
    }
    Runtime.getRuntime().halt(0);
  }

  private String execute(String[] words) throws Exception {
    switch (words[0]) {
      case "openlog" -> {
        log = factory.open(settings, takeOver);
        return " " + log.logId();
      }
      case "open" -> {
        CoordinatorLog view = log.open(words[1]);
        views.put(words[1], view);
        StoredState last = view.lastState();
        return " " + view.ownerEpoch() + " " + (last == null ? -1 : last.checkpointId()) + " "
            + view.lastCompletedCheckpointId();
      }
      case "append" -> {
        long checkpointId = Long.parseLong(words[2]);
        view(words[1]).appendState(checkpointId, Payloads.of(words[1], checkpointId));
        return "";
      }
      case "complete" -> {
        view(words[1]).appendCompletion(Long.parseLong(words[2]));
        return "";
      }
      case "close" -> {
        view(words[1]).close();
        return "";
      }
      case "appendloop" -> {
        RacingAppender loop = new RacingAppender(view(words[1]));
        loops.put(words[1], loop);
        loop.start();
        return "";
      }
      case "loopstatus" -> {
        return " " + loop(words[1]).lastReturned();
      }
      case "awaitloop" -> {
        RacingAppender loop = loop(words[1]);
        Throwable failure = loop.awaitFailure(Long.parseLong(words[2]));
        return " " + loop.lastReturned() + " "
            + (failure == null ? "none" : failure.getClass().getName());
      }
      case "closelog" -> {
        log.close();
        return "";
      }
      default -> throw new IllegalArgumentException("unknown command " + String.join(" ", words));
    }
  }

  private RacingAppender loop(String coordinatorId) {
    RacingAppender loop = loops.get(coordinatorId);
    if (loop == null) {
      throw new IllegalStateException("coordinator '" + coordinatorId + "' has no append loop");
    }
    return loop;
  }

  private CoordinatorLog view(String coordinatorId) {
    CoordinatorLog view = views.get(coordinatorId);
    if (view == null) {
      throw new IllegalStateException("coordinator '" + coordinatorId + "' was not opened");
    }
    return view;
  }
}
