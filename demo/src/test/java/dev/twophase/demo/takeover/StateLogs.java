package dev.twophase.demo.takeover;

import dev.twophase.FaultInjector;
import dev.twophase.FileStateLog;
import dev.twophase.StateLog;
import dev.twophase.jdbc.JdbcStateLog;
import dev.twophase.kafka.KafkaStateLog;
import java.nio.file.Path;
import java.util.Map;

/** The state log a {@link TakeoverJob} runs on, from its {@code log=} argument. */
final class StateLogs {

  private StateLogs() {}

  /**
   * Opens the log of {@code spec}: {@code file:<dir>} (a stand-in for a replicated log: a
   * directory that survives the process, owned as a whole by one process at a time); {@code
   * jdbc:<url>|<table>} (a {@link JdbcStateLog}; this JVM's data source, never closed: the JVM
   * ends with the job); {@code kafka:<bootstrap>|<topic>} (a {@link KafkaStateLog}, its topic
   * created if missing).
   */
  static StateLog open(String spec, String owner, boolean takeOver, FaultInjector faults) {
    int colon = spec.indexOf(':');
    String kind = colon < 0 ? spec : spec.substring(0, colon);
    String rest = colon < 0 ? "" : spec.substring(colon + 1);
    return switch (kind) {
      case "file" -> FileStateLog.builder(Path.of(rest)).segmentBytes(4096).faultInjector(faults).build();
      case "jdbc" -> {
        int bar = rest.lastIndexOf('|');
        yield JdbcStateLog.builder(TakeoverJob.dataSource(rest.substring(0, bar)))
            .table(rest.substring(bar + 1))
            .ownerName(owner)
            .takeOver(takeOver)
            .build();
      }
      case "kafka" -> {
        int bar = rest.lastIndexOf('|');
        yield KafkaStateLog.builder(Map.of("bootstrap.servers", rest.substring(0, bar)), rest.substring(bar + 1))
            .createTopic(1, (short) 1)
            .ownerName(owner)
            .takeOver(takeOver)
            .build();
      }
      default -> throw new IllegalArgumentException("state log '" + spec + "': expected file:<dir>, "
          + "jdbc:<url>|<table> or kafka:<bootstrap>|<topic>");
    };
  }

  /** Whether logs of {@code kind} ({@code file}, {@code jdbc}, {@code kafka}) are shared by processes. */
  static boolean sharedKind(String kind) {
    return !kind.equals("file");
  }

  /** Whether the log of {@code spec} is shared by processes (claims coordinators, fences earlier owners). */
  static boolean shared(String spec) {
    return !spec.startsWith("file:");
  }
}
