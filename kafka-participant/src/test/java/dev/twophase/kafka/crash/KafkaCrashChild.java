package dev.twophase.kafka.crash;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FaultInjector;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.crash.ChildProgram;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.kafka.testbroker.ReadCommitted;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The program {@link KafkaParticipantCrashIT} runs in a child JVM: writes the inputs 0..N-1 as
 * values {@code "<i>"} to two Kafka participants ("a" to topic A, "b" to topic B) under one
 * coordinator over a {@code FileStateLog}, a checkpoint every k inputs, the input position as the
 * application state. Its fault injector (system property {@value #CRASH_AT}), given to the
 * coordinator and both participants, halts it at a coordinator protocol point or a point of the
 * Kafka participant.
 *
 * <p>Arguments: {@code bootstrapServers stateDir topicA topicB N k reportFile}. Right after
 * recovery it writes the report: the restored position and what a {@code read_committed} reader
 * sees in each topic at that instant.
 */
public final class KafkaCrashChild {

  public static final String COORDINATOR = "kafka-crash";
  public static final String ID_PREFIX = "crash";
  /**
   * The crash point: {@code POINT} or {@code POINT:n}, a {@code ProtocolPoint} or a point of the
   * Kafka participant. A property of its own, read only by this program.
   */
  public static final String CRASH_AT = "twophase.kafka.crashAt";

  private final ChildProgram.Position position = new ChildProgram.Position();

  public static void main(String[] args) {
    ChildProgram.main(() -> new KafkaCrashChild().run(args));
  }

  private void run(String[] args) throws Exception {
    if (args.length != 7) {
      throw new IllegalArgumentException("usage: KafkaCrashChild bootstrapServers stateDir topicA topicB N k reportFile");
    }
    String bootstrap = args[0];
    Path stateDir = Path.of(args[1]);
    String topicA = args[2];
    String topicB = args[3];
    long n = Long.parseLong(args[4]);
    int k = Integer.parseInt(args[5]);
    Path report = Path.of(args[6]);
    FaultInjector faults = CrashInjector.parse(System.getProperty(CRASH_AT));

    try (StateLog log = ChildProgram.openLog(stateDir, 0);
        KafkaParticipant<Long> a = participant(bootstrap, topicA, faults);
        KafkaParticipant<Long> b = participant(bootstrap, topicB, faults)) {
      Coordinator coordinator = Coordinator.builder(COORDINATOR, log)
          .participant("a", a)
          .participant("b", b)
          .applicationState(position.state())
          .config(CoordinatorConfig.custom()
              .maxPendingCheckpoints(2, CoordinatorConfig.WhenPendingFull.BLOCK)
              .faultInjector(faults)
              .build())
          .build();
      position.printRecovered(coordinator);
      ChildProgram.writeReport(report, "position=" + position.next + "\n"
          + "a=" + String.join(",", ReadCommitted.values(bootstrap, topicA, Duration.ofSeconds(60))) + "\n"
          + "b=" + String.join(",", ReadCommitted.values(bootstrap, topicB, Duration.ofSeconds(60))) + "\n");
      Output<Long> outA = coordinator.output(a);
      Output<Long> outB = coordinator.output(b);
      for (long i = position.next; i < n; i++) {
        outA.write(i);
        outB.write(i);
        position.next = i + 1;
        if ((i + 1) % k == 0) {
          coordinator.checkpoint();
        }
      }
      coordinator.finish().awaitCommitted(Duration.ofSeconds(60));
      coordinator.close();
    }
  }

  private static KafkaParticipant<Long> participant(String bootstrap, String topic, FaultInjector faults) {
    return KafkaParticipant.<Long>builder(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ProducerConfig.LINGER_MS_CONFIG, 0))
        .records(RecordMapper.toTopic(topic, (t, v) -> new StringSerializer().serialize(t, Long.toString(v))))
        .transactionalIdPrefix(ID_PREFIX)
        .faultInjector(faults)
        .closeTimeout(Duration.ofSeconds(5))
        .build();
  }
}
