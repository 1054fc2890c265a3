package dev.twophase.demo.takeover;

import dev.twophase.CoordinatorConfig;
import dev.twophase.Output;
import dev.twophase.demo.GroupDemoWorker;
import dev.twophase.demo.Orders;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.jdbc.JdbcStateLog;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.kafka.group.GroupRunner;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One worker of {@link GroupWorkersIT}: a {@link GroupRunner} in group {@code group} that reads
 * orders (key: the order id) from the input topic and writes each to files in a directory the
 * workers share, to a PostgreSQL table and to an output topic, with a coordinator per input
 * partition on a {@link JdbcStateLog} (take-over on). It prints {@value #TASKS} and its task ids
 * whenever they change, and stops cleanly on {@code SIGTERM} (its shutdown hook closes the runner).
 *
 * <p>Arguments, {@code key=value}: {@code name}, {@code group}, {@code input}, {@code output},
 * {@code bootstrap}, {@code pgUrl}, {@code table}, {@code logTable}, {@code files}, {@code
 * idPrefix}, {@code sessionTimeoutMs}.
 */
public final class GroupWorker {

  static final String TASKS = GroupDemoWorker.TASKS;
  static final String STOPPED = "stopped";

  private GroupWorker() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    TakeoverJob.exitWhenParentIsGone(System.in);
    Map<String, String> a = parse(args);
    PGSimpleDataSource pg = TakeoverJob.dataSource(a.get("pgUrl"));
    JdbcStateLog log = JdbcStateLog.builder(pg).table(a.get("logTable")).ownerName(a.get("name")).takeOver(true).build();
    Map<String, Object> consumer = new LinkedHashMap<>();
    consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, a.get("group"));
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumer.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.parseInt(a.get("sessionTimeoutMs")));
    consumer.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
    consumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50);
    Serializer<String> utf8 = (topic, s) -> s.getBytes(StandardCharsets.UTF_8);
    GroupRunner<String, String> runner = GroupRunner.builder(consumer, new StringDeserializer(), new StringDeserializer())
        .topics(a.get("input"))
        .stateLog(log)
        .coordinatorConfig(CoordinatorConfig.custom()
            .checkpointInterval(Duration.ofMillis(300))
            .maxPendingCheckpoints(4, CoordinatorConfig.WhenPendingFull.BLOCK)
            .build())
        .handOverTimeout(Duration.ofSeconds(20))
        .tasks(setup -> {
          Output<CharSequence> files = setup.output("files",
              FileParticipant.builder(Path.of(a.get("files")), RecordEncoders.lines()).suffix(".jsonl").build());
          Output<Orders.Order> table = setup.output("pg", JdbcParticipant.builder(pg)
              .name("postgres " + a.get("table"))
              .<Orders.Order>insert("INSERT INTO " + a.get("table") + " (id, customer, amount) VALUES (?, ?, ?)",
                  (st, o) -> {
                    st.setLong(1, o.id());
                    st.setString(2, o.customer());
                    st.setBigDecimal(3, o.amount());
                  })
              .build());
          // A decided transaction must be committed within transaction.timeout.ms of its first
          // record, however long its owner is down. Here a worker stopped with SIGSTOP right after
          // a decision is down for the session timeout, the claims that wait on its database row
          // locks (lock_timeout) and the hand-overs of the rebalances: well over a minute at worst
          Output<String> topic = setup.output("kafka", KafkaParticipant.<String>builder(Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"),
                  ProducerConfig.LINGER_MS_CONFIG, 5,
                  ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 300_000))
              .records(RecordMapper.toTopic(a.get("output"), utf8))
              .transactionalIdPrefix(a.get("idPrefix"))
              .consumedOffsets(setup.consumedOffsets())
              .build());
          return record -> {
            Orders.Order order = Orders.order(Long.parseLong(record.key()));
            files.write(record.value());
            table.write(order);
            topic.write(record.value());
          };
        })
        .build();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      runner.close(); // every task handed over, the group left
      log.close();
      out.println(STOPPED);
    }, "worker-stop"));
    GroupDemoWorker.printTasksWhenTheyChange(runner, out);
    out.println("start: worker " + a.get("name") + ", pid " + ProcessHandle.current().pid());
    try {
      runner.run();
    } catch (RuntimeException | Error e) {
      out.println(TakeoverJob.FAILED + e);
      e.printStackTrace();
      Runtime.getRuntime().halt(1);
    }
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      m.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    return m;
  }
}
