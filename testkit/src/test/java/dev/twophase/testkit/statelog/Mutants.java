package dev.twophase.testkit.statelog;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FencedException;
import dev.twophase.FileStateLog;
import dev.twophase.StateLog;
import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.StoredState;
import dev.twophase.TwoPhaseException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Broken state logs for {@link StateLogSuiteSelfTest}: factories (public, with a no-argument
 * constructor, so that child JVMs open them too) that wrap the correct in-memory or file log of
 * the store their settings name, each with one deliberate bug. What a bug must remember across
 * owners (as a store would) is kept per store, in static maps.
 */
final class Mutants {

  private Mutants() {}

  /** A log whose compaction the suite's {@code compact} hook runs. */
  interface Compactable {
    void compact();
  }

  /** Opens the correct log of the store and wraps it. */
  abstract static class MutantFactory implements StateLogFactory {
    @Override
    public StateLog open(Map<String, String> settings, boolean takeOver) throws Exception {
      return wrap(openCorrect(settings, takeOver), new TreeMap<>(settings).toString());
    }

    StateLog openCorrect(Map<String, String> settings, boolean takeOver) throws Exception {
      if ("shared".equals(settings.get("log"))) {
        return new SharedDirectoryStateLog.Factory().open(settings, takeOver);
      }
      return settings.containsKey("directory")
          ? new FileStateLogConformanceTest.Factory().open(settings, takeOver)
          : new InMemoryStateLogConformanceTest.Factory().open(settings, takeOver);
    }

    abstract StateLog wrap(StateLog log, String store);
  }

  /** Writes each state only when the next one comes: the last append is not durable. */
  public static final class ForgetsLastAppend extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            private long pendingId = -1;
            private byte[] pending;

