package dev.twophase.crash;

import dev.twophase.FaultInjector;
import dev.twophase.testing.CrashInjector;
import dev.twophase.testing.PowerLoss;
import dev.twophase.ApplicationState;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.ProtocolPoint;
import dev.twophase.Participant;
import dev.twophase.StateLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the programs that crash tests run in a child JVM ({@link CrashChild} here, the file
 * participant's {@code FileCrashChild}) share: the main's exit protocol, the state log, idle
 * coordinators sharing it, the input position kept as application state, and the counts their
 * reports carry. Each program keeps its own participants, outputs and report.
 */
public final class ChildProgram {

  private ChildProgram() {}

  /** A child program's work. */
  @FunctionalInterface
  public interface Body {
    void run() throws Exception;
  }

  /**
   * Runs {@code body} as a child's {@code main}: prints {@code DONE} and exits 0 when it returns;
   * prints {@code FAILED <exception>} and halts with status 1 when it throws. (A crash point halts
   * with status 86 inside it.)
   */
  public static void main(Body body) {
    try {
      body.run();
    } catch (Throwable t) {
      System.out.println("FAILED " + t);
      t.printStackTrace();
      System.out.flush();
      System.err.flush();
      Runtime.getRuntime().halt(1);
    }
    System.out.println("DONE");
    System.out.flush();
    System.exit(0);
  }

  /**
   * The injector the child's coordinator gets: it halts the JVM at the point named by the system
   * property {@code twophase.crashAt} ({@code POINT} or {@code POINT:n}) that {@link ChildJvm}
   * sets, or does nothing without it.
   */
  public static FaultInjector crashInjector() {
    return CrashInjector.parse(System.getProperty(ChildJvm.CRASH_AT));
  }

  /**
   * The child's log: a {@link FileStateLog} in {@code dir}, with that segment size if positive, and
   * the crash injector (the log's own points, DURING_LOG_APPEND and DURING_COMPACTION).
   */
  public static StateLog openLog(Path dir, long segmentBytes) {
    FileStateLog.Builder builder = FileStateLog.builder(dir).faultInjector(crashInjector());
    if (segmentBytes > 0) {
      builder.segmentBytes(segmentBytes);
    }
    return builder.build();
  }

  /**
   * After a child halted inside a log write ({@code crashAt} names DURING_LOG_APPEND or
   * DURING_COMPACTION), models the power loss that such a crash stands for (see {@link PowerLoss}):
   * a killed process's writes stay in the page cache, so without this the record or segment would
   * survive whole. Other points: nothing.
   */
  public static void tearLastWrite(Path stateDir, String crashAt) throws IOException {
    if (crashAt == null) {
      return;
    }
    if (crashAt.startsWith(ProtocolPoint.DURING_LOG_APPEND.name())) {
      PowerLoss.tearLastAppend(stateDir);
    } else if (crashAt.startsWith(ProtocolPoint.DURING_COMPACTION.name())) {
      PowerLoss.tearLastSegment(stateDir);
    }
  }

  /**
   * {@code count} idle coordinators on {@code log}, named {@code <before><i>} and
   * {@code <after><i>} alternately so that they sort before and after the program's own, each
   * with the participant {@code participant} makes for its name: compaction then copies several
   * coordinators' states.
   */
  public static List<Coordinator> bystanders(
      StateLog log, int count, String before, String after, ParticipantFactory participant)
      throws Exception {
    List<Coordinator> idle = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String id = (i % 2 == 0 ? before : after) + i;
      idle.add(Coordinator.builder(id, log).participant("p", participant.create(id)).build());
    }
    return idle;
  }

  /** Makes the participant of an idle coordinator, given the coordinator's id. */
  @FunctionalInterface
  public interface ParticipantFactory {
    Participant<?, ?> create(String coordinatorId) throws Exception;
  }

  /**
   * The next input to read, kept as the application state of every checkpoint and restored with
   * the checkpoint that holds it.
   */
  public static final class Position {
    /** The next input; the program advances it as it reads. */
    public long next;
    /** The checkpoint the position was restored from (0 if none). */
    public long restoredCheckpoint;

    public ApplicationState<Long> state() {
      return ApplicationState.of(
          Codecs.json(Long.class),
          id -> next,
          (restored, id) -> {
            next = restored;
            restoredCheckpoint = id;
          });
    }

    /** Prints {@code RECOVERED position=P checkpoint=C epoch=E}, which the tests read. */
    public void printRecovered(Coordinator coordinator) {
      System.out.println("RECOVERED position=" + next + " checkpoint=" + restoredCheckpoint
          + " epoch=" + coordinator.ownerEpoch());
      System.out.flush();
    }
  }

  /**
   * Replaces {@code report} with {@code text} (UTF-8) in one atomic rename, so that a reader, or a
   * child killed meanwhile, never leaves a half-written report.
   */
  public static void writeReport(Path report, String text) throws IOException {
    Path tmp = report.resolveSibling(report.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, report, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Reads a report written by {@link #writeReport} as properties. */
  public static Properties readReport(Path report) throws IOException {
    Properties props = new Properties();
    try (var in = Files.newBufferedReader(report, StandardCharsets.UTF_8)) {
      props.load(in);
    }
    return props;
  }

  /** How often each record occurs in a report's comma-separated list ({@code ""}: none). */
  public static SortedMap<Long, Integer> counts(String list) {
    TreeMap<Long, Integer> records = new TreeMap<>();
    String trimmed = list.trim();
    if (!trimmed.isEmpty()) {
      for (String s : trimmed.split(",")) {
        records.merge(Long.parseLong(s.trim()), 1, Integer::sum);
      }
    }
    return records;
  }

  /** Compresses numbers, in any order, into sorted ranges for messages: "0..9, 12, 20..29". */
  public static String ranges(Collection<Long> numbers) {
    List<Long> sorted = new ArrayList<>(numbers);
    Collections.sort(sorted);
    if (sorted.isEmpty()) {
      return "{}";
    }
    StringBuilder sb = new StringBuilder();
    long start = sorted.get(0);
    long prev = start;
    for (int i = 1; i <= sorted.size(); i++) {
      if (i < sorted.size() && sorted.get(i) == prev + 1) {
        prev = sorted.get(i);
        continue;
      }
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(start == prev ? String.valueOf(start) : start + ".." + prev);
      if (i < sorted.size()) {
        start = prev = sorted.get(i);
      }
    }
    return sb.toString();
  }
}
