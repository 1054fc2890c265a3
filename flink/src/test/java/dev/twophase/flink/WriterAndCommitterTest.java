package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.DecisionLostException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.TransactionLostException;
import dev.twophase.flink.internal.Committable;
import dev.twophase.flink.internal.LineageState;
import dev.twophase.flink.internal.ParticipantSpec;
import dev.twophase.flink.internal.ParticipantState;
import dev.twophase.flink.internal.SinkSpec;
import dev.twophase.flink.internal.TwoPhaseCommitter;
import dev.twophase.flink.internal.TwoPhaseWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer and the committer driven by hand, as Flink drives them, over real files: the failure
 * paths of a checkpoint, closing, the committer's outcomes, and what a restored writer aborts and
 * leaves to the committer. (The MiniCluster tests show the same through real jobs.)
 */
class WriterAndCommitterTest {

  /** Hook behaviour by test, keyed by directory. */
  private static final Map<String, AtomicInteger> COUNTDOWN = new ConcurrentHashMap<>();
  /** What hooks saw, by test. */
  private static final Map<String, List<String>> RECORDED = new ConcurrentHashMap<>();

  @TempDir
  Path tmp;

  private static SinkSpec spec(boolean continueAfterLostDecision, ParticipantSpec... participants) {
    return new SinkSpec("w", List.of(participants), null, false, continueAfterLostDecision, false, Clock.systemUTC(),
        null);
  }

  private static SinkSpec continuingAfterUnknownOutcomes(ParticipantSpec... participants) {
    return new SinkSpec("w", List.of(participants), null, false, false, true, Clock.systemUTC(), null);
  }

  /** A hook whose commits (and recoverAndCommits) cannot tell the outcome. */
  private static HookedFiles.Hook outcomeUnknown() {
    return (point, t, dir) -> {
      if (point.equals("commit")) {
        throw new CommitOutcomeUnknownException("planned: the resource forgot " + t.name(), null);
      }
    };
  }

  private static ParticipantSpec files(String name, Path dir) {
    return new ParticipantSpec(name, Participants.files(dir.toString()), InputMapper.identity());
  }

  private static ParticipantSpec hooked(String name, Path dir, HookedFiles.Hook hook) {
    return new ParticipantSpec(name, HookedFiles.factory(dir.toString(), hook), InputMapper.identity());
  }

  private static TwoPhaseWriter<String> open(SinkSpec spec, int subtask, long restored, Collection<LineageState> states)
      throws IOException {
    return TwoPhaseWriter.open(spec, subtask, 2, 0, restored, new SimpleCounter(), null, states);
  }

  private static Committable one(Collection<Committable> committables) {
    assertEquals(1, committables.size());
    return committables.iterator().next();
  }

