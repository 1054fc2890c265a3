package dev.twophase.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.TransactionContext;
import dev.twophase.testing.TestContexts;
import java.io.IOException;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The file participant called directly, as the coordinator would: begin, write, pre-commit,
 * commit, abort, and the recovery calls from a new participant instance over the same directory
 * (a new process sees only the handle, encoded and decoded through the participant's codec).
 */
class FileParticipantTest {

  static final String COORDINATOR = "coord";
  static final String PARTICIPANT = "files";
  static final long EPOCH = 7;

  @TempDir Path tmp;

  Path base() {
    return tmp.resolve("out");
  }

  static TransactionContext<Void> context(long sequence) {
    return TestContexts.transaction(COORDINATOR, PARTICIPANT, EPOCH, sequence + 1, sequence);
  }

  static String txnName(long sequence) {
    return TestContexts.transactionName(COORDINATOR, PARTICIPANT, TestContexts.LOG_ID, EPOCH, sequence);
  }

  FileParticipant<CharSequence> lines() {
    return FileParticipant.builder(base(), RecordEncoders.lines()).build();
  }

  static FileTransaction roundTrip(Codec<FileTransaction> codec, FileTransaction t) throws IOException {
    try {
      return codec.decode(codec.encode(t), codec.version());
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  static List<String> records(String prefix, int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> prefix + i).toList();
  }

  // ------------------------------------------------------------------ commit path

  @Test
  void commitMakesFinalPartFilesWithTheRecordsAndLeavesNothingInProgress() throws Exception {
    FileParticipant<CharSequence> p = lines();
    FileTransaction t = p.beginTransaction(context(0));
    for (String r : records("r", 0, 5)) {
      W.write(p, t, r);
    }
    t = p.preCommit(t);
    assertEquals(CommitOutcome.COMMITTED, p.commit(t));

    assertEquals(List.of("part-" + txnName(0) + "-0"), Dirs.committed(base()));
    assertEquals(records("r", 0, 5), Dirs.committedLines(base()));
    assertEquals(List.of(), Dirs.inProgress(base()));
    assertEquals(Dirs.committed(base()), Dirs.allFiles(base()), "nothing but the committed part");
    assertEquals(base().resolve("part-" + txnName(0) + "-0"), p.committedFile(t, t.parts().get(0)));
    // Again: nothing to do, and it says so.
    assertEquals(CommitOutcome.ALREADY_COMMITTED, p.commit(t));
    assertEquals(records("r", 0, 5), Dirs.committedLines(base()));
  }

  @Test
  void aParticipantRefusesToBeginOrRecoverAfterClose() throws Exception {
    FileParticipant<CharSequence> p = lines();
    p.close();
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, () -> p.beginTransaction(context(0)));
    assertTrue(e.getMessage().contains("beginTransaction on FileParticipant[" + base() + "] after close()"),
        e.getMessage());
    assertTrue(e.getMessage().contains("build a new participant"), e.getMessage());
    assertThrows(FatalTwoPhaseException.class,
        () -> p.startRecovery(TestContexts.participant(COORDINATOR, PARTICIPANT, EPOCH)));
    assertEquals(List.of(), Dirs.allFiles(base()), "nothing created, nothing claimed");
  }

  @Test
  void suffixEndsBothNames() throws Exception {
    FileParticipant<CharSequence> p =
        FileParticipant.builder(base(), RecordEncoders.lines()).suffix(".txt").build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "x");
    t = p.preCommit(t);
    assertEquals(List.of("." + "part-" + txnName(0) + "-0.txt.inprogress"), Dirs.inProgress(base()));
    p.commit(t);
    assertEquals(List.of("part-" + txnName(0) + "-0.txt"), Dirs.allFiles(base()));
  }

  @Test
  void nothingIsVisibleBeforeCommit() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines()).maxPartRecords(2).build();
    FileTransaction t = p.beginTransaction(context(0));
    for (String r : records("r", 0, 5)) {
      W.write(p, t, r);
      assertEquals(List.of(), Dirs.committed(base()), "visible while writing");
    }
    t = p.preCommit(t);
    assertEquals(List.of(), Dirs.committed(base()), "visible after pre-commit");
    assertEquals(3, Dirs.inProgress(base()).size());
    p.commit(t);
    assertEquals(records("r", 0, 5), Dirs.committedLines(base()));
  }

  @Test
  void preCommitMakesTheDataDurableUnderTheInProgressName() throws Exception {
    FileParticipant<CharSequence> p = lines(); // 64 KiB buffer: the records stay in memory until pre-commit
    FileTransaction t = p.beginTransaction(context(0));
    List<String> written = records("durable-", 0, 100);
    for (String r : written) {
      W.write(p, t, r);
    }
    t = p.preCommit(t);

    String inProgress = "." + "part-" + txnName(0) + "-0.inprogress";
    assertEquals(List.of(inProgress), Dirs.inProgress(base()));
    assertEquals(written, Dirs.readLines(base().resolve(inProgress)),
        "after pre-commit the in-progress file must hold every record");
    assertEquals(List.of(new FileTransaction.Part("", 0)), t.parts());
    // A new process can commit it from the handle alone.
    FileParticipant<CharSequence> next = lines();
    assertEquals(CommitOutcome.COMMITTED, next.recoverAndCommit(roundTrip(next.transactionCodec(), t)));
    assertEquals(written, Dirs.committedLines(base()));
  }

  @Test
  void rollsByRecordCountAndCommitsAllPartsTogether() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines()).maxPartRecords(3).build();
    FileTransaction t = p.beginTransaction(context(0));
    for (String r : records("r", 0, 10)) {
      W.write(p, t, r);
    }
    t = p.preCommit(t);
    assertEquals(4, t.parts().size());
    assertEquals(List.of(), Dirs.committed(base()));
    p.commit(t);

    List<String> files = Dirs.committed(base());
    assertEquals(4, files.size(), files.toString());
    for (int i = 0; i < 4; i++) {
      Path f = base().resolve("part-" + txnName(0) + "-" + i);
      assertEquals(records("r", 3 * i, Math.min(10, 3 * i + 3)), Dirs.readLines(f), f.toString());
    }
    assertEquals(List.of(), Dirs.inProgress(base()));
  }

  @Test
  void rollsByByteSizeAndARecordBiggerThanAPartGoesAlone() throws Exception {
    // "rNN\n" is 4 bytes: three fit in 12 bytes, a fourth would exceed it.
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines()).maxPartBytes(12).build();
    FileTransaction t = p.beginTransaction(context(0));
    List<String> in = new ArrayList<>(records("r", 10, 17));
    in.add(3, "a-record-much-longer-than-twelve-bytes");
    for (String r : in) {
      W.write(p, t, r);
    }
    t = p.preCommit(t);
    p.commit(t);

    List<List<String>> parts = new ArrayList<>();
    for (int i = 0; i < t.parts().size(); i++) {
      parts.add(Dirs.readLines(base().resolve("part-" + txnName(0) + "-" + i)));
    }
    assertEquals(List.of(
        List.of("r10", "r11", "r12"),
        List.of("a-record-much-longer-than-twelve-bytes"),
        List.of("r13", "r14", "r15"),
        List.of("r16")), parts);
    for (int i = 0; i < parts.size(); i++) {
      long size = Files.size(base().resolve("part-" + txnName(0) + "-" + i));
      assertTrue(size <= 12 || parts.get(i).size() == 1, "part " + i + " has " + size + " bytes");
    }
  }

  @Test
  void bucketsAreSubDirectoriesAndRollIndependently() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .maxPartRecords(2)
        .bucketAssigner(r -> r.charAt(0) == 'a' ? "2026-11-29/a" : r.charAt(0) == 'b' ? "b" : "")
        .build();
    FileTransaction t = p.beginTransaction(context(0));
    for (String r : List.of("a1", "b1", "c1", "a2", "a3", "b2", "c2", "c3")) {
      W.write(p, t, r);
    }
    t = p.preCommit(t);
    p.commit(t);

    String n = txnName(0);
    assertEquals(List.of(
        "2026-11-29/a/part-" + n + "-0",
        "2026-11-29/a/part-" + n + "-3",
        "b/part-" + n + "-1",
        "part-" + n + "-2",
        "part-" + n + "-4"), Dirs.allFiles(base()));
    assertEquals(List.of("a1", "a2"), Dirs.readLines(base().resolve("2026-11-29/a/part-" + n + "-0")));
    assertEquals(List.of("a3"), Dirs.readLines(base().resolve("2026-11-29/a/part-" + n + "-3")));
    assertEquals(List.of("b1", "b2"), Dirs.readLines(base().resolve("b/part-" + n + "-1")));
    assertEquals(List.of("c1", "c2"), Dirs.readLines(base().resolve("part-" + n + "-2")));
    assertEquals(List.of("c3"), Dirs.readLines(base().resolve("part-" + n + "-4")));
    assertEquals(new FileTransaction.Part("2026-11-29/a", 0), t.parts().get(0));
  }

  static Stream<Arguments> badBuckets() {
    return Stream.of(
        Arguments.of(".."), Arguments.of("../escape"), Arguments.of("a/../../escape"), Arguments.of("a/.."),
        Arguments.of("/abs"), Arguments.of("/"), Arguments.of("a//b"), Arguments.of("a/"), Arguments.of("./a"),
        Arguments.of("a\\b"), Arguments.of("..\\escape"), Arguments.of("C:x"), Arguments.of("a\0b"),
        Arguments.of((Object) null));
  }

  @ParameterizedTest(name = "bucket [{0}]")
  @MethodSource("badBuckets")
  void aBucketOutsideTheBaseIsRefusedAndTheTransactionStaysUsable(String bucket) throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .bucketAssigner(r -> r.toString().equals("bad") ? bucket : "ok")
        .build();
    FileTransaction t = p.beginTransaction(context(0));
    FileTransaction t0 = t;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> W.write(p, t0, "bad"));
    String expected = bucket == null ? "null" : "'" + bucket + "'";
    assertTrue(e.getMessage().contains(expected), "the message should name the bucket " + expected + ": " + e.getMessage());
    assertEquals(List.of(), Dirs.allFiles(tmp), "nothing may be written for a refused bucket");
    try (Stream<Path> all = Files.walk(tmp)) {
      assertEquals(List.of(tmp, base()), all.toList(), "no directory may be created for a refused bucket");
    }
    assertEquals(List.of(), t.parts());

    W.write(p, t, "good");
    t = p.preCommit(t);
    assertEquals(CommitOutcome.COMMITTED, p.commit(t));
    assertEquals(List.of("ok/part-" + txnName(0) + "-0"), Dirs.allFiles(base()));
    assertEquals(List.of("good"), Dirs.committedLines(base()));
  }

  // ------------------------------------------------------------------ encoders

  @ParameterizedTest
  @ValueSource(strings = {"two\nlines", "carriage\rreturn", "windows\r\n", "\n"})
  void linesRefusesALineBreakAndTheTransactionStaysUsable(String record) throws Exception {
    FileParticipant<CharSequence> p = lines();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "before");
    FileTransaction t0 = t;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> W.write(p, t0, record));
    assertTrue(e.getMessage().contains("line break"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "the message shows the record escaped: " + e.getMessage());
    W.write(p, t, "after");
    t = p.preCommit(t);
    p.commit(t);
    assertEquals(List.of("before", "after"), Dirs.committedLines(base()));
  }

  @Test
  void linesWritesUtf8() throws Exception {
    FileParticipant<CharSequence> p = lines();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "grüße ✓");
    W.write(p, t, CharBuffer.wrap("builder")); // a CharSequence that is no String
    W.write(p, t, "");
    t = p.preCommit(t);
    p.commit(t);
    assertArrayEquals("grüße ✓\nbuilder\n\n".getBytes(StandardCharsets.UTF_8),
        Files.readAllBytes(base().resolve("part-" + txnName(0) + "-0")));
  }

  /** A JSON record. */
  public record Item(long n, String text) {}

  /** Serialising it throws: its only property's getter fails. */
  public static final class Exploding {
    @SuppressWarnings("DoNotCallSuggester") // Jackson calls it, to fail
    public String getValue() {
      throw new IllegalStateException("boom from getValue");
    }
  }

  /** Refers to itself. */
  public static final class SelfRef {
    public SelfRef getSelf() {
      return this;
    }
  }

  /** A cycle through another object. */
  public static final class Ping {
    public Pong pong;
  }

  /** The other half of the cycle. */
  public static final class Pong {
    public Ping ping;
  }

  @Test
  void jsonLinesWritesOneDocumentPerLine() throws Exception {
    FileParticipant<Object> p = FileParticipant.builder(base(), RecordEncoders.jsonLines()).build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, new Item(1, "plain"));
    W.write(p, t, new Item(2, "with\na line break and \"quotes\""));
    W.write(p, t, Map.of("k", List.of(1, 2)));
    W.write(p, t, "just a string");
    t = p.preCommit(t);
    p.commit(t);

    List<String> lines = Dirs.committedLines(base());
    assertEquals(4, lines.size(), lines.toString());
    ObjectMapper m = new ObjectMapper();
    assertEquals(new Item(1, "plain"), m.readValue(lines.get(0), Item.class));
    assertEquals(new Item(2, "with\na line break and \"quotes\""), m.readValue(lines.get(1), Item.class));
    JsonNode map = m.readTree(lines.get(2));
    assertEquals(2, map.get("k").size());
    assertEquals("just a string", m.readValue(lines.get(3), String.class));
  }

  static Stream<Arguments> unserialisable() {
    Ping ping = new Ping();
    ping.pong = new Pong();
    ping.pong.ping = ping;
    return Stream.of(
        Arguments.of(new Exploding(), Exploding.class.getName()),
        Arguments.of(new SelfRef(), SelfRef.class.getName()),
        Arguments.of(ping, Ping.class.getName()));
  }

  @ParameterizedTest
  @MethodSource("unserialisable")
  void jsonLinesRefusesAnUnserialisableRecordAndTheTransactionStaysUsable(Object bad, String className) throws Exception {
    FileParticipant<Object> p = FileParticipant.builder(base(), RecordEncoders.jsonLines()).build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, new Item(1, "before"));
    FileTransaction t0 = t;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> W.write(p, t0, bad));
    assertTrue(e.getMessage().contains("cannot be written as JSON") && e.getMessage().contains(className),
        "a clear message naming the class: " + e.getMessage());
    W.write(p, t, new Item(2, "after"));
    t = p.preCommit(t);
    p.commit(t);
    ObjectMapper m = new ObjectMapper();
    List<Item> items = new ArrayList<>();
    for (String line : Dirs.committedLines(base())) {
      items.add(m.readValue(line, Item.class));
    }
    assertEquals(List.of(new Item(1, "before"), new Item(2, "after")), items);
  }

  @Test
  void explodingGetterMessageCarriesTheReason() throws Exception {
    FileParticipant<Object> p = FileParticipant.builder(base(), RecordEncoders.jsonLines()).build();
    FileTransaction t = p.beginTransaction(context(0));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> W.write(p, t, new Exploding()));
    assertTrue(e.getMessage().contains("boom from getValue"), e.getMessage());
  }

  @Test
  void bytesAreWrittenAsTheyAre() throws Exception {
    FileParticipant<byte[]> p = FileParticipant.builder(base(), RecordEncoders.bytes()).build();
    FileTransaction t = p.beginTransaction(context(0));
    byte[] a = {0, 1, 2, (byte) 0xff, '\n'};
    byte[] b = new byte[70_000]; // bigger than the write buffer
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (i * 31);
    }
    W.write(p, t, a);
    W.write(p, t, new byte[0]);
    W.write(p, t, b);
    t = p.preCommit(t);
    p.commit(t);
    byte[] expected = new byte[a.length + b.length];
    System.arraycopy(a, 0, expected, 0, a.length);
    System.arraycopy(b, 0, expected, a.length, b.length);
    assertArrayEquals(expected, Files.readAllBytes(base().resolve("part-" + txnName(0) + "-0")));
  }

  @Test
  void anEncoderThatFailsHalfwayLeavesNoHalfRecord() throws Exception {
    RecordEncoder<String> halfway = (r, out) -> {
      out.write(r.getBytes(StandardCharsets.UTF_8));
      if (r.startsWith("bad")) {
        throw new IOException("gave up after writing part of " + r);
      }
      out.write('\n');
    };
    FileParticipant<String> p = FileParticipant.builder(base(), halfway).build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "one");
    FileTransaction t0 = t;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> W.write(p, t0, "bad-record"));
    assertTrue(e.getMessage().contains("gave up after writing part of bad-record"), e.getMessage());
    W.write(p, t, "two");
    t = p.preCommit(t);
    p.commit(t);
    assertEquals(List.of("one", "two"), Dirs.committedLines(base()));
  }

  @Test
  void aNullRecordIsRefused() throws Exception {
    FileParticipant<CharSequence> p = lines();
    FileTransaction t = p.beginTransaction(context(0));
    FileTransaction t0 = t;
    assertThrows(NullPointerException.class, () -> W.write(p, t0, null));
    assertEquals(List.of(), Dirs.allFiles(base()));
    W.write(p, t, "fine");
    t = p.preCommit(t);
    p.commit(t);
    assertEquals(List.of("fine"), Dirs.committedLines(base()));
  }

  // ------------------------------------------------------------------ protocol violations, abort

  @Test
  void writeAfterPreCommitAndCommitBeforePreCommitAreProtocolViolations() throws Exception {
    FileParticipant<CharSequence> p = lines();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "x");
    FileTransaction t0 = t;
    assertThrows(FatalTwoPhaseException.class, () -> p.commit(t0));
    assertEquals(List.of(), Dirs.committed(base()));
    t = p.preCommit(t);
    FileTransaction t1 = t;
    assertThrows(FatalTwoPhaseException.class, () -> W.write(p, t1, "late"));
    p.beginTransaction(context(1));
    assertThrows(FatalTwoPhaseException.class, () -> p.beginTransaction(context(1)), "a name begun twice");
  }

  /** A writer kept across the pre-commit (or the abort) writes nothing: no part appears late. */
  @Test
  void aWriterKeptAcrossThePreCommitOrAbortRefusesRecords() throws Exception {
    FileParticipant<CharSequence> p = lines();
    FileTransaction t = p.beginTransaction(context(0));
    dev.twophase.RecordWriter<CharSequence> kept = p.writerFor(t);
    kept.write("x");
    FileTransaction prepared = p.preCommit(t);
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, () -> kept.write("late"));
    assertTrue(e.getMessage().contains("pre-committed") && e.getMessage().contains(t.name()), e.getMessage());
    assertEquals(CommitOutcome.COMMITTED, p.commit(prepared));
    assertEquals(List.of("x"), Dirs.committedLines(base()));
    assertEquals(Dirs.committed(base()), Dirs.allFiles(base()), "no part was created by the late write");

    FileTransaction aborted = p.beginTransaction(context(1));
    dev.twophase.RecordWriter<CharSequence> keptToo = p.writerFor(aborted);
    p.abort(aborted);
    assertThrows(FatalTwoPhaseException.class, () -> keptToo.write("after the abort"));
    assertEquals(Dirs.committed(base()), Dirs.allFiles(base()));
  }

  @Test
  void abortDeletesTheInProgressPartsOnly() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .maxPartRecords(1).bucketAssigner(r -> r.toString().startsWith("b") ? "bucket" : "").build();
    FileTransaction done = p.beginTransaction(context(0));
    W.write(p, done, "committed");
    done = p.preCommit(done);
    p.commit(done);

    FileTransaction open = p.beginTransaction(context(1));
    W.write(p, open, "a1");
    W.write(p, open, "b1");
    W.write(p, open, "a2");
    assertEquals(3, Dirs.inProgress(base()).size());
    p.abort(open);
    assertEquals(List.of(), Dirs.inProgress(base()));
    assertEquals(List.of("committed"), Dirs.committedLines(base()));

    // Pre-committed, then aborted (a later participant's pre-commit failed).
    FileTransaction prepared = p.beginTransaction(context(2));
    W.write(p, prepared, "b2");
    prepared = p.preCommit(prepared);
    p.abort(prepared);
    p.abort(prepared); // again: harmless
    assertEquals(List.of(), Dirs.inProgress(base()));
    // Aborting a committed transaction leaves it alone.
    p.abort(done);
    assertEquals(List.of("committed"), Dirs.committedLines(base()));
  }

  // ------------------------------------------------------------------ recovery

  @Test
  void recoverAndCommitFromAHandleInANewProcess() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .maxPartRecords(2).bucketAssigner(r -> r.toString().startsWith("b") ? "b/c" : "").suffix(".log").build();
    FileTransaction t = p.beginTransaction(context(0));
    for (String r : List.of("a1", "b1", "a2", "b2", "a3")) {
      W.write(p, t, r);
    }
    t = p.preCommit(t);
    byte[] logged = p.transactionCodec().encode(t);
    p.close(); // the process dies; only the handle survives

    FileParticipant<CharSequence> q = FileParticipant.builder(base(), RecordEncoders.lines())
        .maxPartRecords(2).suffix(".log").build();
    FileTransaction h = q.transactionCodec().decode(logged, q.transactionCodec().version());
    assertEquals(t.parts(), h.parts());
    assertEquals(CommitOutcome.COMMITTED, q.recoverAndCommit(h));
    assertEquals(List.of(), Dirs.inProgress(base()));
    assertEquals(List.of("b/c/part-" + txnName(0) + "-1.log", "part-" + txnName(0) + "-0.log",
        "part-" + txnName(0) + "-2.log"), Dirs.allFiles(base()));
    assertEquals(CommitOutcome.ALREADY_COMMITTED, q.recoverAndCommit(h));
    FileParticipant<CharSequence> third = FileParticipant.builder(base(), RecordEncoders.lines()).suffix(".log").build();
    assertEquals(CommitOutcome.ALREADY_COMMITTED, third.recoverAndCommit(h));
    assertEquals(5, Dirs.committedLines(base()).size());
  }

  @Test
  void recoverAndCommitReportsLostWhenNeitherNameExists() throws Exception {
    FileParticipant<CharSequence> p = lines();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "x");
    t = p.preCommit(t);
    for (String f : Dirs.inProgress(base())) {
      Files.delete(base().resolve(f)); // an operator's cleanup job
    }
    FileParticipant<CharSequence> q = lines();
    assertEquals(CommitOutcome.LOST, q.recoverAndCommit(roundTrip(q.transactionCodec(), t)));
    assertEquals(List.of(), Dirs.allFiles(base()));
  }

  @Test
  void recoverAndCommitReportsLostWhenOnlyOnePartIsMissing() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines()).maxPartRecords(1).build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "x");
    W.write(p, t, "y");
    t = p.preCommit(t);
    Files.delete(base().resolve("." + "part-" + txnName(0) + "-1.inprogress"));
    FileParticipant<CharSequence> q = lines();
    assertEquals(CommitOutcome.LOST, q.recoverAndCommit(roundTrip(q.transactionCodec(), t)));
  }

  @Test
  void recoverAndCommitFinishesAPartiallyCommittedTransaction() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .maxPartRecords(1).bucketAssigner(r -> r.toString().startsWith("b") ? "b" : "").build();
    FileTransaction t = p.beginTransaction(context(0));
    for (String r : List.of("a0", "b1", "a2", "b3")) {
      W.write(p, t, r);
    }
    t = p.preCommit(t);
    // A crash between the renames of part 1 and part 2: 0 and 1 final, 2 and 3 in progress.
    String n = txnName(0);
    Files.move(base().resolve(".part-" + n + "-0.inprogress"), base().resolve("part-" + n + "-0"));
    Files.move(base().resolve("b/.part-" + n + "-1.inprogress"), base().resolve("b/part-" + n + "-1"));

    FileParticipant<CharSequence> q = lines();
    assertEquals(CommitOutcome.COMMITTED, q.recoverAndCommit(roundTrip(q.transactionCodec(), t)));
    assertEquals(List.of("b/part-" + n + "-1", "b/part-" + n + "-3", "part-" + n + "-0", "part-" + n + "-2"),
        Dirs.allFiles(base()));
    assertEquals(List.of("b1", "b3", "a0", "a2"), Dirs.committedLines(base()));
    assertEquals(CommitOutcome.ALREADY_COMMITTED, q.recoverAndCommit(roundTrip(q.transactionCodec(), t)));
  }

  @Test
  void recoverAndAbortOfAHandleLoggedBeforeAnyWriteDeletesThatTransactionsFiles() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .maxPartRecords(1).bucketAssigner(r -> r.toString().startsWith("b") ? "deep/b" : "").build();
    FileTransaction t = p.beginTransaction(context(3));
    byte[] loggedAtBegin = p.transactionCodec().encode(t); // what the log holds: no parts yet
    FileTransaction sibling = p.beginTransaction(context(4));
    for (String r : List.of("a1", "b1", "a2")) {
      W.write(p, t, r);
    }
    W.write(p, sibling, "sibling");
    assertEquals(4, Dirs.inProgress(base()).size());
    // crash

    FileParticipant<CharSequence> q = lines();
    FileTransaction h = q.transactionCodec().decode(loggedAtBegin, q.transactionCodec().version());
    assertEquals(List.of(), h.parts());
    q.recoverAndAbort(h);
    assertEquals(List.of(".part-" + txnName(4) + "-0.inprogress"), Dirs.inProgress(base()),
        "only the aborted transaction's files go");
    q.recoverAndAbort(h); // again: harmless
    // A handle the resource never saw.
    q.recoverAndAbort(roundTrip(q.transactionCodec(), lines().beginTransaction(context(99))));
    assertEquals(1, Dirs.inProgress(base()).size());
  }

  @Test
  void startUpCleanupDeletesOnlyThisCoordinatorsAndParticipantsUnhandledInProgressFiles() throws Exception {
    FileParticipant<CharSequence> before = FileParticipant.builder(base(), RecordEncoders.lines())
        .suffix(".txt").bucketAssigner(r -> r.toString().startsWith("b") ? "b" : "").build();
    // Ours, begun after the last durable record (in two directories): to delete.
    FileTransaction lost = before.beginTransaction(context(10));
    W.write(before, lost, "a-lost");
    W.write(before, lost, "b-lost");
    // Ours, handled by this recovery (the coordinator committed or aborted it): leave alone.
    FileTransaction handled = before.beginTransaction(context(11));
    W.write(before, handled, "a-handled");
    // Ours, committed earlier: final files are never touched.
    FileTransaction done = before.beginTransaction(context(12));
    W.write(before, done, "b-done");
    done = before.preCommit(done);
    before.commit(done);
    // Ours, an earlier incarnation (epoch 3): ours too, to delete.
    FileTransaction older = before.beginTransaction(TestContexts.transaction(COORDINATOR, PARTICIPANT, 3, 1, 0));
    W.write(before, older, "a-older");
    // Another coordinator's and another participant's in-progress files in the same directories.
    FileParticipant<CharSequence> other = FileParticipant.builder(base(), RecordEncoders.lines())
        .suffix(".txt").bucketAssigner(r -> r.toString().startsWith("b") ? "b" : "").build();
    FileTransaction otherCoordinator = other.beginTransaction(TestContexts.transaction("coord2", PARTICIPANT, EPOCH, 1, 10));
    W.write(other, otherCoordinator, "a-other-coordinator");
    W.write(other, otherCoordinator, "b-other-coordinator");
    FileTransaction otherParticipant = other.beginTransaction(TestContexts.transaction(COORDINATOR, "files2", EPOCH, 1, 10));
    W.write(other, otherParticipant, "b-other-participant");
    // Same coordinator and participant names, foreign suffix and unrelated hidden files: not ours.
    Files.writeString(base().resolve(".part-" + txnName(13) + "-0.inprogress"), "other suffix");
    Files.writeString(base().resolve(".part-" + txnName(13) + "-x.txt.inprogress"), "not an index");
    Files.writeString(base().resolve("notes.txt"), "unrelated");
    before.close();
    other.close();
    List<String> all = Dirs.allFiles(base());

    FileParticipant<CharSequence> after = FileParticipant.builder(base(), RecordEncoders.lines()).suffix(".txt").build();
    after.finishRecoveringContext(TestContexts.recovery(COORDINATOR, PARTICIPANT, EPOCH + 1,
        List.of(roundTrip(after.transactionCodec(), handled)), 5));

    List<String> deleted = new ArrayList<>(all);
    deleted.removeAll(Dirs.allFiles(base()));
    assertEquals(List.of(
        ".part-" + txnName(10) + "-0.txt.inprogress",
        ".part-" + TestContexts.transactionName(COORDINATOR, PARTICIPANT, TestContexts.LOG_ID, 3, 0) + "-0.txt.inprogress",
        "b/.part-" + txnName(10) + "-1.txt.inprogress").stream().sorted().toList(), deleted.stream().sorted().toList());
    assertEquals(List.of("b/part-" + txnName(12) + "-0.txt"), Dirs.committed(base()));
    // And once more: nothing else goes.
    List<String> left = Dirs.allFiles(base());
    after.finishRecoveringContext(TestContexts.recovery(COORDINATOR, PARTICIPANT, EPOCH + 2, List.of(), 5));
    List<String> second = new ArrayList<>(left);
    second.removeAll(Dirs.allFiles(base()));
    assertEquals(List.of(".part-" + txnName(11) + "-0.txt.inprogress"), second,
        "without the handle, the formerly handled transaction is a leftover too");
  }

  /**
   * A transaction name too long for a part file's name is shortened by core's rule; the recovery
   * context still takes it for this participant's, and so does it a name in full from before the
   * rule applied (a long name whose files fitted 255 bytes with a one-digit index).
   */
  @Test
  void aNameTooLongForAFileIsShortenedAndBothFormsAreSweptAsOwn() throws Exception {
    String id = "x".repeat(100);
    String participant = "y".repeat(100);
    String log = "z".repeat(100);
    long epoch = Long.MAX_VALUE - 1;
    FileParticipant<CharSequence> before = FileParticipant.builder(base(), RecordEncoders.lines()).suffix(".txt").build();
    FileTransaction handled = before.beginTransaction(TestContexts.transaction(id, participant, log, epoch, 1, Long.MAX_VALUE - 2, null));
    FileTransaction lost = before.beginTransaction(TestContexts.transaction(id, participant, log, epoch, 2, Long.MAX_VALUE - 1, null));
    W.write(before, handled, "handled");
    W.write(before, lost, "lost");
    assertTrue(handled.name().startsWith("~"), handled.name());
    String prefix = TestContexts.transaction(id, participant, log, epoch, 1, 0, null).transactionNamePrefix();
    String inFull = prefix + "1234567890123456789-123456789012345"; // 230 characters, longer than the rule's limit
    assertEquals(230, inFull.length());
    Files.writeString(base().resolve(".part-" + inFull + "-0.txt.inprogress"), "written before the rule applied");
    String otherPrefix = TestContexts.transaction(id + "2", participant, log, epoch, 1, 0, null).transactionNamePrefix();
    String others = dev.twophase.TransactionNames.shorten(otherPrefix, otherPrefix + "1-1", 64);
    Files.writeString(base().resolve(".part-" + others + "-0.txt.inprogress"), "another coordinator's");
    for (String file : Dirs.inProgress(base())) {
      assertTrue(file.getBytes(StandardCharsets.UTF_8).length <= 255, file);
    }
    before.close();

    FileParticipant<CharSequence> after = FileParticipant.builder(base(), RecordEncoders.lines()).suffix(".txt").build();
    after.finishRecoveringContext(TestContexts.recovery(id, participant, log, epoch + 1,
        List.of(roundTrip(after.transactionCodec(), handled)), null, 1));
    assertEquals(List.of(".part-" + handled.name() + "-0.txt.inprogress", ".part-" + others + "-0.txt.inprogress")
        .stream().sorted().toList(), Dirs.inProgress(base()));
    FileTransaction committed = after.preCommit(after.beginTransaction(
        TestContexts.transaction(id, participant, log, epoch + 1, 3, Long.MAX_VALUE, null)));
    assertEquals(CommitOutcome.COMMITTED, after.commit(committed));
  }

  @Test
  void aSuffixThatLeavesNoRoomForANameIsNamedWhenANameDoesNotFit() throws Exception {
    String suffix = "s".repeat(200);
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines()).suffix(suffix).build();
    FileTransaction fits = p.beginTransaction(context(0));
    assertEquals(txnName(0), fits.name(), "a short name fits beside a long suffix");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> p.beginTransaction(TestContexts.transaction("c".repeat(60), PARTICIPANT, 1234567, 1, 1234567)));
    assertTrue(e.getMessage().contains("suffix '" + suffix + "'"), e.getMessage());
  }

  // ------------------------------------------------------------------ builder

  @Test
  void builderNamesTheSettingItRefuses() {
    FileParticipant.Builder<CharSequence> b = FileParticipant.builder(base(), RecordEncoders.lines());
    assertMessage("maxPartBytes", () -> b.maxPartBytes(0));
    assertMessage("maxPartBytes", () -> b.maxPartBytes(-5));
    assertMessage("maxPartRecords", () -> b.maxPartRecords(0));
    assertMessage("bufferBytes", () -> b.bufferBytes(511));
    assertMessage("suffix", () -> b.suffix("/x"));
    assertMessage("suffix", () -> b.suffix("a\\b"));
    assertMessage("suffix", () -> b.suffix(".."));
    assertMessage("suffix", () -> b.suffix("a\0"));
    NullPointerException npe = assertThrows(NullPointerException.class, () -> b.suffix(null));
    assertTrue(String.valueOf(npe.getMessage()).contains("suffix"), npe.getMessage());
    npe = assertThrows(NullPointerException.class, () -> FileParticipant.builder(base(), null));
    assertTrue(String.valueOf(npe.getMessage()).contains("encoder"), npe.getMessage());
    // The accepted edge values.
    b.maxPartBytes(1).maxPartRecords(1).bufferBytes(512).suffix(".csv.gz");
  }

  @Test
  void aBaseThatIsAFileIsRefused() throws IOException {
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FileParticipant.builder(file, RecordEncoders.lines()).build());
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
  }

  private static void assertMessage(String setting, org.junit.jupiter.api.function.Executable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    assertTrue(e.getMessage().contains(setting), "message should name " + setting + ": " + e.getMessage());
  }

  /**
   * Handles are values: the one begin returns names no parts (also after writes), the one
   * pre-commit returns names every part, and both survive the codec equal.
   */
  @Test
  void handlesAreValues() throws Exception {
    FileParticipant<CharSequence> p = lines();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "x");
    assertEquals(List.of(), t.parts(), "the begun handle is not changed by writes");
    FileTransaction decoded = roundTrip(p.transactionCodec(), t);
    assertEquals(t, decoded);
    assertEquals(t.hashCode(), decoded.hashCode());
    assertEquals(t.begunAtMillis(), decoded.begunAtMillis());
    assertNotEquals(t, p.beginTransaction(context(1)));
    FileTransaction prepared = p.preCommit(t);
    assertEquals(List.of(new FileTransaction.Part("", 0)), prepared.parts());
    assertEquals(t.name(), prepared.name());
    assertNotEquals(t, prepared);
    assertEquals(prepared, roundTrip(p.transactionCodec(), prepared));
    assertThrows(IOException.class, () -> p.transactionCodec().decode("{}".getBytes(StandardCharsets.UTF_8), 1));
    assertThrows(IOException.class, () -> p.transactionCodec().decode(p.transactionCodec().encode(t), 2));
  }
}
