package dev.twophase.benchmarks.kafka;

import com.sun.management.OperatingSystemMXBean;
import dev.twophase.CoordinatorConfig;
import dev.twophase.Output;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.KafkaStateLog;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.kafka.group.GroupRunner;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A Kafka-to-Kafka job (each input record copied to an output topic, exactly once) as {@link
 * GroupRunner} workers and as a Kafka Streams application with {@code exactly_once_v2}, with 1, 2
 * and 3 workers (Streams: instances of one stream thread each) in this JVM, against the in-JVM
 * broker, at the same commit interval (the runner's checkpoint interval, Streams' {@code
 * commit.interval.ms}).
 *
 * <p>The input, 6 partitions of 100-byte records, is written once; every run reads all of it with a
 * group (application id) of its own into an output topic of its own. A {@code read_committed}
 * consumer counts the output; a run's rate is taken from its first visible commit (the group formed
 * and runs) to its last record, and so is the process CPU it used: the workers', the broker's (which serves more
 * transactions for twophase: one per task and checkpoint, and one log append each) and the counting
 * consumer's. The variants take turns in a rotating order, round by round. Each
 * round prints every variant's records/s and CPU microseconds per record; the end prints the
 * medians and the ratios {@code twophase / streams} per worker count.
 *
 * <p>twophase: a task per input partition, a Kafka participant per task with KIP-447 input
 * offsets, on a {@link KafkaStateLog} (take-over on), {@code maxPendingCheckpoints(2, BLOCK)}.
 * Speed is measured here, never asserted in tests. Arguments: {@code [rounds] [records]
 * [commit interval ms]}; {@code -Dbench.variants=twophase-2,streams-2} runs only those (of
 * {@code twophase-1..3} and {@code streams-1..3}); {@code -Dbench.heartbeatMs=n} sets both kinds
 * of workers' {@code heartbeat.interval.ms}.
 */
public final class GroupScalingBenchmark {

  private static final int PARTITIONS = 6;
  /** {@code -Dbench.heartbeatMs}: both kinds of workers' {@code heartbeat.interval.ms}, or null for Kafka's default. */
  private static final Long HEARTBEAT_MS = Long.getLong("bench.heartbeatMs");
  private static final byte[] VALUE = new byte[100];
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private GroupScalingBenchmark() {}

