package dev.twophase.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.Participant;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The state of one conformance test: its coordinator id, the manual coordinators and simulated
 * processes it made, the records it numbered, what the resource held before it began, and the
 * directories it created. Set up and torn down around every test by
 * {@link ParticipantConformanceSuite}.
 */
final class SuiteFixture<TXN, CONTEXT, IN> {

  private final ParticipantConformanceSuite<TXN, CONTEXT, IN> suite;
  private final Map<String, ManualCoordinator<TXN, CONTEXT>> coordinators = new LinkedHashMap<>();
  private final List<SimulatedProcess> processes = new ArrayList<>();
  private final List<Path> directories = new ArrayList<>();
  private String coordinatorId;
  private List<IN> baseline;
  private int nextRecord;

  SuiteFixture(ParticipantConformanceSuite<TXN, CONTEXT, IN> suite) {
    this.suite = suite;
  }

  void setUp(String coordinatorId) throws Exception {
    this.coordinatorId = coordinatorId;
    nextRecord = 0;
    coordinators.clear();
    processes.clear();
    directories.clear();
    baseline = null;
    suite.setUpResource();
  }

  /**
   * A new participant of the suite in {@code process}. The first one of a test also fixes the
   * baseline: the resource is read only once a participant exists, so that a participant that
   * creates its tables or topics in its constructor is not read before they are there. Nothing can
   * have committed before the first participant, so the baseline is the same as at set-up.
   */
  Participant<TXN, CONTEXT> newParticipant(SimulatedProcess process) throws Exception {
    Participant<TXN, CONTEXT> participant = suite.newParticipant(process);
    if (participant == null) {
      throw new AssertionError("newParticipant(process) returned null");
    }
    readBaselineOnce();
    return participant;
  }

  private void readBaselineOnce() throws Exception {
    if (baseline == null) {
      List<IN> before = suite.committedRecords();
      assertNotNull(before, "committedRecords() returned null");
      baseline = List.copyOf(before);
    }
  }

  /**
   * Ends every incarnation and process of the test (a failing {@code close()} is remembered),
   * deletes its directories, then tears the resource down; rethrows the first failure.
   */
  void tearDown() throws Exception {
    Exception failure = null;
    try {
      for (ManualCoordinator<TXN, CONTEXT> coordinator : coordinators.values()) {
        try {
          coordinator.close();
        } catch (Exception e) {
          failure = first(failure, e);
        }
      }
      for (SimulatedProcess process : processes) {
        try {
          process.exit();
        } catch (Exception e) {
          failure = first(failure, e);
        }
      }
      for (Path dir : directories) {
        try {
          deleteRecursively(dir);
        } catch (IOException e) {
          failure = first(failure, e);
        }
      }
    } finally {
      coordinators.clear();
      processes.clear();
      directories.clear();
      suite.tearDownResource();
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static Exception first(Exception failure, Exception e) {
    if (failure == null) {
      return e;
    }
    failure.addSuppressed(e);
    return failure;
  }

  /** This test's coordinator id. */
  String coordinatorId() {
    return coordinatorId;
  }

  /** The manual coordinator of {@code id} and {@code participantName} in this test. */
  ManualCoordinator<TXN, CONTEXT> coordinator(String id, String participantName) {
    return coordinators.computeIfAbsent(id + '\u0000' + participantName,
        k -> new ManualCoordinator<>(id, participantName, this::newParticipant));
  }

  /** A simulated process that the test drives itself; ended at tear-down. */
  SimulatedProcess newProcess(String name) {
    SimulatedProcess process = new SimulatedProcess(name);
    processes.add(process);
    return process;
  }

  /** A new empty directory, deleted at tear-down. */
  Path newDirectory(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    directories.add(dir);
    return dir;
  }

  /** The incarnation whose participant is {@code participant} (by identity). */
  Incarnation<TXN, CONTEXT> incarnationOf(Participant<TXN, CONTEXT> participant) {
    for (ManualCoordinator<TXN, CONTEXT> coordinator : coordinators.values()) {
      for (Incarnation<TXN, CONTEXT> incarnation : coordinator.incarnations()) {
        if (incarnation.participant() == participant) {
          return incarnation;
        }
      }
    }
    throw new IllegalStateException("the participant " + participant + " was not made by this test");
  }

  /** The next test record: {@code record(0)}, {@code record(1)}, ... */
  IN nextRecord() {
    return suite.record(nextRecord++);
  }

  /** What was committed since the test began. */
  List<IN> visible() throws Exception {
    readBaselineOnce();
    List<IN> all = suite.committedRecords();
    assertNotNull(all, "committedRecords() returned null");
    if (all.size() < baseline.size() || !all.subList(0, baseline.size()).equals(baseline)) {
      fail("the records committed before this test changed (or committedRecords() is not in commit"
          + " order): before " + baseline + ", now " + all);
    }
    return new ArrayList<>(all.subList(baseline.size(), all.size()));
  }

  void assertVisible(List<IN> expected, String message) throws Exception {
    assertEquals(expected, visible(), message);
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
