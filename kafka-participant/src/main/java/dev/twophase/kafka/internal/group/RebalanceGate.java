package dev.twophase.kafka.internal.group;

import dev.twophase.annotation.Internal;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Configurable;

/**
 * Whether a rebalance of the consumer group is under way for this member: from the moment the
 * consumer asks to join (again) until it has its assignment. Meanwhile the member's group
 * generation is about to be replaced, and the broker refuses input offsets committed in a
 * transaction under the old one (KIP-447: {@code ILLEGAL_GENERATION}, which a Kafka participant
 * reports as fenced), so the runner takes no checkpoint then; the tasks keep processing, and
 * checkpoint once the assignment is in. (Kafka Streams holds its commits back likewise.)
 *
 * <p>The consumer tells it through {@link Assignor}, the cooperative sticky assignor with two
 * hooks: {@code subscriptionUserData} runs whenever the member joins, {@code onAssignment} when its
 * assignment arrives. Threads: the consumer's (inside {@code poll}) and the runner's, which are the
 * same; volatile for the ids' readers.
 */
@Internal
public final class RebalanceGate {

  /** The consumer config key under which the runner hands the gate to its assignor. */
  public static final String CONFIG_KEY = "twophase.group.rebalance.gate";

  private volatile boolean rebalancing;

  /** Whether a rebalance is under way for this member. */
  public boolean rebalancing() {
    return rebalancing;
  }

  /** The cooperative sticky assignor, telling a {@link RebalanceGate} when a rebalance starts and ends. */
  public static final class Assignor extends CooperativeStickyAssignor implements Configurable {

    private RebalanceGate gate;

    @Override
    public void configure(Map<String, ?> configs) {
      if (!(configs.get(CONFIG_KEY) instanceof RebalanceGate g)) {
        throw new IllegalArgumentException(Assignor.class.getName() + " is the group runner's own assignor: "
            + "leave partition.assignment.strategy to the runner");
      }
      this.gate = g;
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
      gate.rebalancing = true;
      return super.subscriptionUserData(topics);
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
      super.onAssignment(assignment, metadata);
      gate.rebalancing = false;
    }
  }
}
