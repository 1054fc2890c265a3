package dev.twophase.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What killing and ending a simulated process does to what it tracks. */
class SimulatedProcessTest {

  @Test
  void killRunsTheKillActionsNewestFirstAndOnce() throws Exception {
    List<String> done = new ArrayList<>();
    SimulatedProcess process = new SimulatedProcess("p");
    assertEquals("a", process.track("a", r -> done.add("kill " + r)));
    process.track("b", r -> done.add("kill " + r));
    process.kill();
    process.kill();
    process.exit();
    assertEquals(List.of("kill b", "kill a"), done);
    assertTrue(process.isKilled());
    assertFalse(process.isRunning());
  }

  @Test
  void exitReleasesWhatIsStillTracked() throws Exception {
    List<String> done = new ArrayList<>();
    SimulatedProcess process = new SimulatedProcess("p");
    process.onKill(() -> done.add("released"));
    process.exit();
    assertEquals(List.of("released"), done);
    assertFalse(process.isKilled());
  }

  @Test
  void aDeadProcessCreatesNothing() throws Exception {
    SimulatedProcess process = new SimulatedProcess("p");
    process.kill();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> process.track("x", r -> {}));
    assertTrue(e.getMessage().contains("after its process died"), e.getMessage());
  }

  @Test
  void everyKillActionRunsEvenIfOneFails() {
    List<String> done = new ArrayList<>();
    SimulatedProcess process = new SimulatedProcess("p");
    process.onKill(() -> done.add("first"));
    process.onKill(() -> {
      throw new IllegalStateException("boom");
    });
    Exception e = assertThrows(Exception.class, process::kill);
    assertTrue(e.getMessage().contains("boom"), e.getMessage());
    assertEquals(List.of("first"), done);
  }
}
