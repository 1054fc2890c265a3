package dev.twophase;

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
}