  /** One run's figures. */
  record Result(double recordsPerSecond, double cpuMicrosPerRecord) {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int records = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    int commitMs = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    Arrays.fill(VALUE, (byte) 'x');
    Path dir = Files.createDirectories(Path.of("target", "group-bench"));
    try (KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("broker-" + UUID.randomUUID().toString()
        .substring(0, 8)), 2, Map.of())) {
      String bootstrap = broker.bootstrapServers();
      String input = "group-bench-in";
      createTopic(bootstrap, input, PARTITIONS);
      fill(bootstrap, input, records);
      List<String> variants = List.of(System.getProperty("bench.variants",
          "twophase-1,streams-1,twophase-2,streams-2,twophase-3,streams-3").split(","));
      Map<String, List<Result>> results = new LinkedHashMap<>();
      variants.forEach(v -> results.put(v, new ArrayList<>()));
      for (String v : variants) {
        if (v.endsWith("-1")) {
          run(bootstrap, dir, input, v, records, commitMs); // warm-up, not counted
        }
      }
      for (int round = 0; round < rounds; round++) {
        List<String> order = new ArrayList<>(variants);
        Collections.rotate(order, round);
        StringBuilder line = new StringBuilder("round " + (round + 1) + ":");
        for (String v : order) {
          Result r = run(bootstrap, dir, input, v, records, commitMs);
          results.get(v).add(r);
          line.append(String.format(Locale.ROOT, "  %s %.0f rec/s %.1f us/rec", v, r.recordsPerSecond(),
              r.cpuMicrosPerRecord()));
        }
        System.out.println(line);
      }
      System.out.printf(Locale.ROOT, "%d records, 6 partitions, commit interval %d ms, %d rounds (medians)%n",
          records, commitMs, rounds);
      for (int workers = 1; workers <= 3; workers++) {
        if (!results.containsKey("twophase-" + workers) || !results.containsKey("streams-" + workers)) {
          continue;
        }
        Result t = median(results.get("twophase-" + workers));
        Result s = median(results.get("streams-" + workers));
        System.out.printf(Locale.ROOT, "%d worker(s): twophase %.0f rec/s %.1f us/rec, streams %.0f rec/s %.1f us/rec;"
                + " rate twophase/streams %.2f, CPU per record twophase/streams %.2f%n", workers,
            t.recordsPerSecond(), t.cpuMicrosPerRecord(), s.recordsPerSecond(), s.cpuMicrosPerRecord(),
            t.recordsPerSecond() / s.recordsPerSecond(), t.cpuMicrosPerRecord() / s.cpuMicrosPerRecord());
      }
    }
  }

  private static Result median(List<Result> rs) {
    List<Double> rate = rs.stream().map(Result::recordsPerSecond).sorted().toList();
    List<Double> cpu = rs.stream().map(Result::cpuMicrosPerRecord).sorted().toList();
    return new Result(rate.get(rate.size() / 2), cpu.get(cpu.size() / 2));
  }

  private static Result run(String bootstrap, Path dir, String input, String variant, int records, int commitMs)
      throws Exception {
    String id = variant + "-" + UUID.randomUUID().toString().substring(0, 8);
    String output = "out-" + id;
    createTopic(bootstrap, output, PARTITIONS);
    int workers = Integer.parseInt(variant.substring(variant.indexOf('-') + 1));
    List<AutoCloseable> running = new ArrayList<>();
    try (OutputCounter counter = new OutputCounter(bootstrap, output, records)) {
      if (variant.startsWith("twophase")) {
        for (int w = 0; w < workers; w++) {
          running.add(twophaseWorker(bootstrap, input, id, w, commitMs,
              RecordMapper.toTopic(output, new ByteArraySerializer())));
        }
      } else {
        for (int w = 0; w < workers; w++) {
          running.add(streamsWorker(bootstrap, dir, input, output, id, w, commitMs, null));
        }
      }
      return counter.await(Duration.ofMinutes(10));
    } finally {
      for (AutoCloseable c : running) {
        c.close();
      }
    }
  }

  /**
   * Starts a {@link GroupRunner} worker of group {@code id} that copies {@code input} to what
   * {@code records} makes of each value; closing it stops the worker and closes its log.
   */
  static AutoCloseable twophaseWorker(String bootstrap, String input, String id, int w, int commitMs,
      RecordMapper<byte[]> records) {
    KafkaStateLog log = KafkaStateLog.builder(Map.of("bootstrap.servers", bootstrap), "log-" + id)
        .ownerName("worker-" + w)
        .takeOver(true)
        .createTopic(1, (short) 1)
        .build();
    Map<String, Object> consumer = new HashMap<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, id, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"));
    if (HEARTBEAT_MS != null) {
      consumer.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_MS.intValue());
    }
    GroupRunner<byte[], byte[]> runner = GroupRunner.builder(consumer, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())
        .topics(input)
        .taskThreads(Integer.getInteger("bench.taskThreads", 4))
        .stateLog(log)
        .coordinatorConfig(CoordinatorConfig.custom()
            .checkpointInterval(Duration.ofMillis(commitMs))
            .maxPendingCheckpoints(Integer.getInteger("bench.maxPending", 2), CoordinatorConfig.WhenPendingFull.BLOCK)
            .build())
        .tasks(task -> {
          Output<byte[]> out = task.output("out", KafkaParticipant.<byte[]>builder(Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 5))
              .records(records)
              .transactionalIdPrefix(id)
              .consumedOffsets(task.consumedOffsets())
              .build());
          return record -> out.write(record.value());
        })
        .build();
    CompletableFuture<Void> thread = CompletableFuture.runAsync(runner::run);
    return () -> {
      runner.close();
      thread.get(2, TimeUnit.MINUTES);
      log.close();
    };
  }

  /**
   * Starts a Kafka Streams instance (one stream thread) of application {@code id} that copies
   * {@code input} to {@code output}: each value as it is if {@code values} is null, else what it
   * makes of it, into the partition that its value's first byte names.
   */
  static AutoCloseable streamsWorker(String bootstrap, Path dir, String input, String output, String id,
      int w, int commitMs, UnaryOperator<byte[]> values) throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, id);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitMs);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(dir.resolve("streams-" + id + "-" + w)).toString());
    p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    if (HEARTBEAT_MS != null) {
      p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), HEARTBEAT_MS.intValue());
    }
    StreamsBuilder builder = new StreamsBuilder();
    KStream<byte[], byte[]> in = builder.stream(input, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()));
    if (values == null) {
      in.to(output, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
    } else {
      in.mapValues(values::apply).to(output, Produced.with(Serdes.ByteArray(), Serdes.ByteArray())
          .withStreamPartitioner((topic, key, value, n) -> Optional.of(Set.of((int) value[0]))));
    }
    KafkaStreams streams = new KafkaStreams(builder.build(), p);
    streams.start();
    return () -> streams.close(Duration.ofMinutes(2));
  }

  /**
   * Counts the output's committed records; the rate and CPU are taken from the first visible
   * commit (the group formed and runs) to the last record.
   */
  private static final class OutputCounter implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final int expected;

    OutputCounter(String bootstrap, String topic, int expected) {
      this.consumer = readCommitted(bootstrap, topic, PARTITIONS,
          Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000));
      this.expected = expected;
    }

    Result await(Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      long seen = 0;
      long startNanos = -1;
      long startCpu = 0;
      long startSeen = 0;
      while (seen < expected) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("only " + seen + " of " + expected + " records arrived in " + timeout);
        }
        ConsumerRecords<byte[], byte[]> got = consumer.poll(Duration.ofMillis(20));
        if (startNanos < 0 && !got.isEmpty()) { // the first commit is visible: the group formed and runs
          startNanos = System.nanoTime();
          startCpu = OS.getProcessCpuTime();
          startSeen = got.count();
        }
        seen += got.count();
      }
      if (seen > expected) {
        throw new IllegalStateException(seen + " records arrived, " + expected + " expected: a duplicate");
      }
      double seconds = (System.nanoTime() - startNanos) / 1e9;
      long counted = seen - startSeen;
      return new Result(counted / seconds, (OS.getProcessCpuTime() - startCpu) / 1e3 / counted);
    }

    @Override
    public void close() {
      consumer.close();
    }
  }

  /**
   * A {@code read_committed} consumer of partitions {@code 0 .. partitions - 1} of {@code topic},
   * from their beginning, with {@code settings} besides.
   */
  static KafkaConsumer<byte[], byte[]> readCommitted(String bootstrap, String topic, int partitions,
      Map<String, Object> settings) {
    Map<String, Object> config = new HashMap<>(settings);
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    List<TopicPartition> all = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      all.add(new TopicPartition(topic, i));
    }
    consumer.assign(all);
    consumer.seekToBeginning(all);
    return consumer;
  }

  static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
    }
  }

  private static void fill(String bootstrap, String topic, int records) {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrap, ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < records; i++) {
        p.send(new ProducerRecord<>(topic, i % PARTITIONS, null, VALUE));
      }
      p.flush();
    }
  }
}
