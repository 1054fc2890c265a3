package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.internal.StateCodec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StateLog#MAX_STATE_BYTES}: a checkpoint whose state record would be larger fails cleanly,
 * naming the participant, and every state the limit lets through is read back by the next start.
 */
class StateSizeLimitTest {

  @TempDir Path tmp;

  /** Fixed, so that two runs encode records of the same length. */
  private final MutableClock clock = new MutableClock(1_795_982_318_011L);

  /**
   * A participant whose pre-committed handles ({@code "pre:" + name}) its codec pads with
   * {@link #padding} zero bytes, as a codec that puts data into handles would.
   */
  static final class PaddingParticipant implements Participant<String, Void> {
    volatile int padding;
    final List<String> committed = Collections.synchronizedList(new ArrayList<>());
    final List<String> aborted = Collections.synchronizedList(new ArrayList<>());

    @Override
    public Codec<String> transactionCodec() {
      return new Codec<>() {
        @Override
        public int version() {
          return 1;
        }

        @Override
        public byte[] encode(String handle) {
          byte[] name = handle.getBytes(UTF_8);
          int pad = handle.startsWith("pre:") ? padding : 0;
          return Arrays.copyOf(name, name.length + (pad > 0 ? 1 + pad : 0));
        }

        @Override
        public String decode(byte[] bytes, int version) {
          int end = 0;
          while (end < bytes.length && bytes[end] != 0) {
            end++;
          }
          return new String(bytes, 0, end, UTF_8);
        }
      };
    }

    @Override
    public String beginTransaction(TransactionContext<Void> context) {
      return context.transactionName();
    }

    @Override
    public String preCommit(String transaction) {
      return "pre:" + transaction;
    }

    @Override
    public CommitOutcome commit(String transaction) {
      committed.add(transaction);
      return CommitOutcome.COMMITTED;
    }

    @Override
    public void abort(String transaction) {
      aborted.add(transaction);
    }

    @Override
    public AbortOutcome recoverAndAbort(String transaction) {
      aborted.add(transaction);
      return AbortOutcome.NOT_FOUND;
    }
  }

  private Coordinator start(FileStateLog log, PaddingParticipant big) {
    return Coordinator.builder("orders", log)
        .participant("big", big)
        .config(CoordinatorConfig.custom().clock(clock).ticker(clock).build())
        .build();
  }

  @Test
  void aCheckpointOverTheLimitFailsNamingTheParticipantAndTheLogStaysReadable() {
    Path dir = tmp.resolve("log");
    PaddingParticipant big = new PaddingParticipant();
    try (FileStateLog log = FileStateLog.open(dir); Coordinator c = start(log, big)) {
      c.checkpoint().awaitCommitted(java.time.Duration.ofSeconds(30));

      big.padding = 13 * 1024 * 1024; // 17.5 MB as base64
      CheckpointFailedException e = assertThrows(CheckpointFailedException.class, c::checkpoint);
      assertEquals(2, e.checkpointId().orElseThrow());
      assertEquals("big", e.participant().orElseThrow());
      assertEquals(1, e.lastDecidedCheckpointId());
      String m = e.getMessage();
      for (String part : List.of("checkpoint 2 of coordinator 'orders' failed",
          "the state record is too large", "over the limit of 16,777,216 bytes",
          "StateLog.MAX_STATE_BYTES", "participant 'big' takes",
          "the handle pending for checkpoint 2", "13,631," /* the handle's bytes */,
          "Make its handles smaller")) {
        assertTrue(m.contains(part), "missing '" + part + "' in: " + m);
      }
      assertEquals(CoordinatorState.RUNNING, c.state());
      assertTrue(big.aborted.stream().anyMatch(h -> h.startsWith("pre:")),
          "the pre-committed transaction of checkpoint 2 is aborted: " + big.aborted);

      big.padding = 0;
      assertEquals(3, c.checkpoint().id()); // ids are never reused, also those of failed ones
    }
    try (FileStateLog log = FileStateLog.open(dir); Coordinator c = start(log, big)) {
      assertEquals(3, c.lastCheckpointId());
    }
  }

