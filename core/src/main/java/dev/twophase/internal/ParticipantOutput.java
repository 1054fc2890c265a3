package dev.twophase.internal;

import dev.twophase.CoordinatorState;
import dev.twophase.Output;
import dev.twophase.RecordWriter;
import dev.twophase.TwoPhaseException;
import dev.twophase.internal.engine.Member;

/**
 * The per-record path: a thread check, a state check, the current transaction's
 * {@link RecordWriter}, a counter. Nothing allocated, no lock, no look-up.
 */
final class ParticipantOutput<IN> implements Output<IN> {

  private final CoordinatorEngine core;
  private final Member<Object, Object> member;

  ParticipantOutput(CoordinatorEngine core, Member<Object, Object> member) {
    this.core = core;
    this.member = member;
  }

  @Override
  public void write(IN record) {
    if (record == null) {
      throw new NullPointerException(
          "record must not be null (participant '" + member.name() + "' of coordinator '"
              + core.coordinatorId + "')");
    }
    core.applicationThread.check("write");
    RecordWriter<Object> writer = member.writer();
    if (writer == null || core.lifecycle.state() != CoordinatorState.RUNNING) {
      core.ensure("write", CoordinatorState.RUNNING);
      if (writer == null) {
        throw new IllegalStateException("participant '" + member.name() + "' of coordinator '"
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
    member.recordWritten();
  }

  private TwoPhaseException writeFailed(Exception e) {
    return new TwoPhaseException(
        "participant '" + member.name() + "' could not write a record into the transaction of "
            + "checkpoint " + member.currentCheckpointId() + " (" + member.current() + "): " + e.getMessage(),
        e,
        member.currentCheckpointId(),
        member.name());
  }

  @Override
  public String toString() {
    return "Output[" + core.coordinatorId + "/" + member.name() + "]";
  }
}
