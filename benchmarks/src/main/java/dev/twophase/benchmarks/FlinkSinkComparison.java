package dev.twophase.benchmarks;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The same Flink job with one of Flink's own exactly-once sinks and with {@code TwoPhaseSink} over
 * the matching participant, side by side: same source, parallelism and checkpoint interval, each
 * run on a fresh local MiniCluster, records/s from Flink's net job run time. Every run's output is
 * read back and must hold every record once.
 * <ul>
 *   <li>{@code -Dbench.forks=n}: n pairs of JVMs, one sink per JVM, run one after another, the sink
 *       that goes first alternating per pair. Each JVM runs its sink for
 *       {@code -Dbench.warmupMillis} (default 60,000) of full-size runs, then {@code rounds} times;
 *       a pair's ratio is the ratio of its two JVMs' median rates.
 *   <li>Otherwise both sinks run in this JVM, interleaved (the order alternates per round), after
 *       {@code -Dbench.warmupMillis} (default 90,000) of full-size runs of both.
 * </ul>
 * Separate JVMs are the fairer set-up: the two sinks share most of their hot code (Kafka's
 * producer, Flink's runtime), in one JVM the JIT compiles it from both sinks' profiles, and the
 * rates kept rising for ten runs or more.
 * <ul>
 *   <li>{@code files}: {@code FileSink} (row format, a part per checkpoint) against the file
 *       participant;
 *   <li>{@code kafka}: {@code KafkaSink} (exactly once) against the Kafka participant, on the Kafka
 *       participant's in-JVM test broker (one KRaft node, transaction.version 2), a new topic with
 *       one partition per subtask for every run, the same producer settings for both.
 * </ul>
 *
 * <pre>
 * java [-Dbench.forks=4] -cp ... dev.twophase.benchmarks.FlinkSinkComparison [rounds=5] [records=6000000] [parallelism=2] [checkpointMillis=200] [files|kafka]
 * </pre>
 * One line per run and a summary go to stdout and to the benchmark report ({@link BenchReport}),
 * each run with the process's CPU time per record during the job (the broker's included: it runs
 * in the same JVM) and the machine's load average at the end of the run. The summary gives the
 * median of the per-round (or per-pair) ratios and the ratio of the median rates.
 */
public final class FlinkSinkComparison {

  /** Set on a forked JVM: the one sink it runs, {@code flink} or {@code twophase}. */
  private static final String ONLY = System.getProperty("bench.only");
  private static final int FORKS = Integer.getInteger("bench.forks", 0);
  private static final long WARMUP_MILLIS = Long.getLong("bench.warmupMillis", ONLY != null ? 60_000 : 90_000);
  private static final String RESULT = "RESULT records/s ";

