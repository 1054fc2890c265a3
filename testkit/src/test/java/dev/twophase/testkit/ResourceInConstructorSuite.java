package dev.twophase.testkit;

import dev.twophase.Participant;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryTransaction;
import java.util.List;

/**
 * The suite on a participant that creates its resource in its constructor, as one that creates
 * its tables there does: before the first participant exists, {@link #committedRecords()} fails
 * the way a query of a missing table does. Not named *Test: the self-test runs it by reflection.
 */
class ResourceInConstructorSuite extends InMemoryParticipantConformanceTest {

  @Override
  protected void setUpResource() {
    resource = null;
  }

  @Override
  protected Participant<InMemoryTransaction, Void> newParticipant(SimulatedProcess process) {
    if (resource == null) {
      resource = new InMemoryResource<>();
    }
    return new InMemoryParticipant<>(resource);
  }

  @Override
  protected List<String> committedRecords() {
    if (resource == null) {
      throw new IllegalStateException("no such table: the participant creates it in its constructor");
    }
    return resource.committedRecords();
  }
}
