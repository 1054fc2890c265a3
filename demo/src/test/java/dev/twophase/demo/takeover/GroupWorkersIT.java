package dev.twophase.demo.takeover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.demo.Orders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer group of worker JVMs ({@link GroupWorker}) reads orders from a topic of 6 partitions
 * while they are produced, and writes each to files in a directory the workers share, a
 * PostgreSQL table and an output topic, on a JDBC state log: it scales from 1 worker to 3; one
 * worker, chosen at random, is killed with {@code SIGKILL} and its local directory deleted (2
 * left); one of the 2 is stopped with {@code SIGSTOP} past the session timeout, its tasks move to
 * the other, and it is resumed (a zombie, which must decide nothing and rejoin); then both are
 * stopped with {@code SIGTERM}. The independent {@link Checker} finds every input record exactly
 * once in the files, the table and the output topic, nothing prepared, open or in progress, and
 * the group's committed offsets, which each task commits with its checkpoints, where each input
 * partition ends.
 */
class GroupWorkersIT {

  static final int PARTITIONS = 6;
  static final long RECORDS = 3_000;
  static final int SESSION_TIMEOUT_MS = 6_000;
  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path dir;

  @Test
  void workersScaleAreKilledAndStoppedAndEveryRecordArrivesOnce() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    System.out.println("GroupWorkersIT seed " + seed);
    Servers servers = Servers.shared();
    String id = "workers";
    String input = "orders-in-" + id;
    String output = "orders-out-" + id;
    String table = "orders_" + id;
    servers.createTable(table);
    servers.createTopic(output);
    createTopic(servers, input);
    Path files = Files.createDirectories(dir.resolve("shared-out"));

