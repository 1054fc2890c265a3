package dev.twophase.benchmarks.jdbc;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Participant;
import dev.twophase.TransactionContext;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * One variant of {@link CoordinatorVsNarayanaBenchmark} in a JVM of its own: Narayana's object
 * store is one per JVM (its {@code StoreManager} is static), so each Narayana configuration needs a
 * JVM, and twophase gets one too, so that every variant runs with its own heap and compiled code.
 *
 * <p>Arguments: the variant and its working directory. It prints {@code @@ready <description>},
 * then reads commands from standard input: {@code turn <threads> <millis>} runs one turn and prints
 * {@code @@done <transactions> <elapsed nanos> <process CPU nanos>}; end of input ends the process.
 * The threads of a thread count are kept from turn to turn, and replaced when the count changes.
 *
 * <p>Variants:
 * <ul>
 *   <li>{@code twophase}: per thread a {@link Coordinator} with two no-op participants, all on one
 *       {@link FileStateLog}, one checkpoint per transaction, waited for until committed.
 *   <li>{@code narayana-file}: Narayana's default object store, {@code ShadowNoFileLockStore}, with
 *       its defaults ({@code objectStoreSync=true}).
 *   <li>{@code narayana-journal}: the journal store ({@code HornetqObjectStoreAdaptor}) with its
 *       defaults ({@code syncWrites=true}, {@code syncDeletes=true}, {@code bufferFlushesPerSecond=500}).
 *   <li>{@code narayana-journal-tuned}: the journal store with {@code bufferFlushesPerSecond} raised
 *       to {@code -Dbench.journalFlushes} (default {@value #TUNED_FLUSHES}); writes and deletes synced.
 *   <li>{@code narayana-journal-tuned-async-deletes}: the same, {@code syncDeletes=false}.
 * </ul>
 * A tuned variant's name may end in {@code @<flushes per second>} (such as
 * {@code narayana-journal-tuned@5000}), so that one run can race several flush rates.
 */
public final class TransactionManagerVariant {

  /** The journal's flush rate in the tuned variants, chosen by a sweep (see docs/benchmarks.md). */
  static final int TUNED_FLUSHES = 10_000;

  static final List<String> VARIANTS = List.of("twophase", "narayana-file", "narayana-journal",
      "narayana-journal-tuned", "narayana-journal-tuned-async-deletes");

  private TransactionManagerVariant() {}

  public static void main(String[] args) throws Exception {
    String variant = args[0];
    Path dir = Path.of(args[1]);
    Files.createDirectories(dir);
    String description = configure(variant, dir);
    TransactionManager tm = variant.equals("twophase") ? null : narayana();
    FileStateLog log = variant.equals("twophase") ? FileStateLog.open(dir.resolve("log")) : null;
    if (tm != null) {
      description += "; " + narayanaStore();
    }
    System.out.println("@@ready " + description);
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    Crew crew = null;
    int crewThreads = 0;
    for (String line; (line = in.readLine()) != null; ) {
      String[] cmd = line.trim().split(" ");
      if (!cmd[0].equals("turn") || cmd.length != 3) {
        throw new IllegalArgumentException("unknown command '" + line + "': expected 'turn <threads> <millis>'");
      }
      int threads = Integer.parseInt(cmd[1]);
      if (crew == null || threads != crewThreads) {
        if (crew != null) {
          crew.close();
        }
        crew = crew(variant, threads, tm, log);
        crewThreads = threads;
      }
      long[] r = crew.turn(Long.parseLong(cmd[2]));
      System.out.println("@@done " + r[0] + " " + r[1] + " " + r[2]);
      System.out.flush();
    }
    System.exit(0);
  }

  /** Sets Narayana's properties for {@code variant} (before its first use) and describes them. */
  private static String configure(String variant, Path dir) {
    System.setProperty("org.jboss.logging.provider", "slf4j");
    System.setProperty("CoreEnvironmentBean.nodeIdentifier", "1");
    System.setProperty("ObjectStoreEnvironmentBean.objectStoreDir", dir.resolve("object-store").toString());
    int at = variant.indexOf('@');
    int flushes = at < 0 ? Integer.getInteger("bench.journalFlushes", TUNED_FLUSHES)
        : Integer.parseInt(variant.substring(at + 1));
    return switch (at < 0 ? variant : variant.substring(0, at)) {
      case "twophase" ->
          "twophase: FileStateLog (decision fdatasync'd, group commit; completion mark not synced)";
      case "narayana-file" -> "Narayana default store";
      case "narayana-journal" -> {
        journal(dir);
        yield "Narayana journal store, defaults";
      }
      case "narayana-journal-tuned" -> {
        journal(dir);
        System.setProperty("HornetqJournalEnvironmentBean.bufferFlushesPerSecond", Integer.toString(flushes));
        yield "Narayana journal store, flush rate tuned";
      }
      case "narayana-journal-tuned-async-deletes" -> {
        journal(dir);
        System.setProperty("HornetqJournalEnvironmentBean.bufferFlushesPerSecond", Integer.toString(flushes));
        System.setProperty("HornetqJournalEnvironmentBean.syncDeletes", "false");
        yield "Narayana journal store, flush rate tuned, deletes not synced";
      }
      default ->
          throw new IllegalArgumentException("unknown variant '" + variant + "': expected one of " + VARIANTS);
    };
  }

  private static void journal(Path dir) {
    System.setProperty("ObjectStoreEnvironmentBean.objectStoreType",
        "com.arjuna.ats.internal.arjuna.objectstore.hornetq.HornetqObjectStoreAdaptor");
    System.setProperty("HornetqJournalEnvironmentBean.storeDir", dir.resolve("journal").toString());
  }

  private static TransactionManager narayana() throws Exception {
    TransactionManager tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
    // one transaction, so that the store is open and its settings can be read back
    tm.begin();
    tm.getTransaction().enlistResource(new NoopXaResource());
    tm.getTransaction().enlistResource(new NoopXaResource());
    tm.commit();
    return tm;
  }

  /** The store Narayana actually opened, with the settings it read (not the ones we meant to set). */
  private static String narayanaStore() {
    Object store = com.arjuna.ats.arjuna.objectstore.StoreManager.getTxLog();
    com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean os =
        com.arjuna.common.internal.util.propertyservice.BeanPopulator.getDefaultInstance(
            com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean.class);
    String s = store.getClass().getSimpleName();
    if (s.startsWith("Hornetq")) {
      com.arjuna.ats.internal.arjuna.objectstore.hornetq.HornetqJournalEnvironmentBean j =
          com.arjuna.common.internal.util.propertyservice.BeanPopulator.getDefaultInstance(
              com.arjuna.ats.internal.arjuna.objectstore.hornetq.HornetqJournalEnvironmentBean.class);
      boolean aio = j.isAsyncIO() && org.apache.activemq.artemis.core.io.aio.AIOSequentialFileFactory.isSupported();
      return String.format(Locale.ROOT,
          "%s, %s, syncWrites=%s, syncDeletes=%s, bufferFlushesPerSecond=%d (buffer timeout %.0f us), bufferSize=%d",
          s, aio ? "AIO" : "NIO (asyncIO=" + j.isAsyncIO() + ", libaio not loaded)", j.isSyncWrites(),
          j.isSyncDeletes(), j.getBufferFlushesPerSecond(), 1e6 / j.getBufferFlushesPerSecond(), j.getBufferSize());
    }
    return String.format(Locale.ROOT, "%s, objectStoreSync=%s, transactionSync=%s", s, os.isObjectStoreSync(),
        os.isTransactionSync());
  }

  /**
   * {@code twophase} threads each checkpoint a coordinator of their own (made on the thread, at its
   * first transaction) with two participants; Narayana's threads each commit a transaction with two
   * enlisted resources.
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
          if (log != null) {
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
}
