package dev.twophase.internal.log;

/** Receives the intact records of a state log, in log order. */
interface RecordVisitor {

  void owner(long epoch);

  void state(String coordinatorId, long checkpointId, long epoch, byte[] payload);

  void completed(String coordinatorId, long checkpointId, long epoch);
}
