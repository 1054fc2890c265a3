package dev.twophase.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.twophase.ApplicationState;
import dev.twophase.CheckpointFailedException;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorState;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.Participant;
import dev.twophase.TransactionLostException;
import dev.twophase.TwoPhaseException;
import dev.twophase.file.FileParticipantTest.Item;
import dev.twophase.testing.TestContexts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two file participants (lines in directory a, with buckets; JSON lines in directory b) under one
 * {@link Coordinator} over a {@link FileStateLog}: they commit together, a failed pre-commit or a
 * full disk in one aborts both, and a new coordinator over the same log after a crash (the old one
 * abandoned without close) commits the decided parts and removes the undecided ones.
 */
class FileParticipantCoordinatorTest {

  static final String ID = "app";
  static final Duration WAIT = Duration.ofSeconds(30);
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  /** The application's input position, stored in every checkpoint. */
  long position;
  long restoredFrom = -1;
  final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  Path dirA() {
    return tmp.resolve("a");
  }

  Path dirB() {
    return tmp.resolve("b");
  }

  FileStateLog openLog() {
    FileStateLog log = FileStateLog.open(tmp.resolve("state"));
    toClose.add(log);
    return log;
  }

  static String bucketOf(long n) {
    return n % 2 == 0 ? "even" : "odd/deeper";
  }

  FileParticipant<CharSequence> participantA() {
    return FileParticipant.builder(dirA(), RecordEncoders.lines())
        .maxPartRecords(2)
        .suffix(".txt")
        .bucketAssigner(r -> r.toString().startsWith("x") ? "blocked/inner" : bucketOf(Long.parseLong(r.toString())))
        .build();
  }

  FileParticipant<Object> participantB(Path dir, int bufferBytes) {
    return participantB(dir, bufferBytes, 3);
  }

  FileParticipant<Object> participantB(Path dir, int bufferBytes, long maxPartRecords) {
    return FileParticipant.builder(dir, RecordEncoders.jsonLines())
        .maxPartRecords(maxPartRecords)
        .suffix(".jsonl")
        .bufferBytes(bufferBytes)
        .build();
  }

  Coordinator coordinator(FileStateLog log, Participant<?, ?> a, Participant<?, ?> b) {
    return Coordinator.builder(ID, log)
        .participant("a", a)
        .participant("b", b)
        .config(CoordinatorConfig.custom()
            .commitRetryBackoff(Duration.ofHours(1), Duration.ofHours(1), 1.0) // a held-back commit stays held
            .closeTimeout(Duration.ofSeconds(5))
            .build())
        .applicationState(ApplicationState.of(Codecs.json(Long.class), id -> position, (p, id) -> {
          position = p;
          restoredFrom = id;
        }))
        .build();
  }

  /** The numbers a reader of directory a sees, sorted (with duplicates). */
  static List<Long> visibleA(Path dir) {
    List<Long> out = new ArrayList<>();
    for (String f : Dirs.committed(dir)) {
      for (String line : Dirs.readLines(dir.resolve(f))) {
        long n = Long.parseLong(line);
        assertEquals(bucketOf(n), f.substring(0, f.lastIndexOf('/')), "record " + n + " is in the wrong bucket");
        out.add(n);
      }
    }
    out.sort(null);
    return out;
  }

  /** The numbers a reader of directory b sees, sorted (with duplicates). */
  static List<Long> visibleB(Path dir) {
    List<Long> out = new ArrayList<>();
    for (String f : Dirs.committed(dir)) {
      for (String line : Dirs.readLines(dir.resolve(f))) {
        try {
          Item item = JSON.readValue(line, Item.class);
          assertEquals("item " + item.n(), item.text());
          out.add(item.n());
        } catch (IOException e) {
          throw new UncheckedIOException("not one JSON document per line in " + f + ": " + line, e);
        }
      }
    }
    out.sort(null);
    return out;
  }

  static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  /** Writes input n to both outputs, as the application's loop would, and advances the position. */
  void writeBoth(Output<CharSequence> a, Output<Object> b, long from, long to) {
    for (long n = from; n < to; n++) {
      a.write(Long.toString(n));
      b.write(new Item(n, "item " + n));
      position = n + 1;
    }
  }

  void assertVisible(List<Long> expected) {
    assertEquals(expected, visibleA(dirA()), "directory a");
    assertEquals(expected, visibleB(dirB()), "directory b");
  }

