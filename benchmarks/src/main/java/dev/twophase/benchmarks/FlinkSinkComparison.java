package dev.twophase.benchmarks;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.flink.TwoPhaseSink;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.time.Duration;
import java.util.Map;
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
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * The same Flink job with one of Flink's own exactly-once sinks and with {@code TwoPhaseSink} over
 * the matching participant, side by side in one JVM and one local MiniCluster: same source,
 * parallelism and checkpoint interval, runs interleaved (the order alternates per round),
 * records/s from Flink's net job run time. Every run's output is read back and must hold every
 * record once.
 * <ul>
 *   <li>{@code files}: {@code FileSink} (row format, a part per checkpoint) against the file
 *       participant;
 *   <li>{@code kafka}: {@code KafkaSink} (exactly once) against the Kafka participant, on the Kafka
 *       participant's in-JVM test broker (one KRaft node, transaction.version 2), a new topic with
 *       one partition per subtask for every run, the same producer settings for both.
 * </ul>
 *
 * <pre>
 * java -cp ... dev.twophase.benchmarks.FlinkSinkComparison [rounds=5] [records=2000000] [parallelism=2] [checkpointMillis=200] [files|kafka]
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
    String kind = args.length > 4 ? args[4] : "files";
    Path base = Files.createDirectories(BenchDirs.base().resolve("flink-sinks"));
    String header = String.format(Locale.ROOT, "FlinkSinkComparison %s: %d rounds, %d records, parallelism %d, "
        + "checkpoints every %d ms, files under %s", kind, rounds, records, parallelism, checkpointMillis, base);
    print(header);
    if (kind.equals("kafka")) {
      try (KafkaTestBroker broker = KafkaTestBroker.start(base.resolve("kafka-broker"), 2, Map.of())) {
        compare(new KafkaRuns(broker, parallelism), rounds, records, parallelism, checkpointMillis);
      }
    } else {
      compare(new FileRuns(base), rounds, records, parallelism, checkpointMillis);
    }
  }

  /** One kind of comparison: Flink's sink and ours, built afresh per run, and the read-back. */
  private interface Runs {
    String flinkName();

    String oursName();

    /** A sink for one run, writing where {@link #committed} reads. */
    Sink<String> sink(boolean ours, int run) throws IOException;

    /** The records the run's sink committed, counted by reading them back. */
    long committed(boolean ours, int run) throws IOException;

    /** Where the run wrote, for the report line. */
    String where(boolean ours, int run) throws IOException;
  }

  private static void compare(Runs runs, int rounds, long records, int parallelism, long checkpointMillis)
      throws Exception {
    List<Double> flink = new ArrayList<>();
    List<Double> twophase = new ArrayList<>();
    int run = 0;
    run(runs, "warm-up", run++, records / 4, parallelism, checkpointMillis, false);
    run(runs, "warm-up", run++, records / 4, parallelism, checkpointMillis, true);
    for (int round = 0; round < rounds; round++) {
      boolean twophaseFirst = round % 2 == 1;
      for (int i = 0; i < 2; i++) {
        boolean ours = twophaseFirst == (i == 0);
        double rate = run(runs, "round " + round, run++, records, parallelism, checkpointMillis, ours);
        (ours ? twophase : flink).add(rate);
      }
    }
    double f = median(flink);
    double t = median(twophase);
    print(String.format(Locale.ROOT, "median records/s: %s %.0f, %s %.0f, ratio %.3f (per round: %s)",
        runs.flinkName(), f, runs.oursName(), t, t / f, ratios(twophase, flink)));
  }

  private static double run(Runs runs, String label, int run, long records, int parallelism, long checkpointMillis,
      boolean ours) throws Exception {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    env.enableCheckpointing(checkpointMillis);
    env.fromSequence(0, records - 1).map(String::valueOf).sinkTo(runs.sink(ours, run));
    JobExecutionResult result = env.execute(ours ? runs.oursName() : runs.flinkName());
    long millis = result.getNetRuntime();
    long committed = runs.committed(ours, run);
    if (committed != records) {
      throw new IllegalStateException((ours ? runs.oursName() : runs.flinkName()) + " committed " + committed
          + " records of " + records);
    }
    double rate = records * 1000.0 / millis;
    print(String.format(Locale.ROOT, "%s %-22s %,12.0f records/s (%d ms, %s)  load %s", label,
        ours ? runs.oursName() : runs.flinkName(), rate, millis, runs.where(ours, run), load()));
    return rate;
  }

  /** FileSink against the file participant. */
  private static final class FileRuns implements Runs {
    private final Path base;

    FileRuns(Path base) {
      this.base = base;
    }

    @Override
    public String flinkName() {
      return "FileSink";
    }

    @Override
    public String oursName() {
      return "TwoPhaseSink(file)";
    }

    private Path out(boolean ours) {
      return base.resolve(ours ? "twophase" : "filesink");
    }

    @Override
    public Sink<String> sink(boolean ours, int run) throws IOException {
      Path out = out(ours);
      delete(out);
      Files.createDirectories(out);
      String dir = out.toString();
      if (ours) {
        return TwoPhaseSink.<String>builder("bench")
            .participant("files", () -> FileParticipant.builder(Path.of(dir), RecordEncoders.lines()).build())
            .build();
      }
      return FileSink.forRowFormat(new org.apache.flink.core.fs.Path(dir), new SimpleStringEncoder<String>("UTF-8"))
          .withBucketAssigner(new BasePathBucketAssigner<>())
          .withRollingPolicy(OnCheckpointRollingPolicy.build())
          .build();
    }

    @Override
    public long committed(boolean ours, int run) throws IOException {
      return countCommittedLines(out(ours), ours);
    }

    @Override
    public String where(boolean ours, int run) throws IOException {
      return parts(out(ours)) + " parts";
    }
  }

  /** KafkaSink against the Kafka participant, a topic per run. */
  private static final class KafkaRuns implements Runs {
    private final KafkaTestBroker broker;
    private final int partitions;

    KafkaRuns(KafkaTestBroker broker, int partitions) {
      this.broker = broker;
      this.partitions = partitions;
    }

    @Override
    public String flinkName() {
      return "KafkaSink";
    }

    @Override
    public String oursName() {
      return "TwoPhaseSink(kafka)";
    }

    private static String topic(int run) {
      return "bench-" + run;
    }

    @Override
    public Sink<String> sink(boolean ours, int run) {
      String topic = topic(run);
      broker.createTopic(topic, partitions);
      String servers = broker.bootstrapServers();
      if (ours) {
        return TwoPhaseSink.<String>builder("bench" + run)
            .participant("kafka", () -> KafkaParticipant.<String>builder(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                    ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS))
                .records(dev.twophase.kafka.RecordMapper.toTopic(topic, new StringSerializer()))
                .transactionalIdPrefix("twophase-" + run)
                .build())
            .build();
      }
      return KafkaSink.<String>builder()
          .setBootstrapServers(servers)
          .setRecordSerializer(KafkaRecordSerializationSchema.builder()
              .setTopic(topic)
              .setValueSerializationSchema(new SimpleStringSchema())
              .build())
          .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
          .setTransactionalIdPrefix("kafkasink-" + run)
          .setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Integer.toString(TRANSACTION_TIMEOUT_MS))
          .build();
    }

    @Override
    public long committed(boolean ours, int run) {
      return ReadCommitted.records(broker.bootstrapServers(), topic(run), Duration.ofMinutes(2)).size();
    }

    @Override
    public String where(boolean ours, int run) {
      return "topic " + topic(run);
    }
  }

  private static final int TRANSACTION_TIMEOUT_MS = 120_000;

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
