package dev.twophase.internal.log;

import java.nio.file.Path;

/** Receives the intact records of a state log, in log order. */
interface RecordVisitor {

  void owner(long epoch);

  /**
   * A STATE record, found in {@code file} at {@code offset}, {@code length} bytes long (frame and
   * body).
   */
  void state(String coordinatorId, long checkpointId, long epoch, byte[] payload, Path file,
      long offset, int length);

  void completed(String coordinatorId, long checkpointId, long epoch);
}
