package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.flink.InputMapper;
import dev.twophase.flink.ParticipantFactory;
import java.io.Serializable;
import java.util.Objects;

/**
 * How to make one participant of the sink on a task manager: its name, its factory and the mapping
 * of the sink's records into it. Shipped with the sink by Java serialization (configuration only,
 * never a handle or a state).
 *
 * @param name    the participant's name, unique within the sink; part of its transaction names
 * @param factory creates the participant (a {@code Participant} that is {@code Writable})
 * @param mapper  maps the sink's input to the participant's records
 */
@Internal
public record ParticipantSpec(String name, ParticipantFactory<?> factory, InputMapper<?, ?> mapper)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  public ParticipantSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(factory, "factory");
    Objects.requireNonNull(mapper, "mapper");
  }
}
