package dev.twophase.benchmarks;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;

/**
 * A participant whose write does the least real work that cannot be optimised away: it counts the
 * record and stores it into a preallocated ring buffer. Nothing is allocated per record. Handles
 * are the transaction names.
 */
public final class CountingParticipant
    implements Participant<String, Void>, Writable<Object, String> {

  private static final int RING = 1024; // a power of two

  private final Object[] ring = new Object[RING];
  long written;

  @Override
  public Codec<String> transactionCodec() {
    return Codecs.utf8();
  }

  @Override
  public String beginTransaction(TransactionContext<Void> context) {
    return context.transactionName();
  }

  private final RecordWriter<Object> writer = record -> ring[(int) (written++ & (RING - 1))] = record;

  @Override
  public RecordWriter<Object> writerFor(String transaction) {
    return writer;
  }

  @Override
  public String preCommit(String transaction) {
    return transaction;
  }

  @Override
  public AbortOutcome recoverAndAbort(String transaction) {
    return AbortOutcome.NOT_FOUND;
  }

  @Override
  public CommitOutcome commit(String transaction) {
    return CommitOutcome.COMMITTED;
  }

  @Override
  public void abort(String transaction) {}

  /** Records written so far. */
  public long written() {
    return written;
  }
}
