package dev.twophase.testkit.crash;

import dev.twophase.ProtocolPoint;
import dev.twophase.annotation.Experimental;
import dev.twophase.testkit.crash.CrashFinding.Kind;
import dev.twophase.testkit.crash.CrashRun.Ending;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Crashes your participant in child JVMs and recovers it in new ones, then judges, from what your
 * resource shows, that no record was lost, none is visible twice, nothing was left open, and that
 * at the instant of each recovery exactly the decided records are visible.
 *
 * <pre>{@code
 * class MyParticipantCrashIT {
 *   @TempDir Path dir;
 *
 *   CrashTest crashTest() {
 *     return CrashTest.builder(MySubject.class).workDirectory(dir).records(60).checkpointEvery(10).build();
 *   }
 *
 *   static List<CrashScenario> scenarios() {
 *     List<CrashScenario> all = new ArrayList<>(CrashScenario.everyProtocolPoint());
 *     all.addAll(CrashScenario.atEach(List.of("mydb.commit.afterPublish"), 1, 2));
 *     return all;
 *   }
 *
 *   @ParameterizedTest(name = "{0}")
 *   @MethodSource("scenarios")
 *   void crashAndRecover(CrashScenario scenario) {
 *     crashTest().run(scenario);
 *   }
 * }
 * }</pre>
 *
 * <h2>What a scenario does</h2>
 * Each child JVM runs the same program (the test JVM's Java and class path): it opens a
 * {@link dev.twophase.FileStateLog} in the scenario directory and builds a coordinator with your
 * participant ({@link CrashSubject#participant}, named {@value CrashEnvironment#PARTICIPANT}) and
 * the harness's own file-based witness participant ({@value CrashEnvironment#WITNESS}, registered
 * second, so that the points between two participants are reached and both can be compared). The
 * application state is the input position. It writes the records 0 .. N-1 (N = {@link
 * Builder#records}) into both, from the position recovery restored, takes a checkpoint after every
 * k-th record (k = {@link Builder#checkpointEvery}), calls {@code finish()} at the end, awaits the
 * last commit and closes. The coordinator's {@code maxPendingCheckpoints} is 1 by default (commits
 * still run on the committer thread while the next records are written; the next checkpoint waits
 * for them), which keeps the hits below predictable; see {@link Builder#maxPendingCheckpoints}.
 *
 * <p>A scenario runs one child per {@link Crash}, each armed to halt there (as {@code kill -9}
 * would, exit status 86), each recovering what the previous one left; then one last child without
 * a crash, which runs to the end. Each child reports what your resource shows right before its
 * recovery (what the crash left), right after it, and at the end.
 *
 * <h2>Hit counts</h2>
 * Hits are counted per child JVM, from its start. In one child:
 * <ul>
 *   <li>At start-up, while the coordinator is built: {@code DURING_RECOVERY_COMMIT} once per
 *       handle recovery commits, your participant's first, then the witness's, for each decided
 *       checkpoint whose commit the previous child did not complete (with one pending checkpoint at
 *       most, that is at most one checkpoint: after a crash at {@code AFTER_LOG_APPEND:h},
 *       {@code BETWEEN_COMMITS:h} or {@code AFTER_COMMITS:h}, checkpoint h). Your own points in
 *       {@code commit} are reached there too if {@code recoverAndCommit} calls {@code commit} (the
 *       default), and those in {@code recoverAndAbort}, {@code finishRecoveringContext} and
 *       {@code beginTransaction} once each. No other coordinator point is reached at start-up.
 *   <li>Then once per checkpoint, in this order: {@code BEFORE_PRE_COMMIT}, your
 *       {@code preCommit}'s points, {@code BETWEEN_PRE_COMMITS}, {@code AFTER_PRE_COMMITS} (your
 *       {@code beginTransaction}'s points come just before it, for the next transaction),
 *       {@code AFTER_LOG_APPEND}, your {@code commit}'s points, {@code BETWEEN_COMMITS},
 *       {@code AFTER_COMMITS}. The hit h of a checkpoint point is the child's h-th checkpoint: in
 *       the first child, checkpoint h, records (h-1)k .. hk-1. The commit-side points are reached
 *       on the coordinator's committer thread.
 *   <li>A child that starts from nothing takes N / k checkpoints (rounded down) plus the one
 *       {@code finish()} takes. {@link #countHits()} runs a clean child and returns its counts.
 * </ul>
 * {@code DURING_LOG_APPEND} and {@code DURING_COMPACTION} are reached inside the child's
 * {@code FileStateLog}: the first once per sync that makes an append durable (hit 1 is the start-up
 * record's, hit h + 1 the h-th checkpoint's decision, unless a roll to a new segment synced in
 * between), the second once per compaction (the children's log compacts every few checkpoints). A
 * halted process keeps its writes in the page cache, so after a crash at one of them the harness
 * cuts the log as a power loss could ({@link dev.twophase.testing.PowerLoss}): the record in
 * flight torn, or the new segment cut, before the next child starts.
 *
 * <h2>Failures</h2>
 * Everything found is thrown at the end of the scenario as a {@link CrashTestFailure} (an
 * {@link AssertionError}) that lists the {@link CrashFinding}s and, for each child, how it ended
 * and the end of its output (and its threads, if it hung). A child armed with a crash that runs to
 * the end instead is a failure ({@link Kind#CRASH_NOT_REACHED}): the scenario would prove nothing.
 * The scenario's directory stays in the work directory.
 *
 * <p>Each child has a timeout ({@link Builder#childTimeout}); a child that exceeds it is dumped
 * ({@code jcmd Thread.print}) and killed. No child outlives {@link #run}.
 */
@Experimental
public final class CrashTest {

  /** The system property that overrides the default child timeout, e.g. {@code PT5M}. */
  public static final String CHILD_TIMEOUT_PROPERTY = "twophase.crashtest.childTimeout";

  private final Class<?> subject;
  private final Path workDirectory;
  private final long records;
  private final int checkpointEvery;
  private final int maxPendingCheckpoints;
  private final ScenarioRunner runner;
  private final AtomicInteger scenarios = new AtomicInteger();
  private final String runId = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
  private Map<String, Long> hitCounts;

  private CrashTest(Builder b) {
    this.subject = b.subject;
    this.workDirectory = b.workDirectory;
    this.records = b.records;
    this.checkpointEvery = b.checkpointEvery;
    this.maxPendingCheckpoints = b.maxPendingCheckpoints;
    this.runner = new ScenarioRunner(b.subject.getName(), b.records, b.checkpointEvery, b.maxPendingCheckpoints,
        b.childTimeout, b.childProperties, b.childJvmOptions, b.partialCommitsAllowed);
  }

  /** Starts building a crash test of the participant {@code subject} builds. */
  public static Builder builder(Class<? extends CrashSubject<?>> subject) {
    return new Builder(subject);
  }

  /** Settings of a {@link CrashTest}. */
  public static final class Builder {
    private final Class<?> subject;
    private Path workDirectory;
    private long records = 100;
    private int checkpointEvery = 10;
    private int maxPendingCheckpoints = 1;
    private Duration childTimeout = defaultChildTimeout();
    private final Map<String, String> childProperties = new LinkedHashMap<>();
    private final List<String> childJvmOptions = new ArrayList<>(List.of("-Xmx256m"));
    private boolean partialCommitsAllowed;

    private Builder(Class<? extends CrashSubject<?>> subject) {
      this.subject = Objects.requireNonNull(subject, "subject");
    }

    /**
     * Where scenarios run, each in a directory of its own that is kept (a JUnit {@code @TempDir}
     * is the usual choice). Required.
     */
    public Builder workDirectory(Path directory) {
      this.workDirectory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /** N: the records 0 .. N-1 each scenario writes. Default 100. */
    public Builder records(long n) {
      if (n < 1) {
        throw new IllegalArgumentException("records must be >= 1, was " + n);
      }
      this.records = n;
      return this;
    }

    /** k: a checkpoint after every k-th record. Default 10. */
    public Builder checkpointEvery(int k) {
      if (k < 1) {
        throw new IllegalArgumentException("checkpointEvery must be >= 1, was " + k);
      }
      this.checkpointEvery = k;
      return this;
    }

    /**
     * The coordinator's {@code maxPendingCheckpoints} in the children (with
     * {@code WhenPendingFull.BLOCK}), 0 for unbounded. Default 1: a checkpoint's commit overlaps
     * the writing of the next records, and the checkpoint after waits for it, so that the hit
     * counts are predictable. Unbounded lets commits fall behind; which checkpoints recovery
     * then commits depends on timing.
     */
    public Builder maxPendingCheckpoints(int max) {
      if (max < 0) {
        throw new IllegalArgumentException("maxPendingCheckpoints must be >= 0, was " + max);
      }
      this.maxPendingCheckpoints = max;
      return this;
    }

    /**
     * How long one child JVM may run before it is dumped and killed. Default two minutes, or the
     * system property {@value #CHILD_TIMEOUT_PROPERTY} (an ISO-8601 duration) of the test JVM.
     */
    public Builder childTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("childTimeout must be positive, was " + timeout);
      }
      this.childTimeout = timeout;
      return this;
    }

    /** A system property for every child JVM (a database URL, say); see {@link CrashEnvironment#property}. */
    public Builder childProperty(String name, String value) {
      childProperties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** JVM options for every child, after the harness's ({@code -Xmx256m} by default, replaced by yours). */
    public Builder childJvmOptions(String... options) {
      childJvmOptions.clear();
      childJvmOptions.addAll(List.of(options));
      return this;
    }

    /**
     * Accepts that a reader of your resource sees part of a transaction after a crash in the
     * middle of its commit, until recovery finishes it (files renamed one by one, say). The
     * harness then checks only what recovery leaves ({@link Kind#PARTIAL_COMMIT} is not
     * reported). Default: a commit must be atomic for a reader.
     */
    public Builder allowPartialCommitsBeforeRecovery() {
      this.partialCommitsAllowed = true;
      return this;
    }

    /**
     * Builds the crash test.
     *
     * @throws IllegalStateException if no work directory was given, or the subject class is not a
     *     public class with a public no-argument constructor
     */
    public CrashTest build() {
      if (workDirectory == null) {
        throw new IllegalStateException("CrashTest needs a workDirectory (a JUnit @TempDir, say)");
      }
      if (!Modifier.isPublic(subject.getModifiers()) || (subject.getEnclosingClass() != null
          && !Modifier.isStatic(subject.getModifiers()))) {
        throw new IllegalStateException(subject.getName() + " must be a public top-level or static nested "
            + "class: each child JVM instantiates it");
      }
      try {
        if (!Modifier.isPublic(subject.getConstructor().getModifiers())) {
          throw new NoSuchMethodException();
        }
      } catch (NoSuchMethodException e) {
        throw new IllegalStateException(subject.getName() + " needs a public no-argument constructor: "
            + "each child JVM instantiates it", e);
      }
      return new CrashTest(this);
    }

    private static Duration defaultChildTimeout() {
      String value = System.getProperty(CHILD_TIMEOUT_PROPERTY, "").strip();
      return value.isEmpty() ? Duration.ofMinutes(2) : Duration.parse(value);
    }
  }

  // ------------------------------------------------------------------------------ running

  /** Runs a scenario of these crashes; see {@link #run(CrashScenario)}. */
  public CrashRun run(Crash... crashes) {
    return run(CrashScenario.of(crashes));
  }

  /**
   * Runs {@code scenario}: a child JVM per crash, then a clean child that runs to the end, each
   * judged as it ends.
   *
   * @return what the children did, if nothing was found wrong
   * @throws CrashTestFailure listing everything found wrong, with the children's output
   */
  public CrashRun run(CrashScenario scenario) {
    return run(scenario, false);
  }

  /**
   * How often each point is reached in one child that starts from nothing and runs to the end
   * without a crash: the coordinator's points and your participant's. Runs that child once per
   * {@code CrashTest} (in a scenario directory of its own) and remembers the counts.
   *
   * @throws CrashTestFailure if that child fails
   */
  public synchronized Map<String, Long> countHits() {
    if (hitCounts == null) {
      CrashRun run = run(new CrashScenario("hit count", List.of()), false);
      hitCounts = new TreeMap<>(run.children().get(0).hits());
    }
    return hitCounts;
  }

  /**
   * Random crash testing: {@code scenarios} scenarios of one to three crashes each, at points and
   * hits drawn from {@code seed} among the points of {@link #countHits()} (plus
   * {@code DURING_RECOVERY_COMMIT}, hits 1 to 4), each followed by a clean child. A drawn hit may
   * lie beyond what its child reaches (an earlier crash leaves fewer records to write): that child
   * then runs to the end, which chaos mode allows. Directories of passing scenarios are deleted.
   * The same seed draws the same scenarios.
   *
   * @throws CrashTestFailure for the first failing scenario, naming the seed and how to repeat it
   */
  public ChaosResult chaos(long seed, int scenarios) {
    if (scenarios < 1) {
      throw new IllegalArgumentException("scenarios must be >= 1, was " + scenarios);
    }
    Map<String, Long> hits = new TreeMap<>(countHits());
    hits.putIfAbsent(ProtocolPoint.DURING_RECOVERY_COMMIT.name(), 4L);
    List<String> points = new ArrayList<>(hits.keySet());
    int children = 0;
    int crashes = 0;
    int notReached = 0;
    Map<String, Integer> byPoint = new TreeMap<>();
    for (int i = 0; i < scenarios; i++) {
      Random random = new Random(seed ^ (0x9E3779B97F4A7C15L * (i + 1)));
      List<Crash> plan = new ArrayList<>();
      int count = 1 + random.nextInt(3);
      for (int c = 0; c < count; c++) {
        String point = points.get(random.nextInt(points.size()));
        long max = Math.max(1, hits.get(point));
        // biased to early hits: a later child of the scenario has fewer records left to write
        plan.add(Crash.at(point, 1 + (long) (random.nextDouble() * random.nextDouble() * max)));
      }
      CrashScenario scenario = new CrashScenario("chaos seed " + seed + " #" + (i + 1) + ": "
          + CrashScenario.of(plan.toArray(new Crash[0])).name(), plan);
      CrashRun run;
      try {
        run = run(scenario, true);
      } catch (CrashTestFailure f) {
        throw new CrashTestFailure("chaos, seed " + seed + ", scenario #" + (i + 1) + " of " + scenarios
            + " (repeat it with chaos(" + seed + "L, " + (i + 1) + ")): " + f.getMessage(), f.findings(),
            f.scenarioDirectory());
      }
      for (CrashRun.Child child : run.children()) {
        children++;
        if (child.ending() == Ending.CRASHED) {
          crashes++;
          byPoint.merge(child.crash().orElseThrow().point(), 1, Integer::sum);
        } else if (child.crash().isPresent()) {
          notReached++;
        }
      }
      deleteQuietly(run.directory());
    }
    return new ChaosResult(seed, scenarios, children, crashes, notReached, byPoint);
  }

  private CrashRun run(CrashScenario scenario, boolean unreachedAllowed) {
    Objects.requireNonNull(scenario, "scenario");
    int number = scenarios.incrementAndGet();
    Path dir;
    try {
      dir = Files.createDirectories(workDirectory.resolve(String.format("%03d-%s", number, fileName(scenario.name()))));
    } catch (IOException e) {
      throw new IllegalStateException("cannot create the scenario directory under " + workDirectory, e);
    }
    return runner.run(scenario, dir, "s" + number + "_" + runId, unreachedAllowed);
  }

  private static String fileName(String name) {
    String safe = name.replaceAll("[^A-Za-z0-9._-]+", "_");
    return safe.length() <= 60 ? safe : safe.substring(0, 60);
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a passing scenario's files only take space
    }
  }

  @Override
  public String toString() {
    return "CrashTest{" + subject.getName() + ", N=" + records + ", k=" + checkpointEvery
        + ", maxPending=" + maxPendingCheckpoints + ", " + workDirectory + "}";
  }
}
