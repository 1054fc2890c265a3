package dev.twophase.crash;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.ProtocolPoint;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Random crash testing: many scenarios, each with random N, k, checkpoint mode, segment size and
 * idle coordinators sharing the log, and one to three crashes in a row at random points and hit
 * counts, then a clean run; every recovery and the final output go through {@link CrashChecker}.
 *
 * <p>Runs only in the {@code chaos} Maven profile:
 * <pre>
 *   mvn -B -pl core -am verify -Pchaos -Dchaos.runs=200
 *   mvn -B -pl core -am verify -Pchaos -Dchaos.duration=PT5M
 *   mvn -B -pl core -am verify -Pchaos -Dchaos.runs=50 -Dchaos.seed=1234   (reproduce)
 * </pre>
 * {@code chaos.threads} runs scenarios in parallel (default: available processors). Each scenario
 * draws its parameters from its own seed, derived from the master seed and its run number, so a
 * run reproduces with the same master seed whatever the thread count. The directories of failed
 * runs are kept under {@code target/chaos/}.
 *
 * <p>Also skipped unless {@code chaos.enabled=true}, which only the profile sets, so that it never
 * runs by accident in the normal build.
 */
@EnabledIfSystemProperty(named = "chaos.enabled", matches = "true")
class ChaosIT {

  private static final ProtocolPoint[] POINTS = ProtocolPoint.values();

