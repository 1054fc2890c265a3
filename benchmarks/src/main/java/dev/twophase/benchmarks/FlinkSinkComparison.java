package dev.twophase.benchmarks;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.flink.TwoPhaseSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * The same Flink job with Flink's own exactly-once {@code FileSink} (row format, a part per
 * checkpoint) and with {@code TwoPhaseSink} over the file participant, side by side in one JVM and
 * one local MiniCluster: same source, parallelism and checkpoint interval, runs interleaved (the
 * order alternates per round), records/s from Flink's net job run time. Every run's output is read
 * back and must hold every record once.
 *
 * <pre>
 * java -cp ... dev.twophase.benchmarks.FlinkSinkComparison [rounds=5] [records=2000000] [parallelism=2] [checkpointMillis=200]
 * </pre>
 * One line per run and a summary go to stdout and to the benchmark report ({@link BenchReport}),
 * each with the machine's load average at the end of the run.
 */
public final class FlinkSinkComparison {

  private FlinkSinkComparison() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    long records = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000;
    int parallelism = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    long checkpointMillis = args.length > 3 ? Long.parseLong(args[3]) : 200;
    Path base = Files.createDirectories(BenchDirs.base().resolve("flink-sinks"));
    String header = String.format(Locale.ROOT, "FlinkSinkComparison: %d rounds, %d records, parallelism %d, "
        + "checkpoints every %d ms, files under %s", rounds, records, parallelism, checkpointMillis, base);
    print(header);

    List<Double> flink = new ArrayList<>();
    List<Double> twophase = new ArrayList<>();
    run("warm-up", records / 4, parallelism, checkpointMillis, base, false);
    run("warm-up", records / 4, parallelism, checkpointMillis, base, true);
    for (int round = 0; round < rounds; round++) {
      boolean twophaseFirst = round % 2 == 1;
      for (int i = 0; i < 2; i++) {
        boolean ours = twophaseFirst == (i == 0);
        double rate = run("round " + round, records, parallelism, checkpointMillis, base, ours);
        (ours ? twophase : flink).add(rate);
      }
    }
    double f = median(flink);
    double t = median(twophase);
    print(String.format(Locale.ROOT, "median records/s: FileSink %.0f, TwoPhaseSink(file) %.0f, ratio %.3f "
        + "(per round: %s)", f, t, t / f, ratios(twophase, flink)));
  }

  private static double run(String label, long records, int parallelism, long checkpointMillis, Path base,
      boolean twophase) throws Exception {
    Path out = base.resolve(twophase ? "twophase" : "filesink");
    delete(out);
    Files.createDirectories(out);
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    env.enableCheckpointing(checkpointMillis);
    Sink<String> sink = twophase ? twoPhaseSink(out.toString()) : fileSink(out.toString());
    env.fromSequence(0, records - 1).map(String::valueOf).sinkTo(sink);
    JobExecutionResult result = env.execute(twophase ? "twophase" : "filesink");
    long millis = result.getNetRuntime();
    long lines = countCommittedLines(out, twophase);
    if (lines != records) {
      throw new IllegalStateException((twophase ? "TwoPhaseSink" : "FileSink") + " committed " + lines
          + " lines of " + records);
    }
    double rate = records * 1000.0 / millis;
    print(String.format(Locale.ROOT, "%s %-22s %,12.0f records/s (%d ms, %d parts)  load %s", label,
        twophase ? "TwoPhaseSink(file)" : "FileSink", rate, millis, parts(out), load()));
    return rate;
  }

  private static Sink<String> twoPhaseSink(String dir) {
    return TwoPhaseSink.<String>builder("bench")
        .participant("files", () -> FileParticipant.builder(Path.of(dir), RecordEncoders.lines()).build())
        .build();
  }

  private static Sink<String> fileSink(String dir) {
    return FileSink.forRowFormat(new org.apache.flink.core.fs.Path(dir), new SimpleStringEncoder<String>("UTF-8"))
        .withBucketAssigner(new BasePathBucketAssigner<>())
        .withRollingPolicy(OnCheckpointRollingPolicy.build())
        .build();
  }

  /** Lines in committed files: twophase's {@code part-*}, FileSink's files not hidden. */
  private static long countCommittedLines(Path dir, boolean twophase) throws IOException {
    long lines = 0;
    for (Path f : files(dir)) {
      String name = f.getFileName().toString();
      if (twophase ? name.startsWith("part-") : !name.startsWith(".")) {
        try (Stream<String> s = Files.lines(f, StandardCharsets.UTF_8)) {
          lines += s.count();
        }
      }
    }
    return lines;
  }

  private static long parts(Path dir) throws IOException {
    return files(dir).stream().filter(f -> !f.getFileName().toString().startsWith(".")).count();
  }

  private static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  private static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
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

  private static String ratios(List<Double> ours, List<Double> theirs) {
    List<String> r = new ArrayList<>();
    for (int i = 0; i < Math.min(ours.size(), theirs.size()); i++) {
      r.add(String.format(Locale.ROOT, "%.3f", ours.get(i) / theirs.get(i)));
    }
    return String.join(" ", r);
  }

  private static void print(String line) {
    System.out.println(line);
    BenchReport.line("%s", line);
  }
}
