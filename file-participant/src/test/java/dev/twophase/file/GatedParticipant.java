package dev.twophase.file;

import dev.twophase.Codec;
import dev.twophase.AbortOutcome;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file participant whose commits the test can hold back (they throw, so the coordinator keeps
 * the checkpoint pending and retries): what a slow or crashed committer looks like from the
 * outside. Everything else is delegated unchanged.
 */
final class GatedParticipant<IN> implements Participant<FileTransaction, Void>, Writable<IN, FileTransaction> {

  final FileParticipant<IN> delegate;
  volatile boolean commitsBlocked;
  final AtomicInteger blockedCommits = new AtomicInteger();

  GatedParticipant(FileParticipant<IN> delegate, boolean commitsBlocked) {
    this.delegate = delegate;
    this.commitsBlocked = commitsBlocked;
  }

  @Override
  public Codec<FileTransaction> transactionCodec() {
    return delegate.transactionCodec();
  }

  @Override
  public FileTransaction beginTransaction(TransactionContext<Void> context) {
    return delegate.beginTransaction(context);
  }

  @Override
  public RecordWriter<IN> writerFor(FileTransaction transaction) {
    return delegate.writerFor(transaction);
  }

  @Override
  public FileTransaction preCommit(FileTransaction transaction) throws IOException {
    return delegate.preCommit(transaction);
  }

  @Override
  public CommitOutcome commit(FileTransaction transaction) throws IOException {
    if (commitsBlocked) {
      blockedCommits.incrementAndGet();
      throw new IOException("commit of " + transaction.name() + " held back by the test");
    }
    return delegate.commit(transaction);
  }

  @Override
  public void abort(FileTransaction transaction) throws IOException {
    delegate.abort(transaction);
  }

  @Override
  public CommitOutcome recoverAndCommit(FileTransaction transaction) throws IOException {
    return commit(transaction);
  }

  @Override
  public AbortOutcome recoverAndAbort(FileTransaction transaction) throws IOException {
    return delegate.recoverAndAbort(transaction);
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<FileTransaction, Void> context) throws IOException {
    delegate.finishRecoveringContext(context);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return "Gated" + delegate;
  }
}