  private FlinkSinkComparison() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    long records = args.length > 1 ? Long.parseLong(args[1]) : 6_000_000;
    int parallelism = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    long checkpointMillis = args.length > 3 ? Long.parseLong(args[3]) : 200;
    String kind = args.length > 4 ? args[4] : "files";
    Path base = Files.createDirectories(BenchDirs.base().resolve("flink-sinks"));
    if (ONLY == null) {
      print(String.format(Locale.ROOT, "FlinkSinkComparison %s: %d rounds, %d records, parallelism %d, checkpoints "
          + "every %d ms, %s, files under %s", kind, rounds, records, parallelism, checkpointMillis,
          FORKS > 0 ? FORKS + " pairs of JVMs" : "one JVM", base));
    }
    if (FORKS > 0 && ONLY == null) {
      forked(args, rounds, kind.equals("kafka") ? KafkaSinkRuns.NAMES : FileSinkRuns.NAMES);
      return;
    }
    if (kind.equals("kafka")) {
      try (KafkaTestBroker broker = KafkaTestBroker.start(base.resolve("kafka-broker"), 2, Map.of())) {
        compare(new KafkaSinkRuns(broker, parallelism), rounds, records, parallelism, checkpointMillis);
      }
    } else {
      compare(new FileSinkRuns(base), rounds, records, parallelism, checkpointMillis);
    }
  }

  private static void compare(FlinkSinkRuns runs, int rounds, long records, int parallelism, long checkpointMillis)
      throws Exception {
    if (ONLY != null) {
      alone(runs, ONLY.equals("twophase"), rounds, records, parallelism, checkpointMillis);
      return;
    }
    List<Double> flink = new ArrayList<>();
    List<Double> twophase = new ArrayList<>();
    int run = 0;
    // Both sinks share the JVM, the MiniCluster and the broker: warm them all up, alternating, at
    // full size, until the JIT has settled (rates still rose by a third over the first ten runs).
    long warmupEnds = System.nanoTime() + WARMUP_MILLIS * 1_000_000;
    int warmup = 0;
    do {
      for (int i = 0; i < 2; i++) {
        run(runs, "warm-up " + warmup, run++, records, parallelism, checkpointMillis, (warmup + i) % 2 == 1);
      }
      warmup++;
    } while (System.nanoTime() < warmupEnds);
    for (int round = 0; round < rounds; round++) {
      boolean twophaseFirst = round % 2 == 1;
      for (int i = 0; i < 2; i++) {
        boolean ours = twophaseFirst == (i == 0);
        double rate = run(runs, "round " + round, run++, records, parallelism, checkpointMillis, ours);
        (ours ? twophase : flink).add(rate);
      }
    }
    summary(runs.names(), flink, twophase, ratios(twophase, flink), "round");
  }

  /** A forked JVM's work: one sink, warmed up, then {@code rounds} runs, each rate on a result line. */
  private static void alone(FlinkSinkRuns runs, boolean ours, int rounds, long records, int parallelism,
      long checkpointMillis) throws Exception {
    int run = 0;
    long warmupEnds = System.nanoTime() + WARMUP_MILLIS * 1_000_000;
    do {
      run(runs, "warm-up", run++, records, parallelism, checkpointMillis, ours);
    } while (System.nanoTime() < warmupEnds);
    for (int round = 0; round < rounds; round++) {
      double rate = run(runs, "run " + round, run++, records, parallelism, checkpointMillis, ours);
      System.out.println(RESULT + rate);
    }
  }

  /**
   * {@code -Dbench.forks=n}: n pairs of JVMs, one sink each (its own JIT, MiniCluster and broker),
   * the pairs run one after the other, the sink that goes first alternating per pair; each JVM
   * warms its sink up, then runs it {@code rounds} times. A pair's ratio is the ratio of its two
   * JVMs' median rates.
   */
  private static void forked(String[] args, int rounds, String[] names) throws Exception {
    List<Double> flink = new ArrayList<>();
    List<Double> twophase = new ArrayList<>();
    List<Double> perPair = new ArrayList<>();
    for (int pair = 0; pair < FORKS; pair++) {
      boolean twophaseFirst = pair % 2 == 1;
      double[] medians = new double[2];
      for (int i = 0; i < 2; i++) {
        boolean ours = twophaseFirst == (i == 0);
        List<Double> rates = fork(args, ours, "pair " + pair + " " + names[ours ? 1 : 0]);
        if (rates.size() != rounds) {
          throw new IllegalStateException("a forked JVM reported " + rates.size() + " runs of " + rounds);
        }
        (ours ? twophase : flink).addAll(rates);
        medians[ours ? 1 : 0] = median(rates);
      }
      perPair.add(medians[1] / medians[0]);
    }
    summary(names, flink, twophase, perPair, "pair");
  }

  /** Runs one sink in a new JVM with this JVM's options and class path; returns its measured rates. */
  private static List<Double> fork(String[] args, boolean ours, String label) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!option.startsWith("-Dbench.forks=")) {
        command.add(option);
      }
    }
    command.add("-Dbench.only=" + (ours ? "twophase" : "flink"));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(FlinkSinkComparison.class.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<Double> rates = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith(RESULT)) {
          rates.add(Double.parseDouble(line.substring(RESULT.length())));
        } else if (line.contains("records/s")) {
          print(label + ": " + line);
        } else {
          System.out.println(line);
        }
      }
    } finally {
      process.destroy();
    }
    int exit = process.waitFor();
    if (exit != 0) {
      throw new IllegalStateException("the forked JVM of " + label + " exited with " + exit);
    }
    return rates;
  }

  private static void summary(String[] names, List<Double> flink, List<Double> twophase, List<Double> ratios,
      String unit) {
    double f = median(flink);
    double t = median(twophase);
    print(String.format(Locale.ROOT, "median records/s: %s %.0f, %s %.0f; %s / %s: median of the per-%s ratios %.3f "
        + "(per %s: %s), ratio of the medians %.3f", names[0], f, names[1], t, names[1], names[0], unit,
        median(ratios), unit, format(ratios), t / f));
  }

  private static List<Double> ratios(List<Double> ours, List<Double> theirs) {
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < ours.size(); i++) {
      r.add(ours.get(i) / theirs.get(i));
    }
    return r;
  }

  private static double run(FlinkSinkRuns runs, String label, int run, long records, int parallelism,
      long checkpointMillis, boolean ours) throws Exception {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    env.enableCheckpointing(checkpointMillis);
    env.fromSequence(0, records - 1).map(String::valueOf).sinkTo(runs.sink(ours, run));
    long cpuBefore = processCpuNanos();
    JobExecutionResult result = env.execute(runs.name(ours));
    long cpu = processCpuNanos() - cpuBefore;
    long millis = result.getNetRuntime();
    long committed = runs.committed(ours, run);
    if (committed != records) {
      throw new IllegalStateException(runs.name(ours) + " committed " + committed
          + " records of " + records);
    }
    double rate = records * 1000.0 / millis;
    print(String.format(Locale.ROOT, "%s %-22s %,12.0f records/s (%d ms, %s)  %.2f µs of process CPU per record"
        + "  load %s", label, runs.name(ours), rate, millis, runs.where(ours, run),
        cpu / 1e3 / records, load()));
    return rate;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static String load() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim().split(" ")[0];
    } catch (IOException e) {
      return "?";
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String format(List<Double> ratios) {
    List<String> r = new ArrayList<>();
    for (double x : ratios) {
      r.add(String.format(Locale.ROOT, "%.3f", x));
    }
    return String.join(" ", r);
  }

  /** To stdout and the report; a forked JVM's lines reach the report through the JVM that forked it. */
  private static void print(String line) {
    System.out.println(line);
    if (ONLY == null) {
      BenchReport.line("%s", line);
    }
  }
}
