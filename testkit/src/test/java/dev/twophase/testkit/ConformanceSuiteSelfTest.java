package dev.twophase.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryTransaction;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;
import org.opentest4j.TestAbortedException;

/**
 * Proves that the conformance suite can fail: it runs the suite's tests, by reflection, against
 * participants with one deliberate bug each, and checks that the tests meant to catch the bug fail
 * and that every test of the suite is failed by some bug.
 */
class ConformanceSuiteSelfTest {

  private static final Set<String> FAILED_BY_SOME_MUTANT = Collections.synchronizedSet(new HashSet<>());

  /** A broken participant, the suite that runs on it, and the suite tests that must notice. */
  record Mutant(String name, Supplier<ParticipantConformanceSuite<?, ?, ?>> suite, Set<String> mustFail) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> mutants() {
    return MUTANTS.stream().map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mutants")
  void suiteCatchesMutant(Mutant mutant) {
    Map<String, String> results = run(mutant.suite().get());
    Set<String> failed = new TreeSet<>();
    results.forEach((test, result) -> {
      if (result.startsWith("FAILED")) {
        failed.add(test);
      }
    });
    FAILED_BY_SOME_MUTANT.addAll(failed);
    assertTrue(
        failed.containsAll(mutant.mustFail()),
        "mutant '" + mutant.name() + "' should fail " + mutant.mustFail() + " but results were "
            + results);
  }

  @Test
  void correctParticipantPassesThroughTheSameRunner() {
    Map<String, String> results = run(new MutantSuite(p -> p));
    for (Map.Entry<String, String> entry : results.entrySet()) {
      assertEquals("PASSED", entry.getValue(), entry.getKey());
    }
    assertEquals(suiteTests().size(), results.size());
  }

  @Test
  void correctHandleClassPassesThroughTheSameRunner() {
    Map<String, String> results = run(new HandleMutantSuite(HandleMutantSuite.Flaw.NONE));
    for (Map.Entry<String, String> entry : results.entrySet()) {
      assertEquals("PASSED", entry.getValue(), entry.getKey());
    }
    assertEquals(suiteTests().size(), results.size());
  }

  @Test
  void aParticipantThatCreatesItsResourceInItsConstructorPasses() {
    Map<String, String> results = run(new ResourceInConstructorSuite());
    for (Map.Entry<String, String> entry : results.entrySet()) {
      assertEquals("PASSED", entry.getValue(), entry.getKey());
    }
    assertEquals(suiteTests().size(), results.size());
  }

  @AfterAll
  static void everySuiteTestCanFail() {
    Set<String> neverFailed = new TreeSet<>();
    for (Method test : suiteTests()) {
      neverFailed.add(test.getName());
    }
    neverFailed.removeAll(FAILED_BY_SOME_MUTANT);
    assertEquals(Set.of(), neverFailed, "suite tests that no mutant made fail");
  }

  // -------------------------------------------------------------------------------- runner

  static List<Method> suiteTests() {
    return AnnotationSupport.findAnnotatedMethods(
        ParticipantConformanceSuite.class, Test.class, HierarchyTraversalMode.TOP_DOWN);
  }

  /** Runs every suite test like JUnit would: BeforeEach, the test, AfterEach. */
  static Map<String, String> run(ParticipantConformanceSuite<?, ?, ?> suite) {
    List<Method> before =
        AnnotationSupport.findAnnotatedMethods(
            suite.getClass(), BeforeEach.class, HierarchyTraversalMode.TOP_DOWN);
    List<Method> after =
        AnnotationSupport.findAnnotatedMethods(
            suite.getClass(), AfterEach.class, HierarchyTraversalMode.BOTTOM_UP);
    Map<String, String> results = new LinkedHashMap<>();
    for (Method test : suiteTests()) {
      String result;
      try {
        before.forEach(m -> ReflectionSupport.invokeMethod(m, suite));
        ReflectionSupport.invokeMethod(test, suite);
        result = "PASSED";
      } catch (TestAbortedException e) {
        result = "SKIPPED";
      } catch (Throwable e) {
        result = "FAILED: " + e;
      } finally {
        try {
          after.forEach(m -> ReflectionSupport.invokeMethod(m, suite));
        } catch (Throwable ignored) {
          // mutants may break clean-up too
        }
      }
      results.put(test.getName(), result);
    }
    return results;
  }

  // ------------------------------------------------------------------------------- mutants

  private static final List<Mutant> MUTANTS = new ArrayList<>();

  private static void mutant(
      String name,
      Function<InMemoryParticipant<String>, Participant<InMemoryTransaction, Void>> wrap,
      String... mustFail) {
    MUTANTS.add(new Mutant(name, () -> new MutantSuite(wrap), Set.of(mustFail)));
  }

