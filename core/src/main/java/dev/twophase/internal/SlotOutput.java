package dev.twophase.internal;

import dev.twophase.CoordinatorState;
import dev.twophase.Output;
import dev.twophase.RecordWriter;
import dev.twophase.TwoPhaseException;

/**
 * The per-record path: a thread check, a state check, the current transaction's
 * {@link RecordWriter}, a counter. Nothing allocated, no lock, no look-up.
 */
final class SlotOutput<IN> implements Output<IN> {

  private final CoordinatorCore core;
  private final Slot<Object, Object> slot;

  SlotOutput(CoordinatorCore core, Slot<Object, Object> slot) {
    this.core = core;
    this.slot = slot;
  }

  @Override
  public void write(IN record) {
    if (record == null) {
      throw new NullPointerException(
          "record must not be null (participant '" + slot.name + "' of coordinator '"
              + core.coordinatorId + "')");
    }
    core.applicationThread.check("write");
    RecordWriter<Object> writer = slot.writer;
    if (writer == null || core.lifecycle.state() != CoordinatorState.RUNNING) {
      core.ensure("write", CoordinatorState.RUNNING);
      if (writer == null) {
        throw new IllegalStateException("participant '" + slot.name + "' of coordinator '"
            + core.coordinatorId + "' has no open transaction to write to");
      }
    }
    try {
      writer.write(record);
    } catch (RuntimeException e) {
      throw e instanceof TwoPhaseException ? e : writeFailed(e);
    } catch (Exception e) {
      throw writeFailed(e);
    }
    slot.recordsSinceCheckpoint++;
  }

  private TwoPhaseException writeFailed(Exception e) {
    return new TwoPhaseException(
        "participant '" + slot.name + "' could not write a record into the transaction of "
            + "checkpoint " + slot.currentCheckpointId + " (" + slot.current + "): " + e.getMessage(),
        e,
        slot.currentCheckpointId,
        slot.name);
  }

  @Override
  public String toString() {
    return "Output[" + core.coordinatorId + "/" + slot.name + "]";
  }
}
