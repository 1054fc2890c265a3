package dev.twophase.demo;

import dev.twophase.FileStateLog;
import dev.twophase.ProtocolPoint;
import dev.twophase.StateLogSnapshot;
import dev.twophase.testing.PowerLoss;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a killed JVM left: the state log cut as a power loss could, what each sink holds after the
 * kill, and, once recovery ran, what became of the in-progress files the kill left.
 */
final class KillAftermath {

  private final PrintStream out;

  KillAftermath(PrintStream out) {
    this.out = out;
  }

  /**
   * A killed process's writes survive in the page cache: a record it was writing is whole on disk.
   * A power loss at the same moment may keep only part of it, and that is what the log must
   * survive; so after a kill inside a log write, the demo cuts the log as a power loss could.
   */
  void powerLoss(ProtocolPoint point, Path work) throws IOException {
    Path state = DemoJob.stateDir(work);
    if (point == ProtocolPoint.DURING_LOG_APPEND) {
      boolean cut = PowerLoss.tearLastAppend(state);
      out.println("parent: " + (cut ? "cut the state log in the middle of its newest record (PowerLoss.tearLastAppend), "
          + "as a power loss during that write could leave it" : "no state record to cut"));
    } else {
      PowerLoss.tearLastSegment(state);
      out.println("parent: cut the state log's newest segment in the middle (PowerLoss.tearLastSegment), as a "
          + "power loss during the compaction could leave it");
    }
  }

  /** Prints what the killed JVM left in the log and each sink; notes the in-progress files. */
  void afterCrash(Path work, String bootstrapServers, Set<Path> leftInProgress) {
    out.println("what the killed JVM left behind:");
    out.printf("  %-7s %s%n", "log:", describeLog(work));
    for (String sink : List.of(DemoJob.ORDERS, DemoJob.LEDGER)) {
      FileSinks.Listing listing = FileSinks.list(DemoJob.sinkDir(work, sink));
      out.printf("  %-7s %s%n", sink + ":", listing.describe());
      leftInProgress.addAll(listing.inProgress());
    }
    try {
      out.printf("  %-7s %s%n", DemoJob.TABLE + ":", TableSink.state(DemoJob.sinkDir(work, DemoJob.TABLE)).describe());
    } catch (Exception e) {
      out.printf("  %-7s cannot read the H2 database: %s%n", DemoJob.TABLE + ":", e);
    }
    try {
      out.printf("  %-7s %s%n", DemoJob.TOPIC + ":", TopicSink.state(bootstrapServers).describe());
    } catch (RuntimeException e) {
      out.printf("  %-7s cannot read the Kafka topic: %s%n", DemoJob.TOPIC + ":", e);
    }
    out.flush();
  }

  /** The state log as {@link FileStateLog#inspect} reads it, without taking it over. */
  private static String describeLog(Path work) {
    StateLogSnapshot log;
    try {
      log = FileStateLog.inspect(DemoJob.stateDir(work));
    } catch (RuntimeException e) {
      return "cannot read the state log: " + e;
    }
    String torn = log.tailInProgress().isPresent() ? "; a torn record at the end, which the next owner cuts off" : "";
    StateLogSnapshot.Coordinator c = log.coordinator(DemoJob.COORDINATOR).orElse(null);
    long decided = c == null ? 0 : c.lastState().map(StateLogSnapshot.State::checkpointId).orElse(0L);
    if (decided == 0) {
      return "no checkpoint decided" + torn;
    }
    return "last decided checkpoint " + decided + ", completion mark " + c.lastCompletedCheckpointId()
        + " (committed everywhere up to there)" + torn;
  }

  /** Prints what recovery did with the in-progress files a kill left: committed or deleted. */
  void reportInProgressFate(Path work, Set<Path> leftInProgress) {
    List<String> committed = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    List<String> remaining = new ArrayList<>();
    for (Path p : leftInProgress) {
      String name = work.relativize(p).toString();
      if (Files.exists(FileSinks.committedName(p))) {
        committed.add(name);
      } else if (Files.exists(p)) {
        remaining.add(name);
      } else {
        deleted.add(name);
      }
    }
    out.println("in-progress files left by the kill: " + leftInProgress.size() + "; committed by recovery "
        + "(renamed to part-*): " + committed.size() + ", deleted (never decided): " + deleted.size()
        + (remaining.isEmpty() ? "" : ", still there: " + remaining.size()));
    for (String c : committed) {
      out.println("  renamed: " + c + " -> " + FileSinks.committedName(Path.of(c)).getFileName());
    }
    for (String d : deleted) {
      out.println("  deleted: " + d);
    }
    for (String r : remaining) {
      out.println("  still there: " + r);
    }
  }
}
