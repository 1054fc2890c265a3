package dev.twophase;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/** A scheduler that holds every task until the test runs it; it notes the delays asked for. */
final class ManualScheduler implements Scheduler {

  private record Task(Executor executor, Runnable command, Duration delay) {}

  private final List<Task> tasks = new ArrayList<>();

  @Override
  public synchronized void schedule(Executor executor, Runnable command, Duration delay) {
    tasks.add(new Task(executor, command, delay));
  }

  synchronized List<Duration> delays() {
    return tasks.stream().map(Task::delay).toList();
  }

  synchronized int waiting() {
    return tasks.size();
  }

  /** Hands every waiting task to its executor, as if its delay had passed. */
  void runAll() {
    List<Task> due;
    synchronized (this) {
      due = new ArrayList<>(tasks);
      tasks.clear();
    }
    for (Task t : due) {
      t.executor().execute(t.command());
    }
  }
}
