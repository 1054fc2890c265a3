package dev.twophase.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.CoordinatorListener;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.KafkaStateLog;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GroupRunner} against the in-JVM broker, with runners as threads of this JVM: tasks
 * spread over the group's members and move when one joins or leaves, and every input record is in
 * the output exactly once; bad settings and a failing factory are refused with a clear error.
 * (Worker JVMs killed and stopped: {@code GroupWorkersIT} in the demo module.)
 */
class GroupRunnerIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private static KafkaTestBroker broker;

  @TempDir Path tmp;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  private static String unique() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  private Map<String, Object> consumerConfig(String group) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
    return c;
  }

  private KafkaStateLog sharedLog(String topic, String owner) {
    return KafkaStateLog.builder(Map.of("bootstrap.servers", broker.bootstrapServers()), topic)
        .ownerName(owner)
        .takeOver(true)
        .createTopic(1, (short) 1)
        .build();
  }

  /** Copies each input value to the output topic, through a Kafka participant of its own per task. */
  private TaskFactory<String, String> copyTo(String output) {
    return setup -> {
      KafkaParticipant<String> out = KafkaParticipant.<String>builder(Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))
          .records(RecordMapper.toTopic(output, new StringSerializer()))
          .transactionalIdPrefix("runner")
          .consumedOffsets(setup.consumedOffsets())
          .build();
      Output<String> o = setup.output("out", out);
      return record -> o.write(record.value());
    };
  }

  private GroupRunner<String, String> runner(String group, KafkaStateLog log, String input, String output) {
    return GroupRunner.builder(consumerConfig(group), new StringDeserializer(), new StringDeserializer())
        .topics(input)
        .stateLog(log)
        .tasks(copyTo(output))
        .coordinatorConfig(dev.twophase.CoordinatorConfig.custom()
            .checkpointInterval(Duration.ofMillis(200))
            .maxPendingCheckpoints(4, dev.twophase.CoordinatorConfig.WhenPendingFull.BLOCK)
            .build())
        .build();
  }

  private static void produce(String topic, int from, int to) throws Exception {
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
      for (int i = from; i < to; i++) {
        p.send(new ProducerRecord<>(topic, Integer.toString(i), "r" + i));
      }
      p.flush();
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + WAIT + ": " + what);
      }
      Thread.sleep(50);
    }
  }

  private static CompletableFuture<Void> start(GroupRunner<String, String> runner) {
    return CompletableFuture.runAsync(runner::run);
  }

  @Test
  void tasksSpreadOverTheMembersAndMoveWithoutLosingOrRepeatingARecord() throws Exception {
    String id = unique();
    String input = "runner-in-" + id;
    String output = "runner-out-" + id;
    broker.createTopic(input, 4);
    broker.createTopic(output, 1);
    produce(input, 0, 400);
    try (KafkaStateLog logA = sharedLog("runner-log-" + id, "A");
        KafkaStateLog logB = sharedLog("runner-log-" + id, "B")) {
      GroupRunner<String, String> a = runner("runner-" + id, logA, input, output);
      CompletableFuture<Void> runA = start(a);
      await(() -> a.taskIds().size() == 4, "A runs the 4 tasks alone");

      GroupRunner<String, String> b = runner("runner-" + id, logB, input, output);
      CompletableFuture<Void> runB = start(b);
      await(() -> b.taskIds().size() == 2 && a.taskIds().size() == 2, "the tasks spread over A and B: A "
          + a.taskIds() + ", B " + b.taskIds());
      Set<String> all = new HashSet<>(a.taskIds());
      all.addAll(b.taskIds());
      assertEquals(Set.of(input + "-0", input + "-1", input + "-2", input + "-3"), all);
      produce(input, 400, 800);

      a.close(); // A hands its tasks over and leaves
      runA.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      await(() -> b.taskIds().size() == 4, "B runs the 4 tasks after A left");
      produce(input, 800, 1200);
      await(() -> committedCount(output) >= 1200, "every record reaches the output");
      b.close();
      runB.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    assertExactlyOnce(output, 1200);
  }

  /** The output holds {@code count} distinct records, and no more: every input record once. */
  private static void assertExactlyOnce(String output, int count) {
    List<String> values = ReadCommitted.values(broker.bootstrapServers(), output, WAIT);
    assertEquals(count, values.size(), "every input record once");
    assertEquals(count, new HashSet<>(values).size(), "none twice");
  }

  private static int committedCount(String topic) {
    try {
      return ReadCommitted.visibleNow(broker.bootstrapServers(), topic, Duration.ofSeconds(5)).size();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private KafkaParticipant<String> kafkaOut(String output, TaskSetup setup) {
    return KafkaParticipant.<String>builder(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))
        .records(RecordMapper.toTopic(output, new StringSerializer()))
        .transactionalIdPrefix("runner")
        .consumedOffsets(setup.consumedOffsets())
        .build();
  }

  @Test
  void newPartitionsOfTheInputBecomeNewTasks() throws Exception {
    String id = unique();
    String input = "runner-grow-" + id;
    String output = "runner-grow-out-" + id;
    broker.createTopic(input, 2);
    broker.createTopic(output, 1);
    produce(input, 0, 100);
    Map<String, Object> config = consumerConfig("grow-" + id);
    config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 500); // sees the new partitions soon
    Set<String> committedBy = ConcurrentHashMap.newKeySet();
    try (KafkaStateLog log = sharedLog("runner-log-" + id, "A")) {
      GroupRunner<String, String> runner = GroupRunner.builder(config, new StringDeserializer(), new StringDeserializer())
          .topics(input).stateLog(log).tasks(copyTo(output))
          .listener(new CoordinatorListener() {
            @Override
            public void onCheckpointCommitted(String coordinatorId, long checkpointId, Duration sinceDecided) {
              committedBy.add(coordinatorId);
            }
          })
          .build();
      CompletableFuture<Void> running = start(runner);
      await(() -> runner.taskIds().size() == 2, "2 tasks");
      broker.admin().createPartitions(Map.of(input, NewPartitions.increaseTo(4))).all().get(30, TimeUnit.SECONDS);
      await(() -> runner.taskIds().equals(Set.of(input + "-0", input + "-1", input + "-2", input + "-3")),
          "the new partitions are tasks: " + runner.taskIds());
      produce(input, 100, 300);
      await(() -> committedCount(output) >= 300, "every record reaches the output");
      runner.close();
      running.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    assertExactlyOnce(output, 300);
    String group = "grow-" + id;
    assertEquals(Set.of(group + "/" + input + "-0", group + "/" + input + "-1", group + "/" + input + "-2",
        group + "/" + input + "-3"), committedBy, "the runner's listener hears of every task's commits");
  }

  @Test
  void aStaticMemberRestartedWithinItsSessionGetsItsTasksBack() throws Exception {
    String id = unique();
    String input = "runner-static-" + id;
    String output = "runner-static-out-" + id;
    broker.createTopic(input, 2);
    broker.createTopic(output, 1);
    produce(input, 0, 100);
    Map<String, Object> config = consumerConfig("static-" + id);
    config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "worker-1");
    config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000);
    try (KafkaStateLog log = sharedLog("runner-log-" + id, "worker-1")) {
      for (int run = 0; run < 2; run++) {
        GroupRunner<String, String> runner = GroupRunner.builder(config, new StringDeserializer(),
                new StringDeserializer())
            .topics(input).stateLog(log).tasks(copyTo(output)).leaveGroupOnClose(false).build();
        CompletableFuture<Void> running = start(runner);
        int expected = 100 * (run + 1);
        await(() -> committedCount(output) >= expected, "run " + run + " writes its records");
        produce(input, expected, expected + 100);
        await(() -> committedCount(output) >= expected + 100, "run " + run + " writes the records produced meanwhile");
        runner.close(); // stays in the group: the restart within the session gets the same tasks
        running.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    }
    assertExactlyOnce(output, 300);
  }

  /**
   * Commits slower than max.poll.interval.ms: the task's partition is paused while its checkpoints
   * await their commits, and the runner polls on, so the group never rebalances (the task is never
   * handed over, lost or fenced) and every record arrives once.
   */
  @Test
  void slowCommitsNeverHoldUpPolling() throws Exception {
    String id = unique();
    String input = "runner-slow-" + id;
    String output = "runner-slow-out-" + id;
    broker.createTopic(input, 1);
    broker.createTopic(output, 1);
    produce(input, 0, 200);
    Map<String, Object> config = consumerConfig("slow-" + id);
    config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 1_500);
    List<SlowCommits<String>> slow = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (KafkaStateLog log = sharedLog("runner-log-" + id, "A")) {
      GroupRunner<String, String> runner = GroupRunner.builder(config, new StringDeserializer(), new StringDeserializer())
          .topics(input)
          .stateLog(log)
          .handOverTimeout(Duration.ofSeconds(1))
          .coordinatorConfig(dev.twophase.CoordinatorConfig.custom()
              .checkpointInterval(Duration.ofMillis(100))
              .maxPendingCheckpoints(2, dev.twophase.CoordinatorConfig.WhenPendingFull.BLOCK)
              .build())
          .tasks(setup -> {
            SlowCommits<String> out = new SlowCommits<>(kafkaOut(output, setup), Duration.ofMillis(1_000));
            slow.add(out);
            Output<String> o = setup.output("out", out);
            return record -> o.write(record.value());
          })
          .build();
      CompletableFuture<Void> running = start(runner);
      await(() -> committedCount(output) >= 200, "every record reaches the output");
      runner.close();
      running.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    assertEquals(1, slow.size(), "the task was made once: never handed over, lost or fenced by a rebalance");
    assertTrue(slow.get(0).commits.get() >= 2, "commits of a second each: " + slow.get(0).commits.get());
    assertExactlyOnce(output, 200);
  }

  /**
   * The task's coordinator holds the position of another group (written by something else than
   * this group's runner): the task refuses to start, naming both, and nothing is processed.
   */
  @Test
  void aCoordinatorHoldingAnotherGroupsPositionIsRefused() throws Exception {
    String id = unique();
    String input = "runner-other-" + id;
    String output = "runner-other-out-" + id;
    broker.createTopic(input, 1);
    broker.createTopic(output, 1);
    String group = "other-" + id;
    try (KafkaStateLog log = sharedLog("runner-log-" + id, "A")) {
      KafkaParticipant<String> out = KafkaParticipant.<String>builder(Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))
          .records(RecordMapper.toTopic(output, new StringSerializer()))
          .transactionalIdPrefix("runner")
          .build();
      @SuppressWarnings({"unchecked", "rawtypes"})
      dev.twophase.Codec<Map<String, Object>> json = (dev.twophase.Codec) dev.twophase.Codecs.json(Map.class);
      try (dev.twophase.Coordinator byHand = dev.twophase.Coordinator.builder(group + "/" + input + "-0", log)
          .participant("out", out)
          .applicationState(dev.twophase.ApplicationState.of(json,
              cp -> Map.of("group", "someone-else", "topic", input, "partition", 0, "next", 5), (s, cp) -> { }))
          .build()) {
        byHand.checkpoint().awaitCommitted(WAIT);
      }
      GroupRunner<String, String> runner = GroupRunner.builder(consumerConfig(group), new StringDeserializer(),
              new StringDeserializer())
          .topics(input).stateLog(log).tasks(copyTo(output)).build();
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> start(runner).get(WAIT.toSeconds(), TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof FatalTwoPhaseException, e.getCause().toString());
      assertTrue(e.getCause().getMessage().contains("group 'someone-else'")
          && e.getCause().getMessage().contains("not of group '" + group + "'"), e.getCause().getMessage());
    }
  }

  @Test
  void aLogOwnedByOneProcessIsRefused() throws Exception {
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> GroupRunner.builder(consumerConfig("g"), new StringDeserializer(), new StringDeserializer())
              .topics("in").stateLog(log).tasks(copyTo("out")).build());
      assertTrue(e.getMessage().contains("isShared() is false") && e.getMessage().contains("JdbcStateLog"),
          e.getMessage());
    }
  }

  @Test
  void settingsThatBreakExactlyOnceInputAreRefused() throws Exception {
    try (KafkaStateLog log = sharedLog("runner-log-" + unique(), "A")) {
      for (Map.Entry<String, String> bad : List.of(
          Map.entry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true"),
          Map.entry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"),
          Map.entry(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer"))) {
        Map<String, Object> config = consumerConfig("g");
        config.put(bad.getKey(), bad.getValue());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> GroupRunner.builder(config, new StringDeserializer(), new StringDeserializer())
                .topics("in").stateLog(log).tasks(copyTo("out")).build());
        assertTrue(e.getMessage().contains(bad.getKey() + "=" + bad.getValue()), e.getMessage());
      }
      Map<String, Object> eager = consumerConfig("g");
      eager.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, "org.apache.kafka.clients.consumer.RangeAssignor");
      IllegalArgumentException assignor = assertThrows(IllegalArgumentException.class,
          () -> GroupRunner.builder(eager, new StringDeserializer(), new StringDeserializer())
              .topics("in").stateLog(log).tasks(copyTo("out")).build());
      assertTrue(assignor.getMessage().contains("partition.assignment.strategy"), assignor.getMessage());
      Map<String, Object> noGroup = consumerConfig("g");
      noGroup.remove(ConsumerConfig.GROUP_ID_CONFIG);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> GroupRunner.builder(noGroup, new StringDeserializer(), new StringDeserializer())
              .topics("in").stateLog(log).tasks(copyTo("out")).build());
      assertTrue(e.getMessage().contains("group.id"), e.getMessage());
    }
  }

  @Test
  void aFactoryThatThrowsStopsTheRunnerWithTheTaskAndTheCause() throws Exception {
    String id = unique();
    String input = "runner-bad-" + id;
    broker.createTopic(input, 1);
    produce(input, 0, 10);
    try (KafkaStateLog log = sharedLog("runner-log-" + id, "A")) {
      GroupRunner<String, String> runner = GroupRunner.builder(consumerConfig("bad-" + id), new StringDeserializer(),
              new StringDeserializer())
          .topics(input)
          .stateLog(log)
          .tasks(setup -> {
            throw new IllegalStateException("no database configured for " + setup.taskId());
          })
          .build();
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> start(runner).get(WAIT.toSeconds(), TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof FatalTwoPhaseException, e.getCause().toString());
      assertTrue(e.getCause().getMessage().contains("task " + input + "-0")
          && e.getCause().getMessage().contains("no database configured"), e.getCause().getMessage());
      runner.close();
    }
  }

  @Test
  void aTaskHeldByAnotherOwnerOfALogWithoutTakeOverIsRefusedNamingTheHolder() throws Exception {
    String id = unique();
    String input = "runner-held-" + id;
    String output = "runner-held-out-" + id;
    String logTopic = "runner-log-" + id;
    broker.createTopic(input, 1);
    broker.createTopic(output, 1);
    try (KafkaStateLog holder = sharedLog(logTopic, "holder");
        KafkaStateLog noTakeOver = KafkaStateLog.builder(Map.of("bootstrap.servers", broker.bootstrapServers()),
            logTopic).ownerName("late").build()) {
      holder.open("held-" + id + "/" + input + "-0"); // the task's coordinator, held and never released
      GroupRunner<String, String> runner = GroupRunner.builder(consumerConfig("held-" + id), new StringDeserializer(),
              new StringDeserializer())
          .topics(input).stateLog(noTakeOver).tasks(copyTo(output)).build();
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> start(runner).get(WAIT.toSeconds(), TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof CoordinatorHeldException, e.getCause().toString());
      assertTrue(e.getCause().getMessage().contains("holder"), e.getCause().getMessage());
    }
  }
}