            @Override
            public synchronized void appendState(long checkpointId, byte[] payload) {
              if (checkpointId < pendingId) {
                throw new IllegalArgumentException("checkpoint id below " + pendingId);
              }
              if (pending != null) {
                delegate.appendState(pendingId, pending);
              }
              pendingId = checkpointId;
              pending = payload.clone();
            }
          };
        }
      };
    }
  }

  /** A superseded owner's append "succeeds": the fence is swallowed. */
  public static final class NeverFenced extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public void appendState(long checkpointId, byte[] payload) {
              try {
                delegate.appendState(checkpointId, payload);
              } catch (FencedException e) {
                // "someone else's problem"
              }
            }
          };
        }
      };
    }
  }

  /** Every owner has epoch 1. */
  public static final class ConstantEpoch extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public long ownerEpoch() {
              return 1;
            }
          };
        }
      };
    }
  }

  /** A damaged last record is cut off like a torn one: the state before it is returned. */
  public static final class CutsDamageLikeATornTail extends MutantFactory {
    @Override
    StateLog openCorrect(Map<String, String> settings, boolean takeOver) throws Exception {
      try {
        return super.openCorrect(settings, takeOver);
      } catch (StateLogCorruptedException e) {
        try (FileChannel channel = FileChannel.open(e.file(), StandardOpenOption.WRITE)) {
          channel.truncate(e.offset());
        }
        return super.openCorrect(settings, takeOver);
      }
    }

    @Override
    StateLog wrap(StateLog log, String store) {
      return log;
    }
  }

  /** Compaction copies the states but not the completion marks. */
  public static final class CompactionDropsMarks extends MutantFactory {
    private static final Map<String, Set<String>> KNOWN = new ConcurrentHashMap<>();
    private static final Map<String, Set<String>> DROPPED = new ConcurrentHashMap<>();

    @Override
    StateLog wrap(StateLog log, String store) {
      Set<String> known = KNOWN.computeIfAbsent(store, k -> ConcurrentHashMap.newKeySet());
      Set<String> dropped = DROPPED.computeIfAbsent(store, k -> ConcurrentHashMap.newKeySet());
      class Log extends DelegatingStateLog implements Compactable {
        Log() {
          super(log);
        }

        @Override
        public void compact() {
          dropped.addAll(known);
          if (innermost() instanceof FileStateLog file) {
            file.compact();
          }
        }

        @Override
        CoordinatorLog view(CoordinatorLog view) {
          known.add(view.coordinatorId());
          return new View(view) {
            @Override
            public long lastCompletedCheckpointId() {
              return dropped.contains(coordinatorId()) ? 0 : delegate.lastCompletedCheckpointId();
            }

            @Override
            public void appendCompletion(long checkpointId) {
              delegate.appendCompletion(checkpointId);
              dropped.remove(coordinatorId());
            }
          };
        }
      }
      return new Log();
    }
  }

  /** Each owner makes up a new log id. */
  public static final class LogIdPerOwner extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      String id = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36 * 36 * 36 * 36,
          36L * 36 * 36 * 36 * 36 * 36 * 36 * 36), 36);
      return new DelegatingStateLog(log) {
        @Override
        public String logId() {
          return id;
        }

        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public String logId() {
              return id;
            }
          };
        }
      };
    }
  }

  /** Every log has the same id. */
  /** Says the opposite of what it is: shared when owned as a whole, and the other way round. */
  public static final class MisstatesSharing extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        public boolean isShared() {
          return !delegate.isShared();
        }
      };
    }
  }

  public static final class FixedLogId extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        public String logId() {
          return "aaaaaaaa";
        }

        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public String logId() {
              return "aaaaaaaa";
            }
          };
        }
      };
    }
  }

  /**
   * A broken group commit: an append that arrives while another one is being written returns at
   * once, as if the leader's write covered it, but nothing writes it.
   */
  public static final class GroupCommitDropsFollowers extends MutantFactory {
    private static final Map<String, AtomicBoolean> WRITING = new ConcurrentHashMap<>();

    @Override
    StateLog wrap(StateLog log, String store) {
      AtomicBoolean writing = WRITING.computeIfAbsent(store, k -> new AtomicBoolean());
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public void appendState(long checkpointId, byte[] payload) {
              if (!writing.compareAndSet(false, true)) {
                return; // "joined the leader's sync"
              }
              try {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                delegate.appendState(checkpointId, payload);
              } finally {
                writing.set(false);
              }
            }
          };
        }
      };
    }
  }

  /** Starts a heartbeat thread that its close() forgets to stop (it ends on its own after 20 s). */
  public static final class LeavesAThreadRunning extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      Thread heartbeat = new Thread(() -> {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end && !Thread.currentThread().isInterrupted()) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
      }, "mutant-log-heartbeat");
      heartbeat.setDaemon(true);
      heartbeat.start();
      return new DelegatingStateLog(log);
    }
  }

  /** A second open of an open coordinator returns the view already open. */
  public static final class SharesOpenViews extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      Map<String, CoordinatorLog> open = new ConcurrentHashMap<>();
      return new DelegatingStateLog(log) {
        @Override
        public CoordinatorLog open(String coordinatorId) {
          try {
            CoordinatorLog view = view(delegate.open(coordinatorId));
            open.put(coordinatorId, view);
            return view;
          } catch (CoordinatorHeldException e) {
            CoordinatorLog view = open.get(coordinatorId);
            if (view == null) {
              throw e;
            }
            return view;
          }
        }
      };
    }
  }

  /** An append with a lower checkpoint id is ignored instead of refused. */
  public static final class IgnoresLowerIds extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public void appendState(long checkpointId, byte[] payload) {
              try {
                delegate.appendState(checkpointId, payload);
              } catch (IllegalArgumentException e) {
                // "stale, nothing to do"
              }
            }
          };
        }
      };
    }
  }

  /** The payload passes through a String, as in a text column. */
  public static final class PayloadAsText extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public void appendState(long checkpointId, byte[] payload) {
              delegate.appendState(checkpointId,
                  new String(payload, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
            }
          };
        }
      };
    }
  }

  /** States above 1 MiB are refused. */
  public static final class RefusesLargeStates extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public void appendState(long checkpointId, byte[] payload) {
              if (payload.length > 1024 * 1024) {
                throw new TwoPhaseException("state of " + payload.length + " bytes is too large");
              }
              delegate.appendState(checkpointId, payload);
            }
          };
        }
      };
    }
  }

  /** Keeps states in memory and writes them when the view or the log is closed. */
  public static final class WritesOnClose extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      List<Runnable> flushes = new ArrayList<>();
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          View buffered = new View(view) {
            private final List<Long> ids = new ArrayList<>();
            private final List<byte[]> payloads = new ArrayList<>();

            @Override
            public synchronized void appendState(long checkpointId, byte[] payload) {
              if (!ids.isEmpty() && checkpointId < ids.get(ids.size() - 1)) {
                throw new IllegalArgumentException("checkpoint id below the last");
              }
              ids.add(checkpointId);
              payloads.add(payload.clone());
            }

            synchronized void flush() {
              for (int i = 0; i < ids.size(); i++) {
                delegate.appendState(ids.get(i), payloads.get(i));
              }
              ids.clear();
              payloads.clear();
            }

            @Override
            public void close() {
              try {
                flush();
              } finally {
                delegate.close();
              }
            }
          };
          synchronized (flushes) {
            flushes.add(() -> buffered.close());
          }
          return buffered;
        }

        @Override
        public void close() {
          try {
            synchronized (flushes) {
              for (Runnable flush : flushes) {
                try {
                  flush.run();
                } catch (RuntimeException e) {
                  // a fenced or refused flush: the log is closed anyway
                }
              }
            }
          } finally {
            delegate.close();
          }
        }
      };
    }
  }

  /**
   * Takes a held log anyway: in this JVM it hands out the owner's log, in another it deletes the
   * "stale" LOCK file and locks a new one.
   */
  public static final class BreaksTheLock extends MutantFactory {
    private static final Map<String, StateLog> OPEN = new ConcurrentHashMap<>();

    @Override
    StateLog openCorrect(Map<String, String> settings, boolean takeOver) throws Exception {
      String dir = settings.get("directory");
      try {
        StateLog log = super.openCorrect(settings, takeOver);
        OPEN.put(dir, log);
        return log;
      } catch (FencedException e) {
        StateLog held = OPEN.get(dir);
        if (held != null) {
          return new DelegatingStateLog(held) {
            @Override
            public void close() {}
          };
        }
        deleteLock(Path.of(dir));
        return super.openCorrect(settings, takeOver);
      }
    }

    private static void deleteLock(Path dir) throws IOException {
      Files.deleteIfExists(dir.resolve("LOCK"));
    }

    @Override
    StateLog wrap(StateLog log, String store) {
      return log;
    }
  }

  /** Every owner takes coordinators over: a held coordinator is never refused. */
  public static final class AlwaysTakesOver extends MutantFactory {
    @Override
    StateLog openCorrect(Map<String, String> settings, boolean takeOver) throws Exception {
      return super.openCorrect(settings, true);
    }

    @Override
    StateLog wrap(StateLog log, String store) {
      return log;
    }
  }

  /** Closing a view does not release its coordinator in the store. */
  public static final class CloseKeepsTheClaim extends MutantFactory {
    @Override
    StateLog wrap(StateLog log, String store) {
      return new DelegatingStateLog(log) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public void close() {}
          };
        }
      };
    }
  }

  /**
   * The claim is two steps: the new owner reads what the store holds, then raises the epoch, and
   * an append of the old owner in between is neither read nor fenced.
   */
  public static final class ReadsBeforeItClaims extends MutantFactory {
    private static final Map<String, Map<String, StoredState>> STORED = new ConcurrentHashMap<>();

    @Override
    public StateLog open(Map<String, String> settings, boolean takeOver) throws Exception {
      Map<String, StoredState> stored = STORED.computeIfAbsent(
          new TreeMap<>(settings).toString(), k -> new ConcurrentHashMap<>());
      Map<String, StoredState> read = new HashMap<>(stored);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      return new DelegatingStateLog(openCorrect(settings, takeOver)) {
        @Override
        CoordinatorLog view(CoordinatorLog view) {
          return new View(view) {
            @Override
            public StoredState lastState() {
              return read.get(coordinatorId());
            }

            @Override
            public void appendState(long checkpointId, byte[] payload) {
              delegate.appendState(checkpointId, payload);
              stored.put(coordinatorId(), new StoredState(checkpointId, payload));
            }
          };
        }
      };
    }

    @Override
    StateLog wrap(StateLog log, String store) {
      throw new AssertionError("not used: open is overridden");
    }
  }
}
