package dev.twophase.kafka.internal.group;

import dev.twophase.Coordinator;
import dev.twophase.Output;
import dev.twophase.Participant;
import dev.twophase.Writable;
import dev.twophase.annotation.Internal;
import dev.twophase.kafka.ConsumedOffsets;
import dev.twophase.kafka.group.TaskSetup;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@link TaskSetup} of one task: the participants a factory registers, in order, and the
 * outputs it asked for, bound to the task's coordinator once it is built.
 */
@Internal
final class TaskSetupImpl implements TaskSetup {

  private final String taskId;
  private final String coordinatorId;
  private final TopicPartition partition;
  private final ConsumedOffsets consumedOffsets;
  private final Map<String, Participant<?, ?>> participants = new LinkedHashMap<>();
  private final List<Bindable> outputs = new ArrayList<>();
  private Coordinator coordinator;

  TaskSetupImpl(String taskId, String coordinatorId, TopicPartition partition, ConsumedOffsets consumedOffsets) {
    this.taskId = taskId;
    this.coordinatorId = coordinatorId;
    this.partition = partition;
    this.consumedOffsets = consumedOffsets;
  }

  @Override
  public String taskId() {
    return taskId;
  }

  @Override
  public String coordinatorId() {
    return coordinatorId;
  }

  @Override
  public TopicPartition partition() {
    return partition;
  }

  @Override
  public ConsumedOffsets consumedOffsets() {
    return consumedOffsets;
  }

  @Override
  public void participant(String name, Participant<?, ?> participant) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(participant, "participant");
    if (coordinator != null) {
      throw new IllegalStateException("task " + taskId + " runs already: register participants in the TaskFactory");
    }
    if (participants.containsKey(name)) {
      throw new IllegalArgumentException("task " + taskId + " has a participant named '" + name + "' already");
    }
    if (participants.containsValue(participant)) {
      throw new IllegalArgumentException("task " + taskId + ": participant '" + name + "' is registered already "
          + "under another name; give each name its own participant instance");
    }
    participants.put(name, participant);
  }

  @Override
  public <IN, T, P extends Participant<T, ?> & Writable<IN, T>> Output<IN> output(String name, P participant) {
    participant(name, participant);
    Deferred<IN> output = new Deferred<>(taskId, name) {
      @Override
      Output<IN> bind(Coordinator c) {
        return c.output(participant);
      }
    };
    outputs.add(output);
    return output;
  }

  @Override
  public Coordinator coordinator() {
    if (coordinator == null) {
      throw new IllegalStateException("task " + taskId + " does not run yet: its coordinator is built after the "
          + "TaskFactory returns; use it from the RecordProcessor");
    }
    return coordinator;
  }

  Map<String, Participant<?, ?>> participants() {
    return participants;
  }

  /** The task's coordinator is built: every output asked for writes through it from now on. */
  void bind(Coordinator built) {
    for (Bindable b : outputs) {
      b.bindTo(built);
    }
    this.coordinator = built;
  }

  private interface Bindable {
    void bindTo(Coordinator c);
  }

  /** An output asked for before the coordinator existed, bound to it once it does. */
  private abstract static class Deferred<IN> implements Output<IN>, Bindable {
    private final String taskId;
    private final String name;
    private Output<IN> bound;

    Deferred(String taskId, String name) {
      this.taskId = taskId;
      this.name = name;
    }

    abstract Output<IN> bind(Coordinator c);

    @Override
    public void bindTo(Coordinator c) {
      bound = bind(c);
    }

    @Override
    public void write(IN record) {
      Output<IN> out = bound;
      if (out == null) {
        throw new IllegalStateException("the output of participant '" + name + "' of task " + taskId + " works "
            + "once the task runs: write from the RecordProcessor, not from the TaskFactory");
      }
      out.write(record);
    }
  }
}
