package dev.twophase.demo;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Stops what a run started, on every way out: the child JVM that is running (killed) and the
 * broker (stopped, its data deleted), at {@link #close()} or, on Ctrl-C or any other end of this
 * JVM, from a shutdown hook.
 */
final class Stopper implements AutoCloseable {
  private final Thread hook = new Thread(this::stop, "twophase-demo-stop");
  private Process child;
  private KafkaTestBroker broker;
  private boolean stopped;

  interface Start<T> {
    T start() throws IOException;
  }

  private final List<Process> workers = new ArrayList<>();

  Stopper() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  synchronized KafkaTestBroker broker(Start<KafkaTestBroker> start) throws IOException {
    ensureRunning();
    broker = start.start();
    return broker;
  }

  synchronized Process child(Start<Process> start) throws IOException {
    ensureRunning();
    child = start.start();
    return child;
  }

  /** A worker JVM of the group mode; several may run at once. */
  synchronized Process worker(Start<Process> start) throws IOException {
    ensureRunning();
    Process p = start.start();
    workers.add(p);
    return p;
  }

  synchronized void childEnded() {
    child = null;
  }

  synchronized void ensureRunning() {
    if (stopped) {
      throw new Demo.StoppedException();
    }
  }

  private synchronized void stop() {
    stopped = true;
    for (Process w : workers) {
      w.destroyForcibly();
    }
    workers.clear();
    if (child != null) {
      child.destroyForcibly();
      try {
        child.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      child = null;
    }
    if (broker != null) {
      broker.close();
      broker = null;
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
  }
}