  private final AtomicLong crashes = new AtomicLong();
  private final AtomicLong notReached = new AtomicLong();
  private final AtomicLong recoveries = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong children = new AtomicLong();
  private final Map<ProtocolPoint, Long> crashesByPoint = new EnumMap<>(ProtocolPoint.class);
  private final CrashChecker.Findings findings = new CrashChecker.Findings();
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());

  @Test
  void randomCrashesNeverLoseOrDuplicate() throws Exception {
    String seedProp = System.getProperty("chaos.seed", "").trim();
    long seed = seedProp.isEmpty() ? new Random().nextLong() : Long.parseLong(seedProp);
    String durationProp = System.getProperty("chaos.duration", "").trim();
    String runsProp = System.getProperty("chaos.runs", "").trim();
    Duration duration = durationProp.isEmpty() ? null : Duration.parse(durationProp);
    int runs = runsProp.isEmpty() ? (duration == null ? 200 : Integer.MAX_VALUE) : Integer.parseInt(runsProp);
    String threadsProp = System.getProperty("chaos.threads", "").trim();
    int threads = threadsProp.isEmpty() ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(threadsProp);
    Path base = Path.of(System.getProperty("chaos.dir", "target/chaos")).toAbsolutePath().resolve("seed-" + seed);
    Files.createDirectories(base);

    System.out.println("chaos: seed=" + seed + " runs=" + (runs == Integer.MAX_VALUE ? "-" : runs)
        + " duration=" + (duration == null ? "-" : duration) + " threads=" + threads + " dir=" + base
        + " (reproduce with -Dchaos.seed=" + seed + ")");
    Instant start = Instant.now();
    Instant deadline = duration == null ? null : start.plus(duration);
    AtomicInteger next = new AtomicInteger();
    AtomicInteger completed = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      workers.add(pool.submit(() -> {
        while (true) {
          if (deadline != null && Instant.now().isAfter(deadline)) {
            return null;
          }
          int run = next.getAndIncrement();
          if (run >= runs) {
            return null;
          }
          runOne(seed, run, base);
          int done = completed.incrementAndGet();
          if (done % 25 == 0) {
            System.out.println("chaos: " + done + " runs, " + crashes.get() + " crashes, "
                + Duration.between(start, Instant.now()).toSeconds() + " s");
          }
        }
      }));
    }
    for (Future<?> w : workers) {
      w.get();
    }
    pool.shutdown();
    pool.awaitTermination(1, TimeUnit.MINUTES);

    Duration took = Duration.between(start, Instant.now());
    StringBuilder byPoint = new StringBuilder();
    for (int i = 0; i < POINTS.length; i++) {
      byPoint.append(i == 0 ? "" : " ").append(POINTS[i]).append('=').append(crashesByPoint.getOrDefault(POINTS[i], 0L));
    }
    String summary;
    synchronized (findings) {
      summary = "chaos: seed=" + seed + " runs=" + completed.get() + " children=" + children.get()
          + " crashes=" + crashes.get() + " crash-points-not-reached=" + notReached.get()
          + " recoveries=" + recoveries.get() + " lost=" + findings.lost
          + " duplicated=" + findings.duplicated + " atomicity-violations=" + findings.atomicityViolations
          + " undecided-visible=" + findings.undecidedVisible + " leftovers=" + findings.leftovers
          + " errors=" + errors.get() + " duration=" + took.truncatedTo(ChronoUnit.SECONDS);
    }
    System.out.println("chaos: crashes by point: " + byPoint);
    System.out.println(summary);
    synchronized (failures) {
      for (String f : failures.subList(0, Math.min(5, failures.size()))) {
        System.out.println("chaos: FAILURE " + f);
      }
    }
    assertTrue(completed.get() > 0, "no chaos run completed");
    assertTrue(failures.isEmpty(), summary + "\n" + failures.size() + " failed run(s); first:\n"
        + (failures.isEmpty() ? "" : failures.get(0)));
  }

  private void runOne(long masterSeed, int run, Path base) throws IOException, InterruptedException {
    long runSeed = new Random(masterSeed + 0x9E3779B97F4A7C15L * (run + 1)).nextLong();
    Random rnd = new Random(runSeed);
    long n = 20L + rnd.nextInt(281);
    int k = 1 + rnd.nextInt((int) Math.min(25, n));
    String mode = rnd.nextBoolean() ? "records" : "explicit";
    long[] segmentChoices = {0, 4096, 4096, 8192};
    long segmentBytes = segmentChoices[rnd.nextInt(segmentChoices.length)];
    int bystanders = rnd.nextInt(3);
    int plannedCrashes = 1 + rnd.nextInt(3);
    Path dir = base.resolve("run-" + run);
    CrashScenario s = new CrashScenario(dir, n, k, mode, segmentBytes, bystanders);
    long checkpoints = (n + k - 1) / k + 1;

    List<String> problems = new ArrayList<>();
    int runErrors = 0;
    CrashChecker.Findings runFindings = new CrashChecker.Findings();
    ProtocolPoint previous = null;
    for (int c = 0; c < plannedCrashes && problems.isEmpty(); c++) {
      ProtocolPoint point = POINTS[rnd.nextInt(POINTS.length)];
      if (previous != null && leavesDecidedWork(previous) && rnd.nextInt(3) == 0) {
        point = ProtocolPoint.DURING_RECOVERY_COMMIT; // the recovery has commits to do: crash in them
      }
      previous = point;
      long maxHit = switch (point) {
        case DURING_RECOVERY_COMMIT -> 4;
        case DURING_COMPACTION -> 3;
        default -> Math.max(1, checkpoints);
      };
      long hit = 1 + (long) (rnd.nextDouble() * rnd.nextDouble() * maxHit); // biased to early hits
      CrashScenario.Child child = s.run(point + ":" + hit);
      children.incrementAndGet();
      if (child.crashed()) {
        if (!child.loggedCrashAt(point.name())) {
          problems.add("exit status 86 without the crash line of " + point + "\n" + child.describe());
          runErrors++;
        }
        crashes.incrementAndGet();
        synchronized (crashesByPoint) {
          crashesByPoint.merge(point, 1L, Long::sum);
        }
      } else if (child.done()) {
        notReached.incrementAndGet(); // the point was not reached this many times: a clean run
      } else {
        problems.add("child failed (neither a crash nor DONE)\n" + child.describe());
        runErrors++;
      }
      checkReport(child, runFindings, problems);
    }
    CrashScenario.Child clean = s.run(null);
    children.incrementAndGet();
    if (!clean.done()) {
      problems.add("clean child did not finish\n" + clean.describe());
      runErrors++;
    } else if (!clean.recovered()) {
      problems.add("clean child wrote no recovery report\n" + clean.describe());
      runErrors++;
    }
    checkReport(clean, runFindings, problems);
    if (clean.done()) {
      CrashChecker.Findings end = CrashChecker.checkFinal(s.dataDir(), n, "run " + run + " child #" + clean.number);
      runFindings.add(end);
      if (!end.ok()) {
        problems.add("after the clean finish: " + end);
      }
    }
    synchronized (findings) {
      findings.add(runFindings);
    }
    if (problems.isEmpty()) {
      deleteRecursively(dir);
    } else {
      errors.addAndGet(runErrors);
      StringBuilder all = new StringBuilder();
      for (CrashScenario.Child ch : s.children()) {
        all.append(ch.describe()).append('\n');
      }
      failures.add("run " + run + " (run seed " + runSeed + ") " + s + ":\n  " + String.join("\n  ", problems)
          + "\nchildren:\n" + all);
    }
  }

  /** Crash points after which the next start has decided checkpoints to commit. */
  private static boolean leavesDecidedWork(ProtocolPoint p) {
    return p == ProtocolPoint.AFTER_LOG_APPEND || p == ProtocolPoint.BETWEEN_COMMITS || p == ProtocolPoint.AFTER_COMMITS;
  }

  private void checkReport(CrashScenario.Child child, CrashChecker.Findings into, List<String> problems) throws IOException {
    if (!child.recovered()) {
      return;
    }
    recoveries.incrementAndGet();
    CrashChecker.Findings f = CrashChecker.checkRecovery(child.recoveryReport(), "child #" + child.number);
    into.add(f);
    if (!f.ok()) {
      problems.add("right after the recovery of child #" + child.number + ": " + f);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        Files.delete(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
