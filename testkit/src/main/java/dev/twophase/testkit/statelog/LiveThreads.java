package dev.twophase.testkit.statelog;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Threads started since a snapshot that are still alive: what a closed log left running. Threads
 * of the JVM and of the test framework that start on their own (the common fork-join pool, the
 * process reaper, JFR, attach) are not counted.
 */
final class LiveThreads {

  private static final List<String> IGNORED_PREFIXES = List.of(
      "ForkJoinPool.commonPool", "process reaper", "Attach Listener", "Common-Cleaner", "JFR ",
      "Signal Dispatcher", "Notification Thread", "Reference Handler", "Finalizer",
      "surefire-", "junit-", "statelog-child-reader ", "Keep-Alive-Timer", "RMI ");

  private LiveThreads() {}

  /**
   * Waits up to {@code timeoutMillis} for every thread started since {@code before} to end;
   * returns the names (and states) of those still alive.
   */
  static List<String> awaitEnd(Set<Thread> before, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    List<String> left = started(before);
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
      left = started(before);
    }
    return left;
  }

  private static List<String> started(Set<Thread> before) {
    List<String> left = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && !before.contains(t) && !ignored(t.getName())
          && t != Thread.currentThread()) {
        left.add(t.getName() + " (" + t.getState() + ")");
      }
    }
    return left;
  }

  private static boolean ignored(String name) {
    for (String prefix : IGNORED_PREFIXES) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
