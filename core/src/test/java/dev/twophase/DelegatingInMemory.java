package dev.twophase;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryTransaction;
import java.time.Duration;
import java.util.Optional;

/** Forwards to an {@link InMemoryParticipant}; tests override the behaviour they change. */
class DelegatingInMemory implements Participant<InMemoryTransaction, Void>, Writable<String, InMemoryTransaction> {

  final InMemoryParticipant<String> delegate;

  DelegatingInMemory(InMemoryParticipant<String> delegate) {
    this.delegate = delegate;
  }

  @Override
  public Codec<InMemoryTransaction> transactionCodec() {
    return delegate.transactionCodec();
  }

  @Override
  public Optional<Void> initializeUserContext(ParticipantContext context) {
    return delegate.initializeUserContext(context);
  }

  @Override
  public InMemoryTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
    return delegate.beginTransaction(context);
  }

  @Override
  public RecordWriter<String> writerFor(InMemoryTransaction transaction) {
    return delegate.writerFor(transaction);
  }

  @Override
  public InMemoryTransaction preCommit(InMemoryTransaction transaction) throws Exception {
    return delegate.preCommit(transaction);
  }

  @Override
  public CommitOutcome commit(InMemoryTransaction transaction) throws Exception {
    return delegate.commit(transaction);
  }

  @Override
  public void abort(InMemoryTransaction transaction) throws Exception {
    delegate.abort(transaction);
  }

  @Override
  public CommitOutcome recoverAndCommit(InMemoryTransaction transaction) throws Exception {
    return delegate.recoverAndCommit(transaction);
  }

  @Override
  public AbortOutcome recoverAndAbort(InMemoryTransaction transaction) throws Exception {
    return delegate.recoverAndAbort(transaction);
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<InMemoryTransaction, Void> context) throws Exception {
    delegate.finishRecoveringContext(context);
  }

  @Override
  public Optional<Duration> transactionTimeout() {
    return delegate.transactionTimeout();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