    AtomicLong produced = new AtomicLong();
    CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> produce(servers.bootstrap(), input, produced));
    List<ChildJob> workers = new ArrayList<>();
    List<String> outputs = new ArrayList<>();
    try {
      ChildJob w1 = start(servers, id, "w1", input, output, table, files);
      workers.add(w1);
      awaitTasks(w1, PARTITIONS);
      ChildJob w2 = start(servers, id, "w2", input, output, table, files);
      ChildJob w3 = start(servers, id, "w3", input, output, table, files);
      workers.add(w2);
      workers.add(w3);
      for (ChildJob w : workers) {
        awaitTasks(w, PARTITIONS / 3);
      }
      assertTrue(produced.get() < RECORDS, "the scaling happened under load");

      ChildJob killed = workers.remove(random.nextInt(workers.size()));
      killed.kill(); // SIGKILL
      assertTrue(killed.awaitExit(WAIT));
      outputs.add(killed.output());
      Servers.deleteTree(dir.resolve("local-" + nameOf(killed)));
      for (ChildJob w : workers) {
        awaitTasks(w, PARTITIONS / 2);
      }

      ChildJob zombie = workers.get(random.nextInt(2));
      ChildJob other = workers.get(workers.get(0) == zombie ? 1 : 0);
      zombie.signal("STOP");
      awaitTasks(other, PARTITIONS); // its session timed out: the other worker runs every task
      int stoppedAt = zombie.lineCount();
      zombie.signal("CONT");
      awaitTasksAfter(zombie, stoppedAt);

      producer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      awaitEverything(servers, files, table, output, id);
      for (ChildJob w : workers) {
        w.signal("TERM");
      }
      for (ChildJob w : workers) {
        assertTrue(w.awaitExit(WAIT), "a worker must stop on SIGTERM\n" + w.output());
        assertTrue(w.lines().contains(GroupWorker.STOPPED), w.output());
        outputs.add(w.output());
      }
    } finally {
      producer.cancel(true);
      workers.forEach(ChildJob::close);
    }
    assertEquals(List.of(), check(servers, files, table, output, id), String.join("\n----\n", outputs));
    assertEquals(endOffsets(servers, input), committedOffsets(servers, id),
        "each partition's offsets, committed with its last decided checkpoint, are where its input ends");
  }

  private static Map<Integer, Long> endOffsets(Servers servers, String topic) throws Exception {
    try (var admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrap()))) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<Integer, Long> ends = new TreeMap<>();
      admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
      return ends;
    }
  }

  private static Map<Integer, Long> committedOffsets(Servers servers, String group) throws Exception {
    try (var admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrap()))) {
      Map<Integer, Long> committed = new TreeMap<>();
      admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
          .forEach((tp, om) -> committed.put(tp.partition(), om == null ? -1 : om.offset()));
      return committed;
    }
  }

  /** The worker's name, from its first line. */
  private static String nameOf(ChildJob worker) {
    return worker.lines().stream().filter(l -> l.startsWith("start: worker ")).findFirst()
        .map(l -> l.substring("start: worker ".length(), l.indexOf(','))).orElseThrow();
  }

  /** Waits until the worker, after its line {@code from}, lists tasks again (it rejoined the group). */
  private static void awaitTasksAfter(ChildJob worker, int from) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      List<String> lines = worker.lines();
      boolean rejoined = lines.subList(Math.min(from, lines.size()), lines.size()).stream()
          .anyMatch(l -> l.startsWith(GroupWorker.TASKS) && !l.equals(GroupWorker.TASKS + "[]"));
      if (rejoined) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "the resumed worker must rejoin and run tasks again\n"
          + worker.output());
      Thread.sleep(100);
    }
  }

  private ChildJob start(Servers servers, String id, String name, String input, String output, String table,
      Path files) throws Exception {
    Path local = Files.createDirectories(dir.resolve("local-" + name));
    return ChildJob.start(name, local, GroupWorker.class, List.of(
        "name=" + name, "group=" + id, "input=" + input, "output=" + output, "bootstrap=" + servers.bootstrap(),
        "pgUrl=" + servers.pgUrl(), "table=" + table, "logTable=twophase_log_" + id, "files=" + files,
        "idPrefix=tx-" + id, "sessionTimeoutMs=" + SESSION_TIMEOUT_MS), false);
  }

  private static void awaitTasks(ChildJob worker, int count) throws InterruptedException {
    assertTrue(worker.awaitLine(l -> l.startsWith(GroupWorker.TASKS) && lastTasks(worker) == count, WAIT),
        "the worker must come to run " + count + " tasks\n" + worker.output());
  }

  /** How many tasks the worker's last {@value GroupWorker#TASKS} line lists. */
  private static int lastTasks(ChildJob worker) {
    List<String> lines = worker.lines();
    for (int i = lines.size() - 1; i >= 0; i--) {
      String l = lines.get(i);
      if (l.startsWith(GroupWorker.TASKS)) {
        String list = l.substring(GroupWorker.TASKS.length());
        return list.equals("[]") ? 0 : list.split(",").length;
      }
    }
    return -1;
  }

  private static void createTopic(Servers servers, String topic) throws Exception {
    try (var admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrap()))) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
          .all().get(30, TimeUnit.SECONDS);
    }
  }

  /** Orders 0 .. RECORDS - 1, keyed by id, about 150 a second, so that the workers scale under load. */
  private static void produce(String bootstrap, String topic, AtomicLong produced) {
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
      for (long i = 0; i < RECORDS; i++) {
        p.send(new ProducerRecord<>(topic, Long.toString(i), Orders.json(Orders.order(i))));
        produced.incrementAndGet();
        if (i % 15 == 14) {
          p.flush();
          Thread.sleep(100);
        }
      }
      p.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static List<String> check(Servers servers, Path files, String table, String output, String id)
      throws Exception {
    return new Checker(RECORDS)
        .files(files)
        .table(servers.pg(), table, id)
        .topic(servers.bootstrap(), output, "tx-" + id)
        .problems();
  }

  /** Waits until the checker is content, or the time runs out (the final check then says what is missing). */
  private static void awaitEverything(Servers servers, Path files, String table, String output, String id)
      throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline && !check(servers, files, table, output, id).isEmpty()) {
      Thread.sleep(1_000);
    }
  }
}
