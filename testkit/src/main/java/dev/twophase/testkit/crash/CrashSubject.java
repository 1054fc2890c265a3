package dev.twophase.testkit.crash;

import dev.twophase.Participant;
import dev.twophase.Writable;
import dev.twophase.annotation.Experimental;
import java.util.List;

/**
 * Your participant, as a {@link CrashTest} runs it in child JVMs. Implement it in a public class
 * with a public no-argument constructor, in your test sources: each child JVM instantiates it, so
 * it must not depend on state of the test JVM (pass settings as child system properties, see
 * {@link CrashTest.Builder#childProperty}).
 *
 * <p>In a child, the harness builds a coordinator over a {@link dev.twophase.FileStateLog} with
 * your participant (named {@value CrashEnvironment#PARTICIPANT}) and the harness's own witness
 * participant ({@value CrashEnvironment#WITNESS}, second), and writes the records
 * {@link #record(long) record(0)} .. {@code record(N-1)} into both, taking a checkpoint every k
 * records. It reads your resource through {@link #committedRecords} before each recovery, right
 * after it, and at the end, and {@link #openTransactions} at the end.
 *
 * @param <IN> your participant's record type; records must have value equality, and distinct
 *     numbers must give distinct records
 */
@Experimental
public interface CrashSubject<IN> {

  /**
   * Builds your participant on your resource, once per child JVM. Keep your data under
   * {@link CrashEnvironment#workDirectory()} (or in a resource named after
   * {@link CrashEnvironment#scenarioId()}), and give the participant
   * {@link CrashEnvironment#faults()}: it must call {@code faults().reached("<point>")} at the points
   * you want to crash at inside its own operations. It may implement {@link Writable}; if it does
   * not, implement {@link #write}.
   */
  Participant<?, ?> participant(CrashEnvironment environment) throws Exception;

  /** Record number {@code n}, for n = 0 .. N-1: deterministic, distinct for distinct n. */
  IN record(long n);

  /**
   * Everything committed in your resource for this scenario, as a reader with read-committed
   * isolation sees it (order does not matter, duplicates do: return every copy you see). Called
   * in the child, with no coordinator running before a recovery and at the end, and right after a
   * recovery.
   */
  List<IN> committedRecords(CrashEnvironment environment) throws Exception;

  /**
   * The transactions of {@link CrashEnvironment#coordinatorId()} that your resource still holds
   * open or prepared (names, for messages). Called at the end of the last child, after the
   * coordinator was closed: anything listed is a leftover. Return an empty list if the resource
   * cannot tell.
   */
  List<String> openTransactions(CrashEnvironment environment) throws Exception;

  /**
   * Writes {@code record} into {@code transaction}, the coordinator's current transaction of your
   * participant. Needed only if your participant is not {@link Writable}.
   */
  default void write(Participant<?, ?> participant, Object transaction, IN record) throws Exception {
    throw new UnsupportedOperationException(participant.getClass().getName() + " is not Writable: "
        + "implement CrashSubject.write to say how a record goes into a transaction");
  }
}
