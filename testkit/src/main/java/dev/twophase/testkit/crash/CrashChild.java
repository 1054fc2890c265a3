package dev.twophase.testkit.crash;

import dev.twophase.ApplicationState;
import dev.twophase.CheckpointFailedException;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.Participant;
import dev.twophase.Writable;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The program a child JVM of a {@link CrashTest} runs. It reads its {@link ChildPlan}, builds a
 * {@link Coordinator} over a {@link FileStateLog} in the scenario directory with the subject's
 * participant and the {@link WitnessParticipant}, and writes records {@code next .. N-1} into both,
 * taking a checkpoint after every record whose number + 1 is a multiple of k, and {@code finish()}
 * at the end. The application state is the input position. It writes a {@link Report} before the
 * coordinator is built (what the previous child left), right after (what recovery made visible,
 * with the restored position) and at the end (also what is left open, and how often each point
 * was reached). The plan's crash, if any, halts it with exit status 86 on the way.
 *
 * <p>Prints {@link #DONE} and exits 0 at the end; prints {@link #FAILED} and the exception and
 * halts with status 1 if anything throws.
 */
final class CrashChild {

  static final String DONE = "twophase-crashtest: done";
  static final String FAILED = "twophase-crashtest: FAILED ";
  /** Consecutive failed checkpoints after which the child gives up. */
  static final int MAX_FAILED_CHECKPOINTS = 3;

  private CrashChild() {}

  /** {@code CrashChild <plan file>}. */
  public static void main(String[] args) {
    try {
      if (args.length != 1) {
        throw new IllegalArgumentException("usage: CrashChild <plan file>");
      }
      run(ChildPlan.read(Path.of(args[0])));
    } catch (Throwable t) {
      System.out.println(FAILED + t);
      t.printStackTrace();
      System.out.flush();
      System.err.flush();
      Runtime.getRuntime().halt(1);
    }
    System.out.println(DONE);
    System.out.flush();
    System.exit(0);
  }

  /** The input position, kept as the application state of every checkpoint. */
  private static final class Position {
    long next;
    long restoredCheckpoint;

    ApplicationState<Long> state() {
      return ApplicationState.of(Codecs.json(Long.class), id -> next, (restored, id) -> {
        next = restored;
        restoredCheckpoint = id;
      });
    }
  }

  private static void run(ChildPlan plan) throws Exception {
    System.out.println("twophase-crashtest: child #" + plan.child() + " of scenario " + plan.scenarioId()
        + (plan.crash() == null ? ", no crash" : ", crash at " + plan.crash()));
    CrashSubject<Object> subject = instantiate(plan.subjectClass());
    HitCounter faults = new HitCounter(plan.crash());
    CrashEnvironment env = new CrashEnvironment(
        Files.createDirectories(plan.subjectDirectory()), plan.scenarioId(), plan.child(), faults);
    Numbers numbers = new Numbers(subject, plan.records());
    report(plan, Report.BEFORE, -1, -1, subject, env, numbers, false, faults);

    Position position = new Position();
    try (FileStateLog log = FileStateLog.builder(plan.stateDirectory())
        .segmentBytes(FileStateLog.MIN_SEGMENT_BYTES) // compacts every few checkpoints
        .faultInjector(faults) // DURING_LOG_APPEND, DURING_COMPACTION
        .build()) {
      Participant<?, ?> participant = subject.participant(env);
      if (participant == null) {
        throw new IllegalStateException(plan.subjectClass() + ".participant(environment) returned null");
      }
      WitnessParticipant witness = new WitnessParticipant(plan.witnessDirectory());
      CoordinatorConfig.Builder config = CoordinatorConfig.custom()
          .commitRetryBackoff(Duration.ofMillis(10), Duration.ofMillis(200), 2.0)
          .closeTimeout(Duration.ofSeconds(30))
          .faultInjector(faults);
      if (plan.maxPendingCheckpoints() > 0) {
        config.maxPendingCheckpoints(plan.maxPendingCheckpoints(), CoordinatorConfig.WhenPendingFull.BLOCK);
      }
      Coordinator coordinator = Coordinator.builder(env.coordinatorId(), log)
          .participant(CrashEnvironment.PARTICIPANT, participant)
          .participant(CrashEnvironment.WITNESS, witness)
          .config(config.build())
          .applicationState(position.state())
          .build();
      try {
        report(plan, Report.RECOVERED, position.next, position.restoredCheckpoint, subject, env, numbers, false, faults);
        System.out.println("twophase-crashtest: recovered, position " + position.next + ", checkpoint "
            + position.restoredCheckpoint + ", epoch " + coordinator.ownerEpoch());
        Output<Object> output = participant instanceof Writable ? outputOf(coordinator, participant) : null;
        Output<Long> witnessOutput = coordinator.output(witness);
        int failedCheckpoints = 0;
        while (position.next < plan.records()) {
          long n = position.next;
          Object record = numbers.record(n);
          if (output != null) {
            output.write(record);
          } else {
            subject.write(participant, coordinator.currentTransaction(participant), record);
          }
          witnessOutput.write(n);
          position.next = n + 1;
          if (position.next % plan.checkpointEvery() == 0) {
            try {
              coordinator.checkpoint();
              failedCheckpoints = 0;
            } catch (CheckpointFailedException e) {
              // The coordinator aborted the checkpoint and restored the position: write again.
              System.out.println("twophase-crashtest: checkpoint failed, writing again from " + position.next + ": " + e);
              if (++failedCheckpoints == MAX_FAILED_CHECKPOINTS) {
                throw e;
              }
            }
          }
        }
        coordinator.finish().awaitCommitted(Duration.ofMinutes(5));
      } finally {
        coordinator.close();
      }
    }
    report(plan, Report.END, position.next, position.restoredCheckpoint, subject, env, numbers, true, faults);
  }

  @SuppressWarnings("unchecked")
  private static <I, T, P extends Participant<T, ?> & Writable<I, T>> Output<I> outputOf(
      Coordinator coordinator, Object participant) {
    return coordinator.output((P) participant);
  }

  private static void report(
      ChildPlan plan, String phase, long position, long checkpoint, CrashSubject<Object> subject,
      CrashEnvironment env, Numbers numbers, boolean end, HitCounter faults) throws Exception {
    Map<String, TreeMap<Long, Integer>> committed = new LinkedHashMap<>();
    Map<String, List<String>> unknown = new LinkedHashMap<>();
    Map<String, List<String>> open = new LinkedHashMap<>();

    List<Object> visible = subject.committedRecords(env);
    if (visible == null) {
      throw new IllegalStateException(plan.subjectClass() + ".committedRecords returned null");
    }
    List<Long> found = new ArrayList<>();
    List<String> strangers = new ArrayList<>();
    for (Object record : visible) {
      Long n = numbers.number(record);
      if (n != null) {
        found.add(n);
      } else if (strangers.size() < Report.UNKNOWN_KEPT) {
        strangers.add(String.valueOf(record));
      }
    }
    committed.put(CrashEnvironment.PARTICIPANT, Report.counts(found));
    unknown.put(CrashEnvironment.PARTICIPANT, strangers);
    committed.put(CrashEnvironment.WITNESS, Report.counts(WitnessParticipant.committed(plan.witnessDirectory())));
    unknown.put(CrashEnvironment.WITNESS, List.of());
    if (end) {
      List<String> subjectOpen = subject.openTransactions(env);
      open.put(CrashEnvironment.PARTICIPANT, subjectOpen == null ? List.of() : List.copyOf(subjectOpen));
      open.put(CrashEnvironment.WITNESS, WitnessParticipant.inProgress(plan.witnessDirectory(), name -> true));
    }
    new Report(phase, position, checkpoint, committed, unknown, open, end ? faults.hits() : Map.of())
        .write(plan.file(phase));
  }

  @SuppressWarnings("unchecked")
  private static CrashSubject<Object> instantiate(String className) throws Exception {
    Class<?> type;
    try {
      type = Class.forName(className);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("the crash subject class " + className + " is not on the child's "
          + "class path (the test JVM's class path)", e);
    }
    if (!CrashSubject.class.isAssignableFrom(type)) {
      throw new IllegalStateException(className + " does not implement " + CrashSubject.class.getName());
    }
    Constructor<?> constructor;
    try {
      constructor = type.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(className + " needs a public no-argument constructor: the crash "
          + "harness instantiates it in each child JVM", e);
    }
    if (!Modifier.isPublic(type.getModifiers())) {
      throw new IllegalStateException(className + " must be a public class: the crash harness "
          + "instantiates it in each child JVM");
    }
    try {
      return (CrashSubject<Object>) constructor.newInstance();
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("the constructor of " + className + " threw " + e.getCause(), e.getCause());
    }
  }

  /** Record numbers to records and back, for 0 .. N-1. */
  private static final class Numbers {
    private final CrashSubject<Object> subject;
    private final Map<Object, Long> numbers = new HashMap<>();

    Numbers(CrashSubject<Object> subject, long records) {
      this.subject = subject;
      for (long n = 0; n < records; n++) {
        Object record = subject.record(n);
        if (record == null) {
          throw new IllegalStateException(subject.getClass().getName() + ".record(" + n + ") returned null");
        }
        Long before = numbers.put(record, n);
        if (before != null) {
          throw new IllegalStateException(subject.getClass().getName() + ".record(" + before + ") and record("
              + n + ") are equal (" + record + "): distinct numbers must give distinct records");
        }
      }
    }

    Object record(long n) {
      return subject.record(n);
    }

    Long number(Object record) {
      return numbers.get(record);
    }
  }
}
