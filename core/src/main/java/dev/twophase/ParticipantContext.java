package dev.twophase;

import dev.twophase.internal.Contexts;

/** Who a participant works for; passed to every life-cycle call that creates resources. */
public interface ParticipantContext {

  /** The coordinator's id, unique within its state log. Use it as a prefix of resource names. */
  String coordinatorId();

  /** The participant's name, unique within the coordinator. */
  String participantName();

  /**
   * The owner epoch of this coordinator incarnation. It grows with every start, so resources named
   * with it never collide with those of an earlier incarnation, and a participant whose resource
   * supports fencing can reject a zombie whose epoch is lower.
   */
  long ownerEpoch();

  /**
   * The part every {@link TransactionContext#transactionName()} of this coordinator's participant
   * starts with, in every incarnation: {@code <coordinatorId>-<participantName>-}, each name made
   * safe for file names, Kafka transactional ids and XA ids (characters other than letters, digits
   * and {@code .} become {@code _}, and a name that needed this gets the CRC-32 of the original
   * appended; so two different names map to the same text only if both needed escaping and their
   * CRC-32s collide). Neither part contains
   * {@code -}, so the prefix of one pair is never the prefix of another's names.
   */
  default String transactionNamePrefix() {
    return Contexts.namePrefix(coordinatorId(), participantName());
  }

  /**
   * Whether {@code name} is a transaction name of this coordinator's participant, from any
   * incarnation: {@link #transactionNamePrefix()} followed by {@code <epoch>-<sequence>}. This is
   * the test a participant applies on start-up to find its leftovers without touching those of
   * other coordinators sharing the resource.
   */
  default boolean isOwnTransactionName(String name) {
    return Contexts.isOwnName(transactionNamePrefix(), name);
  }
}
