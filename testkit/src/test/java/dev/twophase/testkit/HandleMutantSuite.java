package dev.twophase.testkit;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryTransaction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The suite on a participant whose handle is a hand-written class rather than a record, so that
 * the self-test can break what a record gives for free: value equality and immutability. With
 * {@link Flaw#NONE} it is a correct participant. Not named *Test: the self-test runs it.
 */
class HandleMutantSuite extends ParticipantConformanceSuite<HandleMutantSuite.Handle, Void, String> {

  /** What is wrong with the handle. */
  enum Flaw {
    NONE,
    /** equals and hashCode are Object's: two decodings of one handle are not equal. */
    IDENTITY_EQUALITY,
    /** preCommit adds the records it flushed to the handle it was given and returns that one. */
    MUTATED_BY_PRE_COMMIT
  }

  /** A handle: the in-memory transaction's name and time, and notes gathered by preCommit. */
  static final class Handle {
    final String name;
    final long begunAtMillis;
    final List<String> notes;
    final boolean valueEquality;

    Handle(String name, long begunAtMillis, List<String> notes, boolean valueEquality) {
      this.name = name;
      this.begunAtMillis = begunAtMillis;
      this.notes = new ArrayList<>(notes);
      this.valueEquality = valueEquality;
    }

    InMemoryTransaction transaction() {
      return new InMemoryTransaction(name, begunAtMillis);
    }

    @Override
    public boolean equals(Object o) {
      if (!valueEquality) {
        return this == o;
      }
      return o instanceof Handle h && h.name.equals(name) && h.begunAtMillis == begunAtMillis && h.notes.equals(notes);
    }

    @Override
    public int hashCode() {
      return valueEquality ? Objects.hash(name, begunAtMillis, notes) : System.identityHashCode(this);
    }

    @Override
    public String toString() {
      return "Handle{" + name + ", notes=" + notes + "}";
    }
  }

  private final Flaw flaw;
  private InMemoryResource<String> resource;

  HandleMutantSuite(Flaw flaw) {
    this.flaw = flaw;
  }

  @Override
  protected void setUpResource() {
    resource = new InMemoryResource<>();
  }

  @Override
  protected Participant<Handle, Void> newParticipant(SimulatedProcess process) {
    return new HandleParticipant(new InMemoryParticipant<>(resource), flaw);
  }

  @Override
  protected List<String> committedRecords() {
    return resource.committedRecords();
  }

  @Override
  protected String record(int i) {
    return "record-" + i;
  }

  @Override
  protected boolean lostTransactionSupported() {
    return true;
  }

  @Override
  protected void makeLost(Handle transaction) {
    if (!resource.expire(transaction.name)) {
      throw new IllegalStateException("could not expire " + transaction);
    }
  }

  @Override
  protected boolean inProgressCheckSupported() {
    return true;
  }

  @Override
  protected boolean isInProgress(Handle transaction) {
    return resource.openTransactions().contains(transaction.name);
  }

  @Override
  protected Optional<Handle> handleNeverBegun(TransactionContext<Void> context) {
    return Optional.of(new Handle(context.transactionName(), 0, List.of(), flaw != Flaw.IDENTITY_EQUALITY));
  }

  /** The in-memory participant behind {@link Handle}s. */
  static final class HandleParticipant implements Participant<Handle, Void>, Writable<String, Handle> {
    private final InMemoryParticipant<String> delegate;
    private final Flaw flaw;

    HandleParticipant(InMemoryParticipant<String> delegate, Flaw flaw) {
      this.delegate = delegate;
      this.flaw = flaw;
    }

    private Handle handle(InMemoryTransaction t, List<String> notes) {
      return new Handle(t.name(), t.begunAtMillis(), notes, flaw != Flaw.IDENTITY_EQUALITY);
    }

    @Override
    public Codec<Handle> transactionCodec() {
      return new Codec<>() {
        @Override
        public int version() {
          return 1;
        }

        @Override
        public byte[] encode(Handle h) {
          return (h.name + "\n" + h.begunAtMillis + "\n" + String.join(",", h.notes)).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Handle decode(byte[] bytes, int version) {
          if (version != 1) {
            throw new IllegalArgumentException("unknown version " + version);
          }
          String[] parts = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
          List<String> notes = parts[2].isEmpty() ? List.of() : List.of(parts[2].split(","));
          return new Handle(parts[0], Long.parseLong(parts[1]), notes, flaw != Flaw.IDENTITY_EQUALITY);
        }
      };
    }

    @Override
    public Handle beginTransaction(TransactionContext<Void> context) throws Exception {
      return handle(delegate.beginTransaction(context), List.of());
    }

    @Override
    public RecordWriter<String> writerFor(Handle transaction) throws Exception {
      return delegate.writerFor(transaction.transaction());
    }

    @Override
    public Handle preCommit(Handle transaction) throws Exception {
      delegate.preCommit(transaction.transaction());
      int records = delegate.resource().records(transaction.name).size();
      if (flaw == Flaw.MUTATED_BY_PRE_COMMIT) {
        transaction.notes.add("records=" + records);
        return transaction;
      }
      return handle(transaction.transaction(), List.of("records=" + records));
    }

    @Override
    public CommitOutcome commit(Handle transaction) throws Exception {
      return delegate.commit(transaction.transaction());
    }

    @Override
    public void abort(Handle transaction) throws Exception {
      delegate.abort(transaction.transaction());
    }

    @Override
    public AbortOutcome recoverAndAbort(Handle transaction) throws Exception {
      return delegate.recoverAndAbort(transaction.transaction());
    }

    @Override
    public void finishRecoveringContext(RecoveryContext<Handle, Void> context) throws Exception {
      List<InMemoryTransaction> handled = new ArrayList<>();
      context.handledTransactions().forEach(h -> handled.add(h.transaction()));
      delegate.finishRecoveringContext(new RecoveryContext<>() {
        @Override
        public String coordinatorId() {
          return context.coordinatorId();
        }

        @Override
        public String participantName() {
          return context.participantName();
        }

        @Override
        public long ownerEpoch() {
          return context.ownerEpoch();
        }

        @Override
        public String transactionNamePrefix() {
          return context.transactionNamePrefix();
        }

        @Override
        public List<InMemoryTransaction> handledTransactions() {
          return handled;
        }

        @Override
        public Optional<Void> userContext() {
          return Optional.empty();
        }

        @Override
        public long lastCheckpointId() {
          return context.lastCheckpointId();
        }
      });
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
