package dev.twophase.testkit;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.ParticipantContext;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryTransaction;
import java.time.Duration;
import java.util.Optional;

/** Forwards everything to an {@link InMemoryParticipant}; mutants override one behaviour. */
class DelegatingParticipant
    implements Participant<InMemoryTransaction, Void>, Writable<String, InMemoryTransaction> {

  final InMemoryParticipant<String> delegate;

  DelegatingParticipant(InMemoryParticipant<String> delegate) {
    this.delegate = delegate;
  }

  InMemoryResource<String> resource() {
    return delegate.resource();
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
  public RecordWriter<String> writerFor(InMemoryTransaction transaction) throws Exception {
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
  public void finishRecoveringContext(RecoveryContext<InMemoryTransaction, Void> context)
      throws Exception {
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
