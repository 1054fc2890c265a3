package dev.twophase.testkit;

import dev.twophase.Participant;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryTransaction;
import java.util.function.Function;

/**
 * The suite on a participant built by a function of the in-memory one (a broken wrapper, or the
 * identity). Not named *Test: the self-test runs it by reflection, surefire does not.
 */
class MutantSuite extends InMemoryParticipantConformanceTest {

  private final Function<InMemoryParticipant<String>, Participant<InMemoryTransaction, Void>> wrap;

  MutantSuite(Function<InMemoryParticipant<String>, Participant<InMemoryTransaction, Void>> wrap) {
    this.wrap = wrap;
  }

  @Override
  protected Participant<InMemoryTransaction, Void> newParticipant(SimulatedProcess process) {
    return wrap.apply(new InMemoryParticipant<>(resource));
  }
}