  private static void handleMutant(String name, HandleMutantSuite.Flaw flaw, String... mustFail) {
    MUTANTS.add(new Mutant(name, () -> new HandleMutantSuite(flaw), Set.of(mustFail)));
  }

  private static CommitOutcome neverAlready(CommitOutcome outcome) {
    return outcome == CommitOutcome.ALREADY_COMMITTED ? CommitOutcome.COMMITTED : outcome;
  }

  static {
    mutant(
        "repeated commit reports COMMITTED",
        p -> new DelegatingParticipant(p) {
          @Override
          public CommitOutcome commit(InMemoryTransaction t) throws Exception {
            return neverAlready(delegate.commit(t));
          }

          @Override
          public CommitOutcome recoverAndCommit(InMemoryTransaction t) throws Exception {
            return neverAlready(delegate.recoverAndCommit(t));
          }
        },
        "secondCommitReportsAlreadyCommitted",
        "recoverAndCommitFromNewProcess",
        "recoverAndCommitOfCommittedHandleReportsAlreadyCommitted");

    mutant(
        "preCommit makes records visible",
        p -> new DelegatingParticipant(p) {
          @Override
          public InMemoryTransaction preCommit(InMemoryTransaction t) throws Exception {
            delegate.preCommit(t);
            delegate.commit(t);
            return t;
          }

          @Override
          public CommitOutcome commit(InMemoryTransaction t) throws Exception {
            return neverAlready(delegate.commit(t));
          }

          @Override
          public CommitOutcome recoverAndCommit(InMemoryTransaction t) throws Exception {
            return neverAlready(delegate.recoverAndCommit(t));
          }
        },
        "preCommittedRecordsStayInvisibleUntilCommit",
        "abortAfterPreCommitDiscardsRecords",
        "recoverAndAbortOfPreCommittedTransaction",
        "finishRecoveringAbortsLingeringTransactions",
        "lostTransactionIsReportedAsLost",
        "transactionsCommitInCreationOrder");

    mutant(
        "abort does nothing",
        p -> new DelegatingParticipant(p) {
          @Override
          public void abort(InMemoryTransaction t) {}
        },
        "abortBeforePreCommitDiscardsRecords",
        "abortAfterPreCommitDiscardsRecords");

    mutant(
        "recoverAndAbort does nothing",
        p -> new DelegatingParticipant(p) {
          @Override
          public AbortOutcome recoverAndAbort(InMemoryTransaction t) {
            return AbortOutcome.NOT_FOUND;
          }
        },
        "recoverAndAbortOfOpenTransaction",
        "recoverAndAbortOfPreCommittedTransaction",
        "recoverAndAbortOfCommittedHandleReportsCommitted");

    mutant(
        "recoverAndAbort does not look at the resource: always ABORTED",
        p -> new DelegatingParticipant(p) {
          @Override
          public AbortOutcome recoverAndAbort(InMemoryTransaction t) throws Exception {
            delegate.recoverAndAbort(t);
            return AbortOutcome.ABORTED;
          }
        },
        "recoverAndAbortOfPreCommittedTransaction",
        "recoverAndAbortOfUnknownHandleIsHarmless",
        "recoverAndAbortOfCommittedHandleReportsCommitted");

    mutant(
        "recoverAndAbort does not tell committed from gone",
        p -> new DelegatingParticipant(p) {
          @Override
          public AbortOutcome recoverAndAbort(InMemoryTransaction t) throws Exception {
            AbortOutcome outcome = delegate.recoverAndAbort(t);
            return outcome == AbortOutcome.COMMITTED ? AbortOutcome.NOT_FOUND : outcome;
          }
        },
        "recoverAndAbortOfCommittedHandleReportsCommitted");

    mutant(
        "recoverAndAbort rejects unknown and finished handles",
        p -> new DelegatingParticipant(p) {
          @Override
          public AbortOutcome recoverAndAbort(InMemoryTransaction t) throws Exception {
            if (!resource().openTransactions().contains(t.name())) {
              throw new IllegalStateException("no such transaction in progress: " + t);
            }
            return delegate.recoverAndAbort(t);
          }
        },
        "recoverAndAbortOfUnknownHandleIsHarmless",
        "recoverAndAbortOfCommittedHandleReportsCommitted");

    mutant(
        "finishRecoveringContext does nothing",
        p -> new DelegatingParticipant(p) {
          @Override
          public void finishRecoveringContext(RecoveryContext<InMemoryTransaction, Void> c) {}
        },
        "finishRecoveringAbortsLingeringTransactions");

    mutant(
        "finishRecoveringContext aborts every coordinator's transactions",
        p -> new DelegatingParticipant(p) {
          @Override
          public void finishRecoveringContext(RecoveryContext<InMemoryTransaction, Void> c)
              throws Exception {
            for (String name : resource().openTransactions()) {
              delegate.abort(new InMemoryTransaction(name, 0));
            }
            delegate.finishRecoveringContext(c);
          }
        },
        "finishRecoveringAbortsLingeringTransactions");

    mutant(
        "finishRecoveringContext matches on the coordinator id only",
        p -> new DelegatingParticipant(p) {
          @Override
          public void finishRecoveringContext(RecoveryContext<InMemoryTransaction, Void> c)
              throws Exception {
            // Instead of isOwnTransactionName: takes every participant's transactions of this
            // coordinator (the coordinator part of the prefix only).
            String prefix = c.transactionNamePrefix();
            prefix = prefix.substring(0, prefix.indexOf('-') + 1);
            Set<String> handled = new HashSet<>();
            c.handledTransactions().forEach(t -> handled.add(t.name()));
            for (String name : resource().openTransactions()) {
              if (name.startsWith(prefix) && !handled.contains(name)) {
                delegate.abort(new InMemoryTransaction(name, 0));
              }
            }
            delegate.finishRecoveringContext(c);
          }
        },
        "finishRecoveringAbortsLingeringTransactions");

    mutant(
        "LOST reported as ALREADY_COMMITTED",
        p -> new DelegatingParticipant(p) {
          private CommitOutcome lie(CommitOutcome outcome) {
            return outcome == CommitOutcome.LOST ? CommitOutcome.ALREADY_COMMITTED : outcome;
          }

          @Override
          public CommitOutcome commit(InMemoryTransaction t) throws Exception {
            return lie(delegate.commit(t));
          }

          @Override
          public CommitOutcome recoverAndCommit(InMemoryTransaction t) throws Exception {
            return lie(delegate.recoverAndCommit(t));
          }
        },
        "lostTransactionIsReportedAsLost",
        "abortAfterPreCommitDiscardsRecords",
        "recoverAndAbortOfPreCommittedTransaction",
        "finishRecoveringAbortsLingeringTransactions");

    mutant(
        "codec loses the transaction name",
        p -> new DelegatingParticipant(p) {
          @Override
          public Codec<InMemoryTransaction> transactionCodec() {
            Codec<InMemoryTransaction> real = delegate.transactionCodec();
            return new Codec<>() {
              @Override
              public int version() {
                return real.version();
              }

              @Override
              public byte[] encode(InMemoryTransaction value) throws Exception {
                return real.encode(new InMemoryTransaction("", value.begunAtMillis()));
              }

              @Override
              public InMemoryTransaction decode(byte[] bytes, int version) throws Exception {
                return real.decode(bytes, version);
              }
            };
          }
        },
        "handleAndContextSurviveTheCodec",
        "recoverAndCommitFromNewProcess");

    mutant(
        "codec ignores the version",
        p -> new DelegatingParticipant(p) {
          @Override
          public Codec<InMemoryTransaction> transactionCodec() {
            Codec<InMemoryTransaction> real = delegate.transactionCodec();
            return new Codec<>() {
              @Override
              public int version() {
                return real.version();
              }

              @Override
              public byte[] encode(InMemoryTransaction value) throws Exception {
                return real.encode(value);
              }

              @Override
              public InMemoryTransaction decode(byte[] bytes, int version) throws Exception {
                return real.decode(bytes, real.version());
              }
            };
          }
        },
        "handleAndContextSurviveTheCodec");

    mutant(
        "records of a transaction reversed",
        p -> new DelegatingParticipant(p) {
          private final Map<String, List<String>> buffers = new LinkedHashMap<>();

          @Override
          public RecordWriter<String> writerFor(InMemoryTransaction t) {
            return record -> buffers.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(record);
          }

          @Override
          public InMemoryTransaction preCommit(InMemoryTransaction t) throws Exception {
            List<String> buffer = buffers.getOrDefault(t.name(), new ArrayList<>());
            Collections.reverse(buffer);
            RecordWriter<String> writer = delegate.writerFor(t);
            for (String record : buffer) {
              writer.write(record);
            }
            return delegate.preCommit(t);
          }
        },
        "preCommittedRecordsStayInvisibleUntilCommit",
        "transactionsCommitInCreationOrder",
        "recoverAndCommitFromNewProcess");

    mutant(
        "empty transaction cannot be pre-committed",
        p -> new DelegatingParticipant(p) {
          @Override
          public InMemoryTransaction preCommit(InMemoryTransaction t) throws Exception {
            if (resource().records(t.name()).isEmpty()) {
              throw new IllegalStateException("nothing to flush");
            }
            return delegate.preCommit(t);
          }
        },
        "emptyTransactionCommits");

    mutant(
        "pre-committed data does not survive the process",
        p -> new DelegatingParticipant(p) {
          private final Set<String> mine = new HashSet<>();

          @Override
          public InMemoryTransaction beginTransaction(TransactionContext<Void> c) throws Exception {
            InMemoryTransaction t = delegate.beginTransaction(c);
            mine.add(t.name());
            return t;
          }

          @Override
          public CommitOutcome recoverAndCommit(InMemoryTransaction t) throws Exception {
            if (!mine.contains(t.name()) && resource().openTransactions().contains(t.name())) {
              delegate.recoverAndAbort(t);
              return CommitOutcome.LOST;
            }
            return delegate.recoverAndCommit(t);
          }
        },
        "recoverAndCommitFromNewProcess",
        "recoverAndCommitKeepsCreationOrder",
        "recoveryCommitsDecidedAndAbortsNewlyBegun",
        "emptyTransactionCommits");

    mutant(
        "zero transaction timeout",
        p -> new DelegatingParticipant(p) {
          @Override
          public Optional<Duration> transactionTimeout() {
            return Optional.of(Duration.ZERO);
          }
        },
        "declarationsAreSane");

    mutant(
        "commit bound to the thread that began the transaction",
        p -> new DelegatingParticipant(p) {
          // Like a connection bound to the thread that opened it: fine on one thread, wrong
          // under a coordinator whose commits run on a thread of their own.
          private final ThreadLocal<Set<String>> begunHere = ThreadLocal.withInitial(HashSet::new);

          @Override
          public InMemoryTransaction beginTransaction(TransactionContext<Void> c) throws Exception {
            InMemoryTransaction t = delegate.beginTransaction(c);
            begunHere.get().add(t.name());
            return t;
          }

          @Override
          public CommitOutcome commit(InMemoryTransaction t) throws Exception {
            if (!begunHere.get().contains(t.name())) {
              throw new IllegalStateException("no connection of " + t.name() + " on thread "
                  + Thread.currentThread().getName());
            }
            return delegate.commit(t);
          }
        },
        "commitRunsWhileTheNextTransactionIsWritten",
        "exactlyOnceUnderACoordinatorWithRestart");

    mutant(
        "commit drops the unflushed records of the transaction being written",
        p -> new DelegatingParticipant(p) {
          // Records are batched per transaction until preCommit; commit resets the session,
          // dropping every batch, the next transaction's included.
          private final Map<String, List<String>> batches = new ConcurrentHashMap<>();

          @Override
          public RecordWriter<String> writerFor(InMemoryTransaction t) {
            List<String> batch = Collections.synchronizedList(new ArrayList<>());
            batches.put(t.name(), batch);
            return batch::add;
          }

          @Override
          public InMemoryTransaction preCommit(InMemoryTransaction t) throws Exception {
            List<String> batch = batches.remove(t.name());
            RecordWriter<String> writer = delegate.writerFor(t);
            if (batch != null) {
              for (String record : List.copyOf(batch)) {
                writer.write(record);
              }
            }
            return delegate.preCommit(t);
          }

          @Override
          public CommitOutcome commit(InMemoryTransaction t) throws Exception {
            CommitOutcome outcome = delegate.commit(t);
            batches.clear();
            return outcome;
          }
        },
        "commitRunsWhileTheNextTransactionIsWritten");

    mutant(
        "transaction names from the checkpoint id",
        p -> new DelegatingParticipant(p) {
          @Override
          public InMemoryTransaction beginTransaction(TransactionContext<Void> c) throws Exception {
            return delegate.beginTransaction(new TransactionContext<Void>() {
              @Override
              public String coordinatorId() {
                return c.coordinatorId();
              }

              @Override
              public String participantName() {
                return c.participantName();
              }

              @Override
              public long ownerEpoch() {
                return c.ownerEpoch();
              }

              @Override
              public String transactionNamePrefix() {
                return c.transactionNamePrefix();
              }

              @Override
              public long checkpointId() {
                return c.checkpointId();
              }

              @Override
              public long sequence() {
                return c.sequence();
              }

              @Override
              public Optional<Void> userContext() {
                return c.userContext();
              }

              @Override
              public String transactionName() {
                // unique within one process, but an undecided checkpoint id comes again after a restart
                return c.transactionNamePrefix() + "0-" + c.checkpointId();
              }
            });
          }
        },
        "exactlyOnceUnderACoordinatorWithRestart");

    handleMutant(
        "handle without value equality",
        HandleMutantSuite.Flaw.IDENTITY_EQUALITY,
        "handleAndContextSurviveTheCodec");

    handleMutant(
        "preCommit changes the handle beginTransaction returned",
        HandleMutantSuite.Flaw.MUTATED_BY_PRE_COMMIT,
        "handlesAreImmutableValues");
  }
}
