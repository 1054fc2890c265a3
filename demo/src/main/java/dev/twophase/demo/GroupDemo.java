package dev.twophase.demo;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The demo's group mode ({@code --workers N}): the orders are in a Kafka topic of 6 partitions,
 * and N worker JVMs of one consumer group ({@link GroupDemoWorker}) share them, each input
 * partition a task with a coordinator of its own on a state log in a Kafka topic. Once every
 * worker runs tasks and a third of the output is committed, one worker, chosen at random, is
 * killed with {@code SIGKILL}; the others take its tasks over. When the output is complete they
 * stop with {@code SIGTERM}, and the demo checks the files and the topic on its own: every input
 * record exactly once.
 */
final class GroupDemo {

  static final int PARTITIONS = 6;

  private final Demo.Options options;
  private final PrintStream out;

  GroupDemo(Demo.Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /** One worker JVM and what it printed. */
  private static final class Worker {
    final String name;
    final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();
    Thread relay;

    Worker(String name, Process process) {
      this.name = name;
      this.process = process;
    }

    /** How many tasks its last {@value GroupDemoWorker#TASKS} line lists; 0 before it printed one. */
    int tasks() {
      for (int i = lines.size() - 1; i >= 0; i--) {
        String l = lines.get(i);
        if (l.startsWith(GroupDemoWorker.TASKS)) {
          String list = l.substring(GroupDemoWorker.TASKS.length());
          return list.equals("[]") ? 0 : list.split(",").length;
        }
      }
      return 0;
    }
  }

  Demo.Result run() throws IOException, InterruptedException {
    long start = System.nanoTime();
    long n = options.records();
    int count = options.workers();
    Path work = WorkDirectory.prepare(options.dir() != null ? options.dir() : WorkDirectory.defaultDir());
    Path filesDir = work.resolve("out").resolve(DemoJob.ORDERS);
    out.println("twophase demo, group mode: one job spread over the worker JVMs of a consumer group");
    out.println("work directory: " + work);
    out.println("input:          " + n + " orders in the topic " + GroupDemoWorker.INPUT + " (" + PARTITIONS
        + " partitions), key the order id");
    out.println("workers:        " + count + " JVMs of group '" + GroupDemoWorker.GROUP + "'; a task per input "
        + "partition, a coordinator per task on the state log topic " + GroupDemoWorker.STATE);
    out.println("                  orders  files of JSON lines in out/orders, shared by the workers (FileParticipant)");
    out.println("                  topic   records of the Kafka topic " + TopicSink.TOPIC + " (KafkaParticipant,"
        + " with the input offsets)");
    out.println("crash plan:     one worker, chosen at random (seed " + options.seed() + "), is killed with SIGKILL"
        + " once a third of the output is committed");
    try (Stopper stopper = new Stopper()) {
      KafkaTestBroker broker = stopper.broker(() -> KafkaTestBroker.start(work.resolve("kafka"), 2, Map.of()));
      String bootstrap = broker.bootstrapServers();
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        admin.createTopics(List.of(new NewTopic(GroupDemoWorker.INPUT, PARTITIONS, (short) 1),
            new NewTopic(TopicSink.TOPIC, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new IOException("cannot create the demo's topics: " + e, e);
      }
      produce(bootstrap, n);
      out.println("kafka:          a broker in this JVM at " + bootstrap + "; the input is written");

      List<Worker> workers = new ArrayList<>();
      for (int i = 1; i <= count; i++) {
        workers.add(start("w" + i, bootstrap, filesDir, stopper));
      }
      out.println();
      out.println("[1/3] " + count + " workers join the group and share the " + PARTITIONS + " tasks");
      long deadline = System.nanoTime() + options.childTimeout().toNanos();
      awaitUntil(() -> workers.stream().allMatch(w -> w.tasks() > 0) && visible(bootstrap) >= n / 3, deadline,
          "every worker runs tasks and a third of the output is committed", workers);
      for (Worker w : workers) {
        out.println("  " + w.name + " runs " + w.tasks() + " task(s)");
      }

      Worker victim = workers.remove(new Random(options.seed()).nextInt(workers.size()));
      out.println();
      out.println("[2/3] " + victim.name + " is killed with SIGKILL; the others take its tasks over");
      victim.process.destroyForcibly();
      victim.process.waitFor(30, TimeUnit.SECONDS);
      awaitUntil(() -> visible(bootstrap) >= n, deadline, "the whole output is committed", workers);
      for (Worker w : workers) {
        out.println("  " + w.name + " runs " + w.tasks() + " task(s)");
      }
      for (Worker w : workers) {
        // SIGTERM: hand the tasks over, leave the group. Through the handle: Process.destroy()
        // would also close the pipes, and the worker's last lines with them.
        w.process.toHandle().destroy();
      }
      List<String> problems = new ArrayList<>();
      for (Worker w : workers) {
        boolean ended = w.process.waitFor(60, TimeUnit.SECONDS);
        w.relay.join(10_000); // its last lines
        if (!ended || !w.lines.contains(GroupDemoWorker.STOPPED)) {
          problems.add(w.name + " did not stop cleanly on SIGTERM (" + (ended ? "exit " + w.process.exitValue()
              : "still running") + "), its last lines: "
              + w.lines.subList(Math.max(0, w.lines.size() - 8), w.lines.size()));
        }
      }

      out.println();
      out.println("[3/3] verification: each sink read the way its readers read it");
      List<SinkCheck> checks = List.of(
          FileSinks.check(DemoJob.ORDERS, filesDir, n, true),
          TopicSink.check(bootstrap, n));
      out.println("  records in:  " + n);
      out.printf("  %-7s %-38s %8s %11s %6s  %s%n", "sink", "read as", "records", "duplicates", "lost", "left");
      for (SinkCheck c : checks) {
        out.printf("  %-7s %-38s %8d %11d %6d  %d %s%n", c.sink(), c.kind(), c.records(), c.duplicates(), c.lost(),
            c.left(), c.leftKind());
        if (!c.ok()) {
          problems.add(c.problem());
        }
      }
      out.printf("  time taken:  %.1f s%n", Demo.seconds(Duration.ofNanos(System.nanoTime() - start)));
      boolean ok = problems.isEmpty();
      out.println(ok ? "exactly-once: OK" : "exactly-once: FAILED");
      problems.forEach(p -> out.println("  " + p));
      return new Demo.Result(ok, work, List.of(), checks, -1, n, problems);
    }
  }

  private Worker start(String name, String bootstrap, Path filesDir, Stopper stopper) throws IOException {
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:+UseSerialGC", "-Xmx256m", "-cp", ChildJvms.classPath(), GroupDemoWorker.class.getName(), name,
        bootstrap, filesDir.toString(), Integer.toString(options.partRecords()));
    Process p = stopper.worker(() -> new ProcessBuilder(cmd).redirectErrorStream(true).start());
    Worker w = new Worker(name, p);
    w.relay = relay(w, p.getInputStream());
    return w;
  }

  private Thread relay(Worker w, InputStream stream) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          w.lines.add(line);
          if (line.startsWith(GroupDemoWorker.TASKS) || line.startsWith("FAILED") || line.equals(GroupDemoWorker.STOPPED)
              || line.contains(" WARN ") || line.contains(" ERROR ")) {
            synchronized (out) {
              out.println("  " + w.name + " | " + line);
            }
          }
        }
      } catch (IOException e) {
        // the worker is gone
      }
    }, "demo-relay-" + w.name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void produce(String bootstrap, long n) {
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrap, ProducerConfig.LINGER_MS_CONFIG, 20), new StringSerializer(), new StringSerializer())) {
      for (long i = 0; i < n; i++) {
        p.send(new ProducerRecord<>(GroupDemoWorker.INPUT, Long.toString(i), Orders.json(Orders.order(i))));
      }
      p.flush();
    }
  }

  private static long visible(String bootstrap) {
    return TopicSink.state(bootstrap).visible();
  }

  @FunctionalInterface
  private interface Condition {
    boolean holds();
  }

  /** Waits until {@code c} holds; past the deadline, prints each worker's last lines and fails. */
  private void awaitUntil(Condition c, long deadline, String what, List<Worker> workers) throws InterruptedException {
    while (!c.holds()) {
      boolean workerDied = workers.stream().anyMatch(w -> !w.process.isAlive());
      if (workerDied || System.nanoTime() > deadline) {
        for (Worker w : workers) {
          List<String> lines = w.lines;
          out.println("  " + w.name + (w.process.isAlive() ? " (running)" : " (exited " + w.process.exitValue() + ")")
              + ", its last lines:");
          lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> out.println("    " + l));
        }
        throw new IllegalStateException((workerDied ? "a worker died before " : "not within the child timeout: ")
            + what);
      }
      Thread.sleep(1_000); // each look reads the output topic
    }
  }
}
