package dev.twophase.demo;

import dev.twophase.CoordinatorConfig;
import dev.twophase.Output;
import dev.twophase.kafka.KafkaStateLog;
import dev.twophase.kafka.group.GroupRunner;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One worker of the demo's group mode ({@link GroupDemo}), in a JVM of its own: a {@link
 * GroupRunner} of group {@value #GROUP} that reads orders (key: the order id) from {@value
 * #INPUT} and writes each, exactly once, to JSON-line files in a directory all workers share and
 * to the topic {@value TopicSink#TOPIC}, with a coordinator per input partition on a {@link
 * KafkaStateLog} (topic {@value #STATE}). It prints {@value #TASKS} and its tasks whenever they
 * change, and hands its tasks over and leaves the group on {@code SIGTERM}.
 *
 * <p>Arguments: worker name, bootstrap servers, output directory, records per part file.
 */
public final class GroupDemoWorker {

  static final String GROUP = "orders-app";
  static final String INPUT = "orders-in";
  static final String STATE = "orders-state";
  public static final String TASKS = "tasks: ";
  static final String STOPPED = "handed over and left the group";

  private GroupDemoWorker() {}

  /**
   * Prints {@value #TASKS} and the runner's task ids, sorted, whenever they change, from a daemon
   * thread that looks every 100 ms: how a parent process follows which tasks a worker runs.
   */
  public static void printTasksWhenTheyChange(GroupRunner<?, ?> runner, PrintStream out) {
    Thread watch = new Thread(() -> {
      Set<String> last = null;
      while (true) {
        Set<String> now = runner.taskIds();
        if (!now.equals(last)) {
          out.println(TASKS + now.stream().sorted().toList());
          last = now;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "worker-tasks");
    watch.setDaemon(true);
    watch.start();
  }

  public static void main(String[] args) {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    String name = args[0];
    String bootstrap = args[1];
    Path dir = Path.of(args[2]);
    int partRecords = Integer.parseInt(args[3]);
    KafkaStateLog log = KafkaStateLog.builder(Map.of("bootstrap.servers", bootstrap), STATE)
        .ownerName(name)
        .takeOver(true)
        .createTopic(6, (short) 1)
        .build();
    GroupRunner<String, String> runner = GroupRunner.builder(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, GROUP,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000),
            new StringDeserializer(), new StringDeserializer())
        .topics(INPUT)
        .stateLog(log)
        .coordinatorConfig(CoordinatorConfig.custom()
            .checkpointInterval(Duration.ofMillis(500))
            .maxPendingCheckpoints(2, CoordinatorConfig.WhenPendingFull.BLOCK)
            .build())
        .tasks(task -> {
          Output<Orders.Order> files = task.output(DemoJob.ORDERS, FileSinks.orders(dir, partRecords));
          Output<Orders.Order> topic = task.output(DemoJob.TOPIC,
              TopicSink.participant(bootstrap, task.consumedOffsets()));
          return record -> {
            Orders.Order order = Orders.order(Long.parseLong(record.key()));
            files.write(order);
            topic.write(order);
          };
        })
        .build();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      runner.close();
      log.close();
      out.println(STOPPED);
    }, "worker-stop"));
    printTasksWhenTheyChange(runner, out);
    try {
      runner.run();
    } catch (RuntimeException | Error e) {
      out.println("FAILED: " + e);
      e.printStackTrace();
      Runtime.getRuntime().halt(1);
    }
  }
}
