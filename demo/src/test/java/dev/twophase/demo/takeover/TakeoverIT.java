package dev.twophase.demo.takeover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.ProtocolPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Take-over after a crash: process A (a child JVM, {@link TakeoverJob}) runs one coordinator over
 * files, PostgreSQL and Kafka and is killed with {@code SIGKILL} at a protocol point; its local
 * directory is deleted; process B (another JVM, another owner name, take-over on) claims the
 * coordinator on the state log, recovers and finishes the input. Then an independent {@link
 * Checker} reads every participant: each record exactly once, nothing prepared, open or in
 * progress.
 *
 * <p>Points and logs: on {@code jdbc} ({@code JdbcStateLog} on the PostgreSQL server) every point
 * of the coordinator: those a run from a fresh log reaches ({@code BEFORE_PRE_COMMIT} ... {@code
 * AFTER_COMMITS}, as the demo's {@code CrashPlan.IN_RUN}), in the middle checkpoint, and the
 * recovery point {@code DURING_RECOVERY_COMMIT} (A killed after a decision, B killed during its
 * recovery commits, C recovers). On {@code kafka} ({@code KafkaStateLog} on the broker) a rotating
 * subset of three of them, to keep the run short ({@link #pointsOf}; all of them with {@code
 * -Dtakeover.allPoints=true}); the test names say which. The shared logs report no points of their
 * own; {@code DURING_LOG_APPEND} and {@code DURING_COMPACTION} are {@code FileStateLog}'s, covered
 * on {@code file}: a {@code FileStateLog} in a directory that survives A, standing in for a
 * replicated log (owned by one process at a time, so it has no zombie case). The {@code BETWEEN_*}
 * points are reached twice per checkpoint (three participants): the logs alternate between the two
 * hits.
 *
 * <p>What "local" means: A's own working directory (its {@code java.io.tmpdir}) is deleted after
 * the kill; the output directory of the file participant, the database, the broker and the state
 * log survive, as shared or replicated stores would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TakeoverIT {

  static final long RECORDS = 40;
  static final int EVERY = 10;
  /** The checkpoint the crash lands in: records before and after it. */
  static final int MIDDLE = 2;
  /** Participants - 1: the BETWEEN_* hits per checkpoint. */
  static final int PAIRS = 2;

  static final List<String> LOGS = List.of("file", "jdbc", "kafka");

  private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(90);
  private static final Pattern EPOCH = Pattern.compile(Pattern.quote(TakeoverJob.CLAIMED) + "([0-9]+),.*");
  private static final AtomicInteger CASES = new AtomicInteger();

  private Servers servers;

  @BeforeAll
  void startServers() throws Exception {
    servers = Servers.shared();
  }

  /** The points every log reaches: the coordinator's, of a run from a fresh log and of recovery. */
  static final List<ProtocolPoint> COORDINATOR_POINTS = List.of(
      ProtocolPoint.BEFORE_PRE_COMMIT,
      ProtocolPoint.BETWEEN_PRE_COMMITS,
      ProtocolPoint.AFTER_PRE_COMMITS,
      ProtocolPoint.AFTER_LOG_APPEND,
      ProtocolPoint.BETWEEN_COMMITS,
      ProtocolPoint.AFTER_COMMITS,
      ProtocolPoint.DURING_RECOVERY_COMMIT);

  /** How many of {@link #COORDINATOR_POINTS} the Kafka log covers in one run (unless all are asked for). */
  static final int KAFKA_ROTATION = 3;

  /**
   * The points a crash case covers on {@code log}: on {@code file}, the log's own points (the
   * shared logs report none); on {@code jdbc}, every point of the coordinator; on {@code kafka},
   * {@value #KAFKA_ROTATION} of them, rotating with the day of the year (all of them with {@code
   * -Dtakeover.allPoints=true}).
   */
  static List<ProtocolPoint> pointsOf(String log) {
    return switch (log) {
      case "file" -> List.of(ProtocolPoint.DURING_LOG_APPEND, ProtocolPoint.DURING_COMPACTION);
      case "jdbc" -> COORDINATOR_POINTS;
      case "kafka" -> {
        if (Boolean.getBoolean("takeover.allPoints")) {
          yield COORDINATOR_POINTS;
        }
        int first = LocalDate.now(ZoneOffset.UTC).getDayOfYear() * KAFKA_ROTATION;
        List<ProtocolPoint> some = new ArrayList<>();
        for (int k = 0; k < KAFKA_ROTATION; k++) {
          some.add(COORDINATOR_POINTS.get((first + k) % COORDINATOR_POINTS.size()));
        }
        yield some;
      }
      default -> throw new IllegalArgumentException(log);
    };
  }

  /** The JVMs' crash specs of one case: one per killed JVM; a last one runs to the end. */
  static List<String> plan(ProtocolPoint point, int logIndex) {
    return switch (point) {
      case BETWEEN_PRE_COMMITS, BETWEEN_COMMITS -> List.of(point + ":" + ((MIDDLE - 1) * PAIRS + 1 + logIndex % PAIRS));
      case DURING_LOG_APPEND -> List.of(point + ":" + (MIDDLE + 1)); // the first append is the start-up record
      case DURING_RECOVERY_COMMIT -> List.of(ProtocolPoint.AFTER_LOG_APPEND + ":" + MIDDLE, point + ":1");
      case DURING_COMPACTION -> List.of(point + ":1");
      default -> List.of(point + ":" + MIDDLE);
    };
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (int i = 0; i < LOGS.size(); i++) {
      for (ProtocolPoint p : pointsOf(LOGS.get(i))) {
        cases.add(Arguments.of(LOGS.get(i), p, plan(p, i)));
      }
    }
    return cases.stream();
  }

  /** No point is left out without saying so: every point is covered on some log, every run. */
  @Test
  void everyPointIsCovered() {
    Set<ProtocolPoint> covered = EnumSet.noneOf(ProtocolPoint.class);
    LOGS.forEach(log -> covered.addAll(pointsOf(log)));
    assertEquals(EnumSet.allOf(ProtocolPoint.class), covered);
    assertEquals(Set.copyOf(COORDINATOR_POINTS), Set.copyOf(pointsOf("jdbc")));
  }

  @ParameterizedTest(name = "{0} log, A killed at {2}")
  @MethodSource("cases")
  void killedOwnerIsTakenOver(String log, ProtocolPoint point, List<String> crashes, @TempDir Path dir)
      throws Exception {
    Case c = newCase(log, dir);
    List<String> all = new ArrayList<>();
    long lastEpoch = 0;
    for (int jvm = 0; jvm <= crashes.size(); jvm++) {
      String owner = String.valueOf((char) ('A' + jvm));
      String crash = jvm < crashes.size() ? crashes.get(jvm) : "none";
      Path local = dir.resolve("local-" + owner);
      JobArgs args = c.args.withOwner(owner, local.toString(), crash, jvm > 0, 0);
      try (ChildJob job = ChildJob.start(owner, args)) {
        boolean ended = job.awaitExit(CHILD_TIMEOUT);
        String text = job.output();
        all.add(text);
        assertTrue(ended, owner + " did not end within " + CHILD_TIMEOUT + "\n" + text);
        long epoch = epoch(job);
        if (epoch >= 0 || jvm == crashes.size()) { // a JVM killed before its claim returned has none
          assertTrue(epoch > lastEpoch, owner + " claimed under epoch " + epoch + ", not above " + lastEpoch + "\n" + text);
          lastEpoch = epoch;
        }
        if (jvm < crashes.size()) {
          assertEquals(crash, job.killedAt(), owner + " must reach " + crash + "\n" + text);
          assertEquals(ChildJob.SIGKILL_EXIT, job.exitCode(), owner + " must die of SIGKILL\n" + text);
        } else {
          assertEquals(0, job.exitCode(), owner + " must finish\n" + text);
          assertTrue(job.lines().stream().anyMatch(l -> l.startsWith(TakeoverJob.FINISHED)), text);
        }
      }
      Servers.deleteTree(local); // the machine is gone: nothing local survives
    }
    assertEquals(List.of(), c.check(servers), String.join("\n----\n", all));
  }

  private Case newCase(String log, Path dir) throws Exception {
    int n = CASES.incrementAndGet();
    String id = "tk" + n;
    Path shared = Files.createDirectories(dir.resolve("shared"));
    String logSpec = logSpec(log, shared, servers, id);
    String table = "orders_" + id;
    String topic = "orders-" + id;
    servers.createTable(table);
    servers.createTopic(topic);
    JobArgs args = new JobArgs("A", id, logSpec, false, shared.resolve("out").toString(), "",
        servers.pgUrl(), table, servers.bootstrap(), topic, "tx-" + id + "-", RECORDS, EVERY, 0, "none", JobArgs.ALL);
    return new Case(args);
  }

  /** The {@code log=} argument of the jobs of one case on {@code log}. */
  static String logSpec(String log, Path shared, Servers servers, String id) {
    return switch (log) {
      case "file" -> "file:" + shared.resolve("state-log");
      case "jdbc" -> "jdbc:" + servers.pgUrl() + "|twophase_state_log";
      case "kafka" -> "kafka:" + servers.bootstrap() + "|twophase-state-log";
      default -> throw new IllegalArgumentException(log);
    };
  }

  private static long epoch(ChildJob job) {
    for (String line : job.lines()) {
      Matcher m = EPOCH.matcher(line);
      if (m.matches()) {
        return Long.parseLong(m.group(1));
      }
    }
    return -1; // killed before its coordinator was built
  }

  record Case(JobArgs args) {
    List<String> check(Servers servers) throws Exception {
      return Checker.check(args, servers);
    }
  }
}