  /** The part files in {@code dir}, committed or not (not the participants' claim files). */
  private static List<String> names(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".twophase-")).sorted().toList();
    }
  }

  private static void write(TwoPhaseWriter<String> writer, String... records) throws IOException {
    for (String r : records) {
      writer.write(r, null);
    }
  }

  /** Throws at {@code point} once the countdown of {@code key} reaches zero. */
  private static HookedFiles.Hook failAt(String point, String key, int after) {
    COUNTDOWN.put(key, new AtomicInteger(after));
    return (p, t, dir) -> {
      if (p.equals(point) && COUNTDOWN.get(key).getAndDecrement() == 0) {
        throw new IOException("planned " + point + " failure of " + t.name());
      }
    };
  }

  @Test
  void aFailedPreCommitAbortsEveryParticipantsTransactionAndTheWriterRefusesToGoOn() throws Exception {
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    TwoPhaseWriter<String> writer = open(spec(false, files("a", a), hooked("b", b, failAt("preCommit", "pc", 0))), 0, 0, List.of());
    write(writer, "1", "2");
    IOException e = assertThrows(IOException.class, writer::prepareCommit);
    assertTrue(e.getMessage().contains("pre-commit"), e.getMessage());
    assertEquals(List.of(), names(a), "a's pre-committed part was aborted");
    assertEquals(List.of(), names(b));
    assertThrows(IOException.class, () -> writer.write("3", null));
    assertThrows(IOException.class, () -> writer.snapshotState(1));
    writer.close();
    assertEquals(0, HookedFiles.notClosed(b.toString()));
  }

  @Test
  void aFailedBeginAfterThePreCommitsAbortsThemAndTheNewTransactions() throws Exception {
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    // b's second begin (after the first checkpoint's pre-commit) fails; a's second begin succeeded
    TwoPhaseWriter<String> writer = open(spec(false, files("a", a), hooked("b", b, failAt("begin", "begin", 1))), 0, 0, List.of());
    write(writer, "1", "2");
    assertThrows(IOException.class, writer::prepareCommit);
    assertEquals(List.of(), names(a), "nothing of the committable that never left");
    assertEquals(List.of(), names(b));
    writer.close();
  }

  @Test
  void closeAbortsAndClosesEverythingAndThrowsOnlyErrors() throws Exception {
    Path a = tmp.resolve("a");
    TwoPhaseWriter<String> failingAbort =
        open(spec(false, hooked("a", a, failAt("abort", "abort", 0))), 0, 0, List.of());
    write(failingAbort, "1");
    failingAbort.close(); // logged, not thrown: Flink would take the task manager down
    assertEquals(0, HookedFiles.notClosed(a.toString()));

    Path b = tmp.resolve("b");
    TwoPhaseWriter<String> errorInAbort = open(spec(false, hooked("b", b, (p, t, dir) -> {
      if (p.equals("abort")) {
        throw new AssertionError("an Error in abort");
      }
    })), 0, 0, List.of());
    write(errorInAbort, "1");
    assertThrows(AssertionError.class, errorInAbort::close);
    assertEquals(0, HookedFiles.notClosed(b.toString()), "closed all the same");
  }

  @Test
  void theCommitterMapsOutcomesOntoCommitRequests() throws Exception {
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    SinkSpec spec = spec(false, files("a", a), hooked("b", b, failAt("commit", "commit", 0)));
    TwoPhaseWriter<String> writer = open(spec, 0, 0, List.of());
    write(writer, "1", "2");
    Committable c = one(writer.prepareCommit());
    writer.snapshotState(1);
    TwoPhaseCommitter committer = new TwoPhaseCommitter(spec);

    Requests first = new Requests(c);
    committer.commit(List.of(first));
    assertEquals("updateAndRetry", first.signal, "b failed after a committed: retried without a");
    assertEquals(List.of("b"), first.committable.handles().stream().map(h -> h.participant()).toList());
    Requests retried = new Requests(first.committable);
    committer.commit(List.of(retried));
    assertEquals("none", retried.signal, "committed");
    Requests repeated = new Requests(c);
    committer.commit(List.of(repeated));
    assertEquals("alreadyCommitted", repeated.signal);

    write(writer, "3");
    Committable next = one(writer.prepareCommit());
    for (String f : names(a)) {
      if (f.endsWith(".inprogress")) {
        Files.delete(a.resolve(f)); // something outside removes the decided transaction's files
      }
    }
    Requests gone = new Requests(next);
    assertThrows(IllegalStateException.class, () -> committer.commit(List.of(gone)));
    assertEquals("failedUnknown", gone.signal, "never signalFailedWithKnownReason, which drops it");
    TransactionLostException e = assertInstanceOf(TransactionLostException.class, gone.failure);
    assertEquals("a", e.participant().orElseThrow());
    committer.close();
    writer.close();
  }

  @Test
  void aFencedOrFatalCommitFailsTheRequestInsteadOfBeingRetried() throws Exception {
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    SinkSpec spec = spec(false, files("a", a), hooked("b", b, (point, t, dir) -> {
      if (point.equals("commit")) {
        throw new FencedException("planned: another writer took over " + t.name());
      }
    }));
    TwoPhaseWriter<String> writer = open(spec, 0, 0, List.of());
    write(writer, "1");
    Committable c = one(writer.prepareCommit());
    writer.snapshotState(1);
    TwoPhaseCommitter committer = new TwoPhaseCommitter(spec);

    Requests r = new Requests(c);
    assertThrows(IllegalStateException.class, () -> committer.commit(List.of(r)));
    assertEquals("failedUnknown", r.signal, "not retried in place: the job fails and commits it after restoring");
    FatalTwoPhaseException e = assertInstanceOf(FatalTwoPhaseException.class, r.failure);
    assertInstanceOf(FencedException.class, e.getCause());
    assertEquals("b", e.participant().orElseThrow());
    assertTrue(e.getMessage().contains("checkpoint ~1"), e.getMessage());
    committer.close();
    writer.close();
  }

  @Test
  void aCommitOfUnknownOutcomeFailsTheJobWithoutRestartsUnlessOptedIn() throws Exception {
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    SinkSpec spec = spec(false, files("a", a), hooked("b", b, outcomeUnknown()));
    TwoPhaseWriter<String> writer = open(spec, 0, 0, List.of());
    write(writer, "1");
    Committable c = one(writer.prepareCommit());
    TwoPhaseCommitter committer = new TwoPhaseCommitter(spec);
    Requests r = new Requests(c);
    assertThrows(IllegalStateException.class, () -> committer.commit(List.of(r)));
    assertEquals("failedUnknown", r.signal, "not retried: asking again cannot tell");
    SuppressRestartsException suppress = assertInstanceOf(SuppressRestartsException.class, r.failure,
        "every restore would ask again, so Flink must not restart the job");
    CommitOutcomeUnknownException e = assertInstanceOf(CommitOutcomeUnknownException.class, suppress.getCause());
    assertEquals("b", e.participant().orElseThrow());
    assertEquals(1, e.checkpointId().orElseThrow());
    assertTrue(e.getMessage().contains("continueAfterUnknownCommitOutcome()"), e.getMessage());
    assertTrue(e.getMessage().contains("the resource forgot"), "the participant's evidence: " + e.getMessage());
    committer.close();

    TwoPhaseCommitter going = new TwoPhaseCommitter(continuingAfterUnknownOutcomes(files("a", a),
        hooked("b", b, outcomeUnknown())));
    Requests on = new Requests(c);
    going.commit(List.of(on));
    assertEquals("none", on.signal, "taken as done, as configured");
    going.close();
    writer.close();
  }

  @Test
  void anInterruptedCommitIsNotRetriedAndKeepsTheInterrupt() throws Exception {
    Path a = tmp.resolve("a");
    SinkSpec spec = spec(false, hooked("a", a, (point, t, dir) -> {
      if (point.equals("commit")) {
        throw new InterruptedException("planned: the task is cancelled");
      }
    }));
    TwoPhaseWriter<String> writer = open(spec, 0, 0, List.of());
    write(writer, "1");
    Committable c = one(writer.prepareCommit());
    TwoPhaseCommitter committer = new TwoPhaseCommitter(spec);
    Requests r = new Requests(c);
    try {
      assertThrows(InterruptedException.class, () -> committer.commit(List.of(r)));
      assertTrue(Thread.interrupted(), "the interrupt flag is kept for the cancellation");
    } finally {
      Thread.interrupted();
    }
    assertEquals("none", r.signal, "no retry signalled while the task is cancelled");
    committer.close();
    writer.close();
  }

  @Test
  void aRestoredWriterCommitsItsPendingHandlesBeforeItAbortsOrBegins() throws Exception {
    Path a = tmp.resolve("a");
    List<String> points = new java.util.concurrent.CopyOnWriteArrayList<>();
    RECORDED.put("order", points);
    SinkSpec spec = spec(false, hooked("a", a, (point, t, dir) -> RECORDED.get("order").add(point + " " + t.name())));
    TwoPhaseWriter<String> first = open(spec, 0, 0, List.of());
    write(first, "1");
    Committable decided = one(first.prepareCommit());
    LineageState taken = first.snapshotState(1).get(0);
    // the state as a chained writer takes it: checkpoint 1's handle pending (not yet retired)
    var p = taken.participants().get(0);
    LineageState state = new LineageState(taken.sinkId(), taken.lineage(), taken.epoch(), taken.nextSequence(),
        taken.subtask(), taken.parallelism(), List.of(new ParticipantState(p.participant(), p.contextCodecVersion(),
            p.context(), p.open(), decided.handles())));
    points.clear();

    TwoPhaseWriter<String> second = open(spec, 0, 1, List.of(state));
    // (recoverAndAbort of the open handle reaches no hook)
    points.removeIf(point -> point.startsWith("committed "));
    assertEquals(2, points.size(), "commit the pending, then begin: " + points);
    assertTrue(points.get(0).startsWith("commit ") && points.get(0).endsWith("-0"), points.toString());
    assertTrue(points.get(1).startsWith("begin "), points.toString());
    assertEquals(Map.of("1", 1), CommittedFiles.lineCounts(a), "decided, so committed");
    second.close();
    first.close();
  }

  @Test
  void aRestoredWriterAbortsWhatIsUndecidedAndLeavesThePendingCommittableToTheCommitter() throws Exception {
    Path a = tmp.resolve("a");
    SinkSpec spec = spec(false, files("a", a));
    TwoPhaseWriter<String> first = open(spec, 0, 0, List.of());
    write(first, "1");
    Committable pending = one(first.prepareCommit()); // checkpoint 1, decided, not yet committed
    List<LineageState> state = first.snapshotState(1);
    write(first, "2");
    one(first.prepareCommit()); // checkpoint 2 pre-committed, never completed
    write(first, "3"); // begun after it
    // the process dies: nothing closed

    TwoPhaseWriter<String> second = open(spec, 0, 1, state);
    List<String> left = names(a).stream().filter(f -> f.endsWith(".inprogress")).toList();
    assertEquals(1, left.size(), "only checkpoint 1's part is left, for the committer: " + names(a));
    assertTrue(left.get(0).contains("-0-0"), left.get(0) + " is sequence 0");

    TwoPhaseCommitter committer = new TwoPhaseCommitter(spec);
    Requests r = new Requests(pending);
    committer.commit(List.of(r));
    assertEquals("none", r.signal);
    assertEquals(Map.of("1", 1), CommittedFiles.lineCounts(a));
    committer.close();
    second.close();
    first.close();
  }

  @Test
  void aRestoredOpenTransactionFoundCommittedIsALostDecisionUnlessOptedIn() throws Exception {
    Path a = tmp.resolve("a");
    SinkSpec spec = spec(false, files("a", a));
    TwoPhaseWriter<String> first = open(spec, 0, 0, List.of());
    write(first, "1");
    one(first.prepareCommit());
    List<LineageState> older = first.snapshotState(1);
    write(first, "2");
    Committable later = one(first.prepareCommit());
    first.snapshotState(2);
    TwoPhaseCommitter committer = new TwoPhaseCommitter(spec);
    committer.commit(List.of(new Requests(later))); // checkpoint 2 committed
    first.close();

    DecisionLostException e = assertThrows(DecisionLostException.class, () -> open(spec, 0, 1, older));
    assertEquals("a", e.participant().orElseThrow());
    open(spec(true, files("a", a)), 0, 1, older).close(); // opted in: goes on
    committer.close();
  }

  @Test
  void oneSubtaskRecoversTheLineagesOfEveryStateItReceives() throws Exception {
    Path a = tmp.resolve("a");
    SinkSpec spec = spec(false, files("a", a));
    TwoPhaseWriter<String> w0 = open(spec, 0, 0, List.of());
    TwoPhaseWriter<String> w1 = open(spec, 1, 0, List.of());
    write(w0, "0a");
    write(w1, "1a");
    Committable p0 = one(w0.prepareCommit());
    Committable p1 = one(w1.prepareCommit());
    List<LineageState> s0 = w0.snapshotState(1);
    List<LineageState> s1 = w1.snapshotState(1);
    write(w0, "0b");
    write(w1, "1b");
    one(w0.prepareCommit());
    one(w1.prepareCommit());
    write(w0, "0c");
    write(w1, "1c");
    // both die; the job is restored at parallelism 1

    TwoPhaseWriter<String> merged = open(spec, 0, 1, List.of(s0.get(0), s1.get(0)));
    List<String> left = names(a).stream().filter(f -> f.endsWith(".inprogress")).toList();
    assertEquals(2, left.size(), "only the pending committables' parts: " + names(a));
    TwoPhaseCommitter committer = new TwoPhaseCommitter(spec);
    committer.commit(List.of(new Requests(p0), new Requests(p1)));
    assertEquals(Map.of("0a", 1, "1a", 1), CommittedFiles.lineCounts(a));
    committer.close();
    merged.close();
    w0.close();
    w1.close();
  }
}
