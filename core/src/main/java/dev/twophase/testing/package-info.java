/**
 * Test doubles that ship with twophase-core, like Kafka's {@code MockProducer}: an in-memory
 * transactional resource ({@link dev.twophase.testing.InMemoryResource}), a participant on it
 * ({@link dev.twophase.testing.InMemoryParticipant}) with fault injection, and plain value
 * implementations of the context interfaces.
 *
 * <p>Nothing here is used by the coordinator itself. Participant authors find the conformance
 * suite in the {@code twophase-testkit} module.
 */
package dev.twophase.testing;