  /** In-progress files of participants a and b of coordinator {@link #ID}. */
  static List<String> ownInProgress(Path dir) {
    return Dirs.inProgress(dir).stream()
        .filter(f -> Dirs.name(f).startsWith(".part-" + ID + "-a-") || Dirs.name(f).startsWith(".part-" + ID + "-b-"))
        .toList();
  }

  @Test
  void twoParticipantsCommitEachCheckpointTogether() throws Exception {
    FileStateLog log = openLog();
    FileParticipant<CharSequence> a = participantA();
    FileParticipant<Object> b = participantB(dirB(), 64 * 1024);
    Coordinator c = coordinator(log, a, b);
    Output<CharSequence> outA = c.output(a);
    Output<Object> outB = c.output(b);

    writeBoth(outA, outB, 0, 5);
    assertVisible(List.of());
    c.checkpoint().awaitCommitted(WAIT);
    assertVisible(range(0, 5));

    writeBoth(outA, outB, 5, 11);
    assertVisible(range(0, 5));
    assertFalse(ownInProgress(dirA()).isEmpty(), "rolled parts of the open transaction are on disk");
    c.checkpoint().awaitCommitted(WAIT);
    assertVisible(range(0, 11));
    assertEquals(List.of(), ownInProgress(dirA()));
    assertEquals(List.of(), ownInProgress(dirB()));

    writeBoth(outA, outB, 11, 15); // never decided
    c.close();
    assertVisible(range(0, 11));
    assertEquals(List.of(), ownInProgress(dirA()), "close aborts the open transaction");
    assertEquals(List.of(), ownInProgress(dirB()));
  }

  @ParameterizedTest(name = "failing participant: {0}")
  @ValueSource(strings = {"a", "b"})
  void aFailedWriteFailsTheCheckpointAndAbortsBothParticipants(String failing) throws Exception {
    FileStateLog log = openLog();
    FileParticipant<CharSequence> a = participantA();
    // b's records of the form x... cannot be written either: its base holds a file named like a part's directory.
    FileParticipant<Object> b = FileParticipant.builder(dirB(), RecordEncoders.jsonLines())
        .maxPartRecords(3).suffix(".jsonl")
        .bucketAssigner(r -> r instanceof String ? "blocked/inner" : "")
        .build();
    Files.createDirectories(dirA());
    Files.writeString(dirA().resolve("blocked"), "not a directory");
    Files.writeString(dirB().resolve("blocked"), "not a directory");
    Coordinator c = coordinator(log, a, b);
    toClose.add(c);
    Output<CharSequence> outA = c.output(a);
    Output<Object> outB = c.output(b);

    writeBoth(outA, outB, 0, 3);
    c.checkpoint().awaitCommitted(WAIT);
    writeBoth(outA, outB, 3, 8);
    TwoPhaseException writeFailure = assertThrows(TwoPhaseException.class, () -> {
      if (failing.equals("a")) {
        outA.write("x-cannot-be-written");
      } else {
        outB.write("x-cannot-be-written");
      }
    });
    assertTrue(writeFailure.getMessage().contains("can no longer be committed"), writeFailure.getMessage());
    assertTrue(Dirs.inProgress(dirA()).size() >= 2, "a has parts of the doomed transaction on disk");

    CheckpointFailedException e = assertThrows(CheckpointFailedException.class, c::checkpoint);
    assertEquals(failing, e.participant().orElse(null), e.getMessage());
    assertEquals(2, e.checkpointId().orElse(-1));
    assertEquals(1, e.lastDecidedCheckpointId());
    assertEquals(3, position, "the application was told to replay from checkpoint 1");
    assertEquals(1, restoredFrom);
    assertVisible(range(0, 3));
    assertEquals(List.of(), ownInProgress(dirA()), "both transactions aborted, a's pre-committed parts too");
    assertEquals(List.of(), ownInProgress(dirB()));

    // The coordinator goes on with new transactions.
    assertEquals(CoordinatorState.RUNNING, c.state());
    writeBoth(outA, outB, 3, 8);
    c.checkpoint().awaitCommitted(WAIT);
    assertVisible(range(0, 8));
  }

