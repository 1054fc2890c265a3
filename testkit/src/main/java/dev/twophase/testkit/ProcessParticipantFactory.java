package dev.twophase.testkit;

import dev.twophase.Participant;
import dev.twophase.annotation.PublicEvolving;

/**
 * Makes a new participant instance, on the same external resource as every other, inside a new
 * {@link SimulatedProcess}. Each call stands for a new operating-system process: the instance must
 * not share in-memory state (buffers, open transactions, caches) with earlier ones. Resources the
 * participant creates through factories should be registered with {@code process}, so that
 * killing the process releases them as the operating system would.
 *
 * @param <TXN> the participant's handle type
 * @param <CONTEXT> the participant's user context type ({@link Void} if none)
 */
@PublicEvolving
@FunctionalInterface
public interface ProcessParticipantFactory<TXN, CONTEXT> {

  /** A new participant instance living in {@code process}. Never null. */
  Participant<TXN, CONTEXT> newParticipant(SimulatedProcess process) throws Exception;
}
