package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.ApplicationState;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.FileStateLog;
import dev.twophase.Participant;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * configuration.md's blocks. The configuration is built and read back; the coordinator and the
 * state log, with their directory under {@code /var/lib}, only compile.
 */
class ConfigurationPageSnippetsTest {

  /** The application's input, as the coordinator block uses it. */
  interface Reader {
    long position();

    void seek(long position);
  }

  @Test
  void theConfigurationIsWhatItsCommentsSay() {
    // snippet: configuration-config
    CoordinatorConfig config = CoordinatorConfig.custom()
        .checkpointInterval(Duration.ofSeconds(5))         // at most 5 s of output in flight
        .transactionTimeout(Duration.ofMinutes(15))        // the resources keep transactions 15 min
        .enableTransactionTimeoutWarnings(0.8)             // WARN at 12 min
        .commitRetryBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 2.0)
        .closeTimeout(Duration.ofSeconds(60))
        .build();
    // end snippet
    assertEquals(Optional.of(Duration.ofSeconds(5)), config.checkpointInterval());
    assertEquals(Optional.of(Duration.ofMinutes(15)), config.transactionTimeout());
    assertEquals(0.8, config.transactionTimeoutWarningRatio());
    assertEquals(Duration.ofMillis(200), config.commitInitialBackoff());
    assertEquals(Duration.ofSeconds(10), config.commitMaxBackoff());
    assertEquals(2.0, config.commitBackoffMultiplier());
    assertEquals(Duration.ofSeconds(60), config.closeTimeout());
  }

  static void coordinator(Participant<?, ?> files, Participant<?, ?> database, CoordinatorConfig config,
      CoordinatorListener metrics, Reader reader) throws Exception {
    // snippet: configuration-coordinator
    try (FileStateLog log = FileStateLog.open(Path.of("/var/lib/orders/twophase"))) {
      Coordinator coordinator = Coordinator.builder("orders", log)
          .participant("files", files)            // pre-commit and commit in this order
          .participant("db", database)
          .config(config)
          .listener(metrics)
          .applicationState(ApplicationState.of(Codecs.json(Long.class),
              id -> reader.position(),             // stored with checkpoint id
              (position, id) -> reader.seek(position)))
          .build();                                // recovers, begins, writes the initial record
      // write through coordinator.output(...), call maybeCheckpoint(), then finish()
      coordinator.close();                         // before the log closes
    }
    // end snippet
  }

  static FileStateLog fileStateLog() {
    // snippet: configuration-file-state-log
    FileStateLog log = FileStateLog.builder(Path.of("/var/lib/orders/twophase"))
        .segmentBytes(64L * 1024 * 1024)
        .build();
    // end snippet
    return log;
  }
}