  @ParameterizedTest(name = "buffer {0} bytes")
  @ValueSource(ints = {512, 1 << 20})
  void aFullDiskFailsTheCheckpointAndNothingOfItBecomesVisible(int bufferBytes) throws Exception {
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("small"), "size=256k")) {
      Path dirB = fs.dir().resolve("b");
      FileStateLog log = openLog(); // the log is on the big disk; only b's directory runs full
      FileParticipant<CharSequence> a = participantA();
      // No rolling: with the big buffer nothing reaches the disk before the pre-commit.
      FileParticipant<Object> b = participantB(dirB, bufferBytes, Long.MAX_VALUE);
      Coordinator c = coordinator(log, a, b);
      Output<CharSequence> outA = c.output(a);
      Output<Object> outB = c.output(b);
      writeBoth(outA, outB, 0, 4);
      c.checkpoint().awaitCommitted(WAIT);

      String big = "y".repeat(1000);
      int failedWrites = 0;
      for (long n = 4; n < 304; n++) {
        outA.write(Long.toString(n));
        try {
          outB.write(new Item(n, big));
        } catch (TwoPhaseException e) {
          failedWrites++;
          assertTrue(FileParticipantWriteFailureTest.causeChain(e).contains("No space left on device"),
              FileParticipantWriteFailureTest.causeChain(e));
        }
        position = n + 1;
      }
      // With a small buffer the writes hit the full disk; with a big one the pre-commit does.
      assertEquals(bufferBytes == 512, failedWrites > 0, "failed writes: " + failedWrites);

      CheckpointFailedException e = assertThrows(CheckpointFailedException.class, c::checkpoint);
      assertEquals("b", e.participant().orElse(null));
      if (bufferBytes > 512) {
        assertTrue(FileParticipantWriteFailureTest.causeChain(e).contains("No space left on device"),
            FileParticipantWriteFailureTest.causeChain(e));
      }
      assertEquals(4, position);
      assertEquals(range(0, 4), visibleA(dirA()));
      assertEquals(range(0, 4), visibleB(dirB));
      assertEquals(List.of(), ownInProgress(dirA()));
      assertEquals(List.of(), ownInProgress(dirB), "the aborted parts are deleted, freeing the space");

      writeBoth(outA, outB, 4, 10); // small records fit again
      c.checkpoint().awaitCommitted(WAIT);
      assertEquals(range(0, 10), visibleA(dirA()));
      assertEquals(range(0, 10), visibleB(dirB));
      c.close();
    }
  }

  @Test
  void recoveryAfterACrashCommitsTheDecidedPartsAndDeletesTheUndecidedOnes() throws Exception {
    FileStateLog log = openLog();
    FileParticipant<CharSequence> a = participantA();
    GatedParticipant<Object> b = new GatedParticipant<>(participantB(dirB(), 64 * 1024), true);
    Coordinator c = coordinator(log, a, b);
    Output<CharSequence> outA = c.output(a);
    Output<Object> outB = c.output(b);

    writeBoth(outA, outB, 0, 5);
    c.checkpoint(); // decided; a commits, b's commit is held back
    waitFor(() -> b.blockedCommits.get() > 0);
    assertEquals(range(0, 5), visibleA(dirA()));
    assertEquals(List.of(), visibleB(dirB()), "b has not committed checkpoint 1");

    // Checkpoint 2's transactions: written, and a's even pre-committed, but never decided.
    writeBoth(outA, outB, 5, 12);
    a.preCommit(c.currentTransaction(a));
    // A transaction begun after the last durable record (as the next checkpoint's would be).
    FileTransaction unlogged = a.beginTransaction(
        TestContexts.transaction(ID, "a", log.logId(), c.ownerEpoch(), 3, 1000, null));
    W.write(a, unlogged, "100");
    // Another coordinator's and another participant's in-progress files in the same directories.
    FileParticipant<CharSequence> neighbour = participantA();
    FileTransaction otherCoordinator = neighbour.beginTransaction(TestContexts.transaction("other", "a", 1, 1, 0));
    W.write(neighbour, otherCoordinator, "200");
    FileTransaction otherParticipant = neighbour.beginTransaction(TestContexts.transaction(ID, "c", 1, 1, 0));
    W.write(neighbour, otherParticipant, "201");
    String otherCoordinatorName = neighbour.preCommit(otherCoordinator).name();
    String otherParticipantName = neighbour.preCommit(otherParticipant).name();
    a.preCommit(unlogged);
    List<String> foreign = Dirs.inProgress(dirA()).stream()
        .filter(f -> f.contains(otherCoordinatorName) || f.contains(otherParticipantName)).toList();
    assertEquals(2, foreign.size());
    assertFalse(ownInProgress(dirA()).isEmpty());
    assertFalse(ownInProgress(dirB()).isEmpty());

    // Crash: the coordinator is abandoned, never closed; only its log is released.
    log.close();
    position = -1;

    FileStateLog log2 = openLog();
    FileParticipant<CharSequence> a2 = participantA();
    FileParticipant<Object> b2 = participantB(dirB(), 64 * 1024);
    Coordinator c2 = coordinator(log2, a2, b2);
    assertEquals(5, position, "restored to checkpoint 1");
    assertEquals(1, restoredFrom);
    assertVisible(range(0, 5));
    assertEquals(List.of(), ownInProgress(dirA()), "undecided and unlogged parts are deleted");
    assertEquals(List.of(), ownInProgress(dirB()));
    assertEquals(foreign, Dirs.inProgress(dirA()), "other coordinators' and participants' files stay");

    Output<CharSequence> outA2 = c2.output(a2);
    Output<Object> outB2 = c2.output(b2);
    writeBoth(outA2, outB2, 5, 12);
    c2.finish().awaitCommitted(WAIT);
    c2.close();
    assertVisible(range(0, 12));
    assertEquals(List.of(), ownInProgress(dirA()));
    assertEquals(List.of(), ownInProgress(dirB()));
    assertEquals(foreign, Dirs.inProgress(dirA()));
  }

  @Test
  void aDecidedTransactionWhosePartsVanishedFailsRecoveryWithTransactionLostException() throws Exception {
    FileStateLog log = openLog();
    GatedParticipant<CharSequence> a = new GatedParticipant<>(participantA(), true);
    FileParticipant<Object> b = participantB(dirB(), 64 * 1024);
    Coordinator c = coordinator(log, a, b);
    writeBoth(c.output(a), c.output(b), 0, 5);
    c.checkpoint(); // decided, nothing committed: a is first and held back
    waitFor(() -> a.blockedCommits.get() > 0);
    String lostName = null;
    for (String f : ownInProgress(dirA())) {
      Files.delete(dirA().resolve(f)); // an operator's cleanup job, say
      String n = Dirs.name(f).substring(".part-".length());
      lostName = n.substring(0, n.lastIndexOf('-'));
    }
    assertTrue(lostName != null, "there were parts to delete");
    log.close(); // crash

    FileStateLog log2 = openLog();
    FileParticipant<CharSequence> a2 = participantA();
    FileParticipant<Object> b2 = participantB(dirB(), 64 * 1024);
    TransactionLostException e = assertThrows(TransactionLostException.class, () -> coordinator(log2, a2, b2));
    assertEquals(1, e.checkpointId().orElse(-1));
    assertEquals("a", e.participant().orElse(null));
    assertTrue(e.getMessage().contains(lostName) && e.getMessage().contains("checkpoint 1"),
        "the message names the transaction and the checkpoint: " + e.getMessage());
    assertEquals(List.of(), visibleA(dirA()));
  }

  @Test
  void aRunningCoordinatorStopsWithTransactionLostException() throws Exception {
    FileStateLog log = openLog();
    GatedParticipant<CharSequence> a = new GatedParticipant<>(participantA(), true);
    FileParticipant<Object> b = participantB(dirB(), 64 * 1024);
    Coordinator c = Coordinator.builder(ID, log)
        .participant("a", a)
        .participant("b", b)
        .config(CoordinatorConfig.custom()
            .commitRetryBackoff(Duration.ofMillis(20), Duration.ofMillis(20), 1.0)
            .closeTimeout(Duration.ZERO)
            .build())
        .build();
    toClose.add(c);
    writeBoth(c.output(a), c.output(b), 0, 3);
    dev.twophase.Checkpoint cp = c.checkpoint();
    waitFor(() -> a.blockedCommits.get() > 0);
    for (String f : ownInProgress(dirA())) {
      Files.delete(dirA().resolve(f));
    }
    a.commitsBlocked = false; // the retry finds neither name
    TransactionLostException e = assertThrows(TransactionLostException.class, () -> cp.awaitCommitted(WAIT));
    assertEquals(1, e.checkpointId().orElse(-1));
    assertTrue(e.getMessage().contains(ID + "-a-"), "names the handle: " + e.getMessage());
    waitFor(() -> c.state() == CoordinatorState.FAILED);
  }

  static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("condition not reached within " + WAIT);
      }
      Thread.sleep(5);
    }
  }
}
