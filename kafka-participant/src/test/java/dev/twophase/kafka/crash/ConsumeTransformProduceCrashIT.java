package dev.twophase.kafka.crash;

import dev.twophase.kafka.KafkaPoints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.crash.ChildJvm;
import dev.twophase.crash.ChildProgram;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.SortedMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Consume-transform-produce with a crash in the middle ({@link ConsumeTransformProduceChild}), then
 * a new JVM that goes on to the input's end: the output holds {@code out-<i>} for every input
 * exactly once, and the group's committed offsets are at the input's end.
 */
class ConsumeTransformProduceCrashIT {

  static final int N = 60;
  static final int K = 8;

  private static KafkaTestBroker broker;

  @TempDir Path tmp;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      KafkaPoints.AFTER_FLUSH + ":3",
      "AFTER_LOG_APPEND:3",
      KafkaPoints.AFTER_COMMIT + ":3",
      "BEFORE_PRE_COMMIT:4"})
  void exactlyOnceEndToEndAcrossACrash(String crashAt) throws Exception {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String input = "ctp-in-" + unique;
    String output = "ctp-out-" + unique;
    String group = "ctp-group-" + unique;
    broker.createTopic(input, 2);
    broker.createTopic(output, 1);
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < N; i++) {
        p.send(new ProducerRecord<>(input, i % 2, null, Integer.toString(i))).get();
      }
    }
    List<ChildJvm.Run> runs = new ArrayList<>();
    ChildJvm.Run crashed = run(runs, crashAt, input, output, group);
    assertCrashedAt(crashed, crashAt.substring(0, crashAt.lastIndexOf(':')));
    ChildJvm.Run clean = run(runs, null, input, output, group);
    assertDone(clean);

    StringBuilder all = new StringBuilder();
    runs.forEach(r -> all.append(r.describe()).append('\n'));
    List<String> out = ReadCommitted.values(broker.bootstrapServers(), output, Duration.ofSeconds(60));
    SortedMap<Long, Integer> counts = ChildProgram.counts(String.join(",", out.stream().map(v -> v.substring(4)).toList()));
    TreeMap<Long, Integer> expected = new TreeMap<>();
    for (long i = 0; i < N; i++) {
      expected.put(i, 1);
    }
    assertEquals(expected, counts, "every input once in the output\n" + all);
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
              Map.of(group, new ListConsumerGroupOffsetsSpec()))
          .partitionsToOffsetAndMetadata(group).get(30, TimeUnit.SECONDS);
      long total = committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
      assertEquals(N, total, "the group's committed offsets: " + committed + "\n" + all);
    }
  }

  static void assertCrashedAt(ChildJvm.Run child, String point) {
    if (child.timedOut()) {
      fail("child did not finish in time\n" + child.describe());
    }
    if (child.exitCode() == 0) {
      fail("the crash point " + point + " was never reached: the child ran to the end\n" + child.describe());
    }
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(),
        "the child failed instead of crashing at " + point + "\n" + child.describe());
    assertTrue(child.err().contains(point), "no mention of " + point + " in the child's log\n" + child.describe());
  }

  static void assertDone(ChildJvm.Run child) {
    assertTrue(!child.timedOut() && child.exitCode() == 0 && child.out().lines().anyMatch("DONE"::equals),
        "the clean child did not finish\n" + child.describe());
  }

  private ChildJvm.Run run(List<ChildJvm.Run> runs, String crashAt, String input, String output, String group)
      throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
    if (crashAt != null) {
      props.put(ConsumeTransformProduceChild.CRASH_AT, crashAt);
    }
    ChildJvm.Run run = ChildJvm.runNumbered(tmp, runs.size() + 1, ConsumeTransformProduceChild.class, props, null,
        List.of(broker.bootstrapServers(), tmp.resolve("state").toString(), input, output, group, Integer.toString(K)),
        Duration.ofMinutes(2));
    runs.add(run);
    return run;
  }
}
