package dev.twophase.testkit;

import dev.twophase.Participant;
import dev.twophase.TransactionContext;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryTransaction;
import java.util.List;
import java.util.Optional;

/** The conformance suite applied to the in-memory participant that ships with twophase-core. */
class InMemoryParticipantConformanceTest
    extends ParticipantConformanceSuite<InMemoryTransaction, Void, String> {

  InMemoryResource<String> resource;

  @Override
  protected void setUpResource() {
    resource = new InMemoryResource<>();
  }

  /** The in-memory participant holds nothing a killed process would lose: nothing to track. */
  @Override
  protected Participant<InMemoryTransaction, Void> newParticipant(SimulatedProcess process) {
    return new InMemoryParticipant<>(resource);
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
  protected void makeLost(InMemoryTransaction transaction) {
    if (!resource.expire(transaction.name())) {
      throw new IllegalStateException("could not expire " + transaction);
    }
  }

  @Override
  protected boolean inProgressCheckSupported() {
    return true;
  }

  @Override
  protected boolean isInProgress(InMemoryTransaction transaction) {
    return resource.openTransactions().contains(transaction.name());
  }

  @Override
  protected Optional<InMemoryTransaction> handleNeverBegun(TransactionContext<Void> context) {
    return Optional.of(new InMemoryTransaction(context.transactionName(), 0));
  }
}
