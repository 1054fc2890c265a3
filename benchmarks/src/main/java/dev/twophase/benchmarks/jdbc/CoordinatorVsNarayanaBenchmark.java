package dev.twophase.benchmarks.jdbc;

import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.AbortOutcome;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Participant;
import dev.twophase.TransactionContext;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * The coordinator's own cost against Narayana's, without databases (the benchmark Narayana
 * publishes for itself): Narayana's TransactionManager with two no-op XAResources on its journal
 * store (Artemis journal, {@code HornetqObjectStoreAdaptor}) against a twophase coordinator with two
 * no-op participants and one checkpoint per transaction, waited for until committed; at 1, 16 and
 * 64 threads (for twophase, as many coordinators sharing one FileStateLog). Both variants take
 * turns in each round. Syncs per transaction are counted outside, with {@code strace -f -c -e
 * trace=fsync,fdatasync} on a run of one variant ({@code -Dbench.variants=narayana}), divided by
 * the transactions it prints.
 *
 * <p>Options: {@code -Dbench.rounds=5 -Dbench.turnMillis=2000 -Dbench.threads=1,16,64
 * -Dbench.variants=twophase,narayana}.
 */
public final class CoordinatorVsNarayanaBenchmark {

  private static final int ROUNDS = Integer.getInteger("bench.rounds", 5);
  private static final long TURN_MILLIS = Long.getLong("bench.turnMillis", 2000);

  /** A handle of the no-op participant. */
  public record Noop(String name) {}

  /** Two of these per coordinator: they do nothing, durably. */
  static final class NoopParticipant implements Participant<Noop, Void> {
    @Override
    public Codec<Noop> transactionCodec() {
      return new Codec<>() {
        @Override
        public int version() {
          return 1;
        }

        @Override
        public byte[] encode(Noop value) {
          return value.name().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Noop decode(byte[] bytes, int version) {
          return new Noop(new String(bytes, StandardCharsets.UTF_8));
        }
      };
    }

    @Override
    public Noop beginTransaction(TransactionContext<Void> context) {
      return new Noop(context.transactionName());
    }

    @Override
    public Noop preCommit(Noop transaction) {
      return transaction;
    }

    @Override
    public CommitOutcome commit(Noop transaction) {
      return CommitOutcome.COMMITTED;
    }

    @Override
    public void abort(Noop transaction) {}

    @Override
    public AbortOutcome recoverAndAbort(Noop transaction) {
      return AbortOutcome.NOT_FOUND;
    }
  }

  /** A resource manager that votes yes and remembers nothing; never the same RM as another. */
  static final class NoopXaResource implements XAResource {
    @Override
    public void commit(Xid xid, boolean onePhase) {}

    @Override
    public void end(Xid xid, int flags) {}

    @Override
    public void forget(Xid xid) {}

    @Override
    public int getTransactionTimeout() {
      return 0;
    }

    @Override
    public boolean isSameRM(XAResource other) {
      return other == this;
    }

    @Override
    public int prepare(Xid xid) {
      return XA_OK;
    }

    @Override
    public Xid[] recover(int flag) throws XAException {
      return new Xid[0];
    }

    @Override
    public void rollback(Xid xid) {}

    @Override
    public boolean setTransactionTimeout(int seconds) {
      return false;
    }

    @Override
    public void start(Xid xid, int flags) {}
  }

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target"), "tm-bench").toAbsolutePath();
    System.setProperty("org.jboss.logging.provider", "slf4j");
    System.setProperty("ObjectStoreEnvironmentBean.objectStoreType",
        "com.arjuna.ats.internal.arjuna.objectstore.hornetq.HornetqObjectStoreAdaptor");
    System.setProperty("ObjectStoreEnvironmentBean.objectStoreDir", dir.resolve("narayana").toString());
    System.setProperty("HornetqJournalEnvironmentBean.storeDir", dir.resolve("narayana-journal").toString());
    System.setProperty("CoreEnvironmentBean.nodeIdentifier", "1");
    List<Integer> threadCounts = new ArrayList<>();
    for (String t : System.getProperty("bench.threads", "1,16,64").split(",")) {
      threadCounts.add(Integer.parseInt(t.trim()));
    }
    List<String> names = List.of(System.getProperty("bench.variants", "twophase,narayana").split(","));
    TransactionManager tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
    FileStateLog log = FileStateLog.open(dir.resolve("twophase"));
    Map<String, List<Double>> results = new LinkedHashMap<>();
    long totalTx = 0;
    for (int threads : threadCounts) {
      Map<String, Crew> crews = new LinkedHashMap<>();
      for (String name : names) {
        crews.put(name, crew(name, threads, tm, log));
        totalTx += crews.get(name).turn(TURN_MILLIS / 3)[0]; // warm-up, counted for syncs per transaction
      }
      for (int round = 0; round < ROUNDS; round++) {
        List<String> order = new ArrayList<>(names);
        if (round % 2 == 1) {
          Collections.reverse(order);
        }
        for (String name : order) {
          long[] r = crews.get(name).turn(TURN_MILLIS);
          double tps = r[0] * 1e9 / r[1];
          totalTx += r[0];
          results.computeIfAbsent(name + " x" + threads, k -> new ArrayList<>()).add(tps);
          System.out.printf(Locale.ROOT, "[tm] %-9s threads=%2d round %d: %8.0f tx/s%n", name, threads, round + 1, tps);
        }
      }
      for (Crew c : crews.values()) {
        c.close();
      }
    }
    log.close();
    System.out.println();
    System.out.println("[tm] summary, median of " + ROUNDS + " interleaved rounds (range); " + totalTx
        + " transactions in all (for syncs per transaction under strace)");
    for (int threads : threadCounts) {
      Double narayana = results.containsKey("narayana x" + threads)
          ? JdbcRowsBenchmark.median(results.get("narayana x" + threads)) : null;
      for (String name : names) {
        List<Double> rs = results.get(name + " x" + threads);
        double m = JdbcRowsBenchmark.median(rs);
        System.out.printf(Locale.ROOT, "  %-9s threads=%2d: %8.0f tx/s (%.0f..%.0f)%s%n", name, threads, m,
            Collections.min(rs), Collections.max(rs),
            narayana == null ? "" : String.format(Locale.ROOT, ", %.2fx narayana", m / narayana));
      }
    }
    System.exit(0);
  }

  /**
   * The variant's crew: {@code twophase} threads each checkpoint a coordinator of their own (made on
   * the thread, at its first transaction) with two participants; {@code narayana} threads each
   * commit a transaction with two enlisted resources.
   */
  private static Crew crew(String variant, int threads, TransactionManager tm, FileStateLog log) throws Exception {
    return new Crew(variant, threads, t -> {
      String id = "tm" + threads + "-" + t + "-" + System.nanoTime();
      XAResource a = new NoopXaResource();
      XAResource b = new NoopXaResource();
      return new Crew.Worker() {
        private Coordinator coordinator;

        @Override
        public void transaction() throws Exception {
          if (variant.equals("twophase")) {
            if (coordinator == null) {
              coordinator = Coordinator.builder(id, log)
                  .participant("a", new NoopParticipant()).participant("b", new NoopParticipant()).build();
            }
            coordinator.checkpoint().awaitCommitted(Duration.ofMinutes(1));
          } else {
            tm.begin();
            Transaction tx = tm.getTransaction();
            tx.enlistResource(a);
            tx.enlistResource(b);
            tm.commit();
          }
        }

        @Override
        public void close() {
          if (coordinator != null) {
            coordinator.close();
          }
        }
      };
    });
  }
}
