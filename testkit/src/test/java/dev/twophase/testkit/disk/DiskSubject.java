package dev.twophase.testkit.disk;

import dev.twophase.Participant;
import dev.twophase.testkit.crash.CrashEnvironment;
import dev.twophase.testkit.crash.CrashSubject;
import java.util.List;

/**
 * The {@link DiskParticipant} as a crash test runs it: in the scenario's work directory, with the
 * child's fault injector. The nested classes are the same with one {@link DiskParticipant.Flaw}
 * each, for the harness's self-test.
 */
public class DiskSubject implements CrashSubject<String> {

  /** The participant of this subject's flaw. */
  @Override
  public Participant<?, ?> participant(CrashEnvironment environment) throws Exception {
    return DiskParticipant.builder(environment.workDirectory()).faults(environment.faults()).flaw(flaw()).build();
  }

  /** {@code record-<n>}. */
  @Override
  public String record(long n) {
    return "record-" + n;
  }

  @Override
  public List<String> committedRecords(CrashEnvironment environment) throws Exception {
    return DiskParticipant.committedRecords(environment.workDirectory());
  }

  @Override
  public List<String> openTransactions(CrashEnvironment environment) throws Exception {
    return DiskParticipant.inProgress(environment.workDirectory());
  }

  /** None: a correct participant. */
  protected DiskParticipant.Flaw flaw() {
    return DiskParticipant.Flaw.NONE;
  }

  /** {@link DiskParticipant.Flaw#HALF_PUBLISHED_COMMIT}. */
  public static final class HalfPublishedCommit extends DiskSubject {
    @Override
    protected DiskParticipant.Flaw flaw() {
      return DiskParticipant.Flaw.HALF_PUBLISHED_COMMIT;
    }
  }

  /** {@link DiskParticipant.Flaw#APPEND_THEN_DELETE}. */
  public static final class AppendThenDelete extends DiskSubject {
    @Override
    protected DiskParticipant.Flaw flaw() {
      return DiskParticipant.Flaw.APPEND_THEN_DELETE;
    }
  }

  /** {@link DiskParticipant.Flaw#BUFFERED_UNTIL_COMMIT}. */
  public static final class BufferedUntilCommit extends DiskSubject {
    @Override
    protected DiskParticipant.Flaw flaw() {
      return DiskParticipant.Flaw.BUFFERED_UNTIL_COMMIT;
    }
  }

  /** {@link DiskParticipant.Flaw#PREPARED_MEANS_DECIDED}. */
  public static final class PreparedMeansDecided extends DiskSubject {
    @Override
    protected DiskParticipant.Flaw flaw() {
      return DiskParticipant.Flaw.PREPARED_MEANS_DECIDED;
    }
  }

  /** {@link DiskParticipant.Flaw#NO_LEFTOVER_CLEANUP}. */
  public static final class NoLeftoverCleanup extends DiskSubject {
    @Override
    protected DiskParticipant.Flaw flaw() {
      return DiskParticipant.Flaw.NO_LEFTOVER_CLEANUP;
    }
  }

  /** {@link DiskParticipant.Flaw#HANGING_COMMIT}. */
  public static final class HangingCommit extends DiskSubject {
    @Override
    protected DiskParticipant.Flaw flaw() {
      return DiskParticipant.Flaw.HANGING_COMMIT;
    }
  }

  /** Cannot build its participant: the child fails. */
  public static final class CannotStart extends DiskSubject {
    @Override
    public Participant<?, ?> participant(CrashEnvironment environment) {
      throw new IllegalStateException("the resource is not reachable (on purpose)");
    }
  }

  /** Reads back records that {@link #record} does not make. */
  public static final class MisreadsRecords extends DiskSubject {
    @Override
    public List<String> committedRecords(CrashEnvironment environment) throws Exception {
      return super.committedRecords(environment).stream().map(r -> r + " ").toList();
    }
  }
}
