package dev.twophase.benchmarks;

import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
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

  @Override
  public void write(String transaction, Object record) {
    ring[(int) (written++ & (RING - 1))] = record;
  }

  @Override
  public void preCommit(String transaction) {}

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