  @Test
  void aStateJustBelowTheLimitIsReadBackAndOneHandleByteMoreFails() {
    // The record's length without the big handle, from a run with a small one.
    int probe = 1000;
    int overhead = stateLengthAfterFirstCheckpoint(tmp.resolve("probe"), probe) - base64(handle(probe));
    // The largest padding that keeps the record within the limit: base64 takes 3 bytes at a time.
    int padding = 3 * ((StateLog.MAX_STATE_BYTES - overhead) / 4) - handle(0);
    int length = stateLengthAfterFirstCheckpoint(tmp.resolve("below"), padding);
    assertTrue(length <= StateLog.MAX_STATE_BYTES && length > StateLog.MAX_STATE_BYTES - 4,
        "a record of " + length + " bytes is just below the limit");

    // Base64 takes 3 bytes at a time: 3 more bytes make the record 4 bytes longer, over the limit.
    PaddingParticipant big = new PaddingParticipant();
    try (FileStateLog log = FileStateLog.open(tmp.resolve("over")); Coordinator c = start(log, big)) {
      big.padding = padding + 3;
      assertThrows(CheckpointFailedException.class, c::checkpoint);
    }
  }

  /** The length of handle bytes with {@code padding}, for the name this test's runs give it. */
  private static int handle(int padding) {
    return "pre:orders-big-xxxxxxxx-1-0".length() + 1 + padding;
  }

  private static int base64(int bytes) {
    return 4 * ((bytes + 2) / 3);
  }

  /**
   * Runs checkpoint 1 with a pre-committed handle of {@code padding}, checks that the next start
   * commits that handle as it was, and returns the length of the state record of checkpoint 1.
   */
  private int stateLengthAfterFirstCheckpoint(Path dir, int padding) {
    PaddingParticipant big = new PaddingParticipant();
    big.padding = padding;
    String handle;
    try (FileStateLog log = FileStateLog.open(dir); Coordinator c = start(log, big)) {
      handle = "pre:" + c.currentTransaction(big);
      assertEquals(handle(0), handle.length() + 1, "the handle name: " + handle);
      assertEquals(1, c.checkpoint().id());
    }
    byte[] state = FileStateLog.inspect(dir).coordinator("orders").orElseThrow()
        .lastState().orElseThrow().payload();
    assertEquals(handle(padding), StateCodec.decode(state, "test").participants().get(0).pending()
        .get(0).handle().length);
    PaddingParticipant again = new PaddingParticipant();
    try (FileStateLog log = FileStateLog.open(dir); Coordinator c = start(log, again)) {
      assertEquals(1, c.lastCheckpointId());
    }
    return state.length;
  }

  /** An application snapshot that makes the record too large is named as such, no participant. */
  @Test
  void anApplicationSnapshotOverTheLimitIsNamed() {
    PaddingParticipant small = new PaddingParticipant();
    String[] snapshot = {"position-1"};
    List<String> restored = new ArrayList<>();
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"));
        Coordinator c = Coordinator.builder("orders", log)
            .participant("small", small)
            .applicationState(ApplicationState.of(Codecs.utf8(), id -> snapshot[0],
                (s, id) -> restored.add(s)))
            .build()) {
      assertEquals(1, c.checkpoint().id());
      snapshot[0] = "x".repeat(13 * 1024 * 1024);
      CheckpointFailedException e = assertThrows(CheckpointFailedException.class, c::checkpoint);
      assertTrue(e.participant().isEmpty(), e.participant().toString());
      assertTrue(e.getMessage().contains("the application snapshot takes 18,"), e.getMessage());
      assertTrue(e.getMessage().contains("make the snapshot smaller"), e.getMessage());
      assertEquals(List.of("position-1"), restored, "restored to checkpoint 1");
      assertEquals(CoordinatorState.RUNNING, c.state());
    }
  }

  /**
   * A state record over Jackson's default limit of 20 million characters for a string, as a release
   * without the limit wrote it (its checkpoint succeeded): the next start reads it and commits it.
   */
  @Test
  void aStateOverJacksonsDefaultStringLimitIsRecovered() {
    Path dir = tmp.resolve("log");
    String name;
    try (FileStateLog log = FileStateLog.open(dir)) {
      name = "pre:" + TransactionNames.name(
          TransactionNames.prefix("orders", "big", log.logId()), log.ownerEpoch(), 0);
      byte[] handle = Arrays.copyOf(name.getBytes(UTF_8), 16_000_000); // 21.3 M characters as base64
      StateCodec.CoordinatorRecord record = new StateCodec.CoordinatorRecord(
          StateCodec.FORMAT, "orders", log.logId(), 1, log.ownerEpoch(), clock.millis(), false,
          List.of(new StateCodec.ParticipantRecord("big", 1, null,
              List.of(new StateCodec.HandleRecord(1, clock.millis(), handle)), null)),
          null);
      try (StateLog.CoordinatorLog view = log.open("orders")) {
        view.appendState(1, StateCodec.encode(record));
      }
    }
    PaddingParticipant big = new PaddingParticipant();
    try (FileStateLog log = FileStateLog.open(dir); Coordinator c = start(log, big)) {
      assertEquals(1, c.lastCheckpointId());
      assertEquals(List.of(name), big.committed);
    }
  }
}
