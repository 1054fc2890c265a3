package dev.twophase.kafka.crash;

import dev.twophase.kafka.KafkaPoints;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.testkit.crash.Crash;
import dev.twophase.testkit.crash.CrashScenario;
import dev.twophase.testkit.crash.CrashTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The testkit's crash harness on the Kafka participant ({@link KafkaCrashSubject}, with the
 * harness's witness participant under one coordinator): a child JVM killed at every coordinator
 * protocol point and at the participant's own points (records acknowledged before the handle is
 * returned; a commit accepted by the broker before it is reported; a recovery commit accepted),
 * recovery in new child JVMs, and a read_committed reader judging after every step: no record
 * lost, none twice, nothing of the coordinator left open on the broker. 42 records in checkpoints
 * of 5: the finish() checkpoint holds a partial batch.
 */
class KafkaParticipantCrashIT {

  private static KafkaTestBroker broker;

  @TempDir Path directory;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  static List<CrashScenario> scenarios() {
    List<CrashScenario> all = new ArrayList<>(CrashScenario.everyProtocolPoint());
    all.addAll(CrashScenario.atEach(List.of(KafkaPoints.AFTER_FLUSH, KafkaPoints.AFTER_COMMIT), 2));
    all.add(CrashScenario.of(Crash.at(KafkaPoints.AFTER_COMMIT, 9))); // the finish() checkpoint
    all.add(CrashScenario.of(Crash.at("AFTER_LOG_APPEND", 2), Crash.at(KafkaPoints.AFTER_RECOVERY_COMMIT, 1)));
    return all;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void crashAndRecover(CrashScenario scenario) {
    crashTest().run(scenario);
  }

  @Test
  void crashesInARow() {
    crashTest().run(
        Crash.at("AFTER_LOG_APPEND", 2),
        Crash.at("DURING_RECOVERY_COMMIT", 1),
        Crash.at(KafkaPoints.AFTER_FLUSH, 3),
        Crash.at(KafkaPoints.AFTER_COMMIT, 2),
        Crash.at("BETWEEN_PRE_COMMITS", 2));
  }

  private CrashTest crashTest() {
    return CrashTest.builder(KafkaCrashSubject.class)
        .workDirectory(directory)
        .records(42)
        .checkpointEvery(5)
        .childProperty(KafkaCrashSubject.BOOTSTRAP, broker.bootstrapServers())
        .childProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "warn")
        .build();
  }
}
