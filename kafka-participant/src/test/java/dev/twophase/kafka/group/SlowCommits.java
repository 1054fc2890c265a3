package dev.twophase.kafka.group;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.ParticipantContext;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.RetirementListener;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.KafkaTransaction;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A Kafka participant whose every commit first sleeps for {@code delay}, as a slow resource would. */
final class SlowCommits<IN> implements Participant<KafkaTransaction, Void>, Writable<IN, KafkaTransaction>,
    RetirementListener<KafkaTransaction> {

  private final KafkaParticipant<IN> delegate;
  private final Duration delay;
  final AtomicInteger commits = new AtomicInteger();

  SlowCommits(KafkaParticipant<IN> delegate, Duration delay) {
    this.delegate = delegate;
    this.delay = delay;
  }

  @Override
  public Codec<KafkaTransaction> transactionCodec() {
    return delegate.transactionCodec();
  }

  @Override
  public Optional<Void> initializeUserContext(ParticipantContext context) throws Exception {
    return delegate.initializeUserContext(context);
  }

  @Override
  public KafkaTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
    return delegate.beginTransaction(context);
  }

  @Override
  public RecordWriter<IN> writerFor(KafkaTransaction transaction) {
    return delegate.writerFor(transaction);
  }

  @Override
  public KafkaTransaction preCommit(KafkaTransaction transaction) throws Exception {
    return delegate.preCommit(transaction);
  }

  @Override
  public CommitOutcome commit(KafkaTransaction transaction) throws Exception {
    Thread.sleep(delay.toMillis());
    commits.incrementAndGet();
    return delegate.commit(transaction);
  }

  @Override
  public void abort(KafkaTransaction transaction) throws Exception {
    delegate.abort(transaction);
  }

  @Override
  public void startRecovery(ParticipantContext context) throws Exception {
    delegate.startRecovery(context);
  }

  @Override
  public CommitOutcome recoverAndCommit(KafkaTransaction transaction) throws Exception {
    return delegate.recoverAndCommit(transaction);
  }

  @Override
  public AbortOutcome recoverAndAbort(KafkaTransaction transaction) throws Exception {
    return delegate.recoverAndAbort(transaction);
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<KafkaTransaction, Void> context) throws Exception {
    delegate.finishRecoveringContext(context);
  }

  @Override
  public Optional<Duration> transactionTimeout() {
    return delegate.transactionTimeout();
  }

  @Override
  public void onRetired(List<KafkaTransaction> transactions) throws Exception {
    delegate.onRetired(transactions);
  }

  @Override
  public void onEarlierIncarnationsRetired(ParticipantContext context) throws Exception {
    delegate.onEarlierIncarnationsRetired(context);
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }
}
