package dev.twophase.kafka.internal.statelog;

import dev.twophase.StateLogCorruptedException;
import dev.twophase.annotation.Internal;

/** The {@link StateLogCorruptedException} of a Kafka state log, with the operator's remedy. */
@Internal
final class Corruption {

  private Corruption() {}

  /**
   * Damage at {@code offset} of {@code topic}'s partition {@code partition}, in a record of
   * {@code coordinatorId} (null for the log-id record or a record whose key is unreadable).
   */
  static StateLogCorruptedException at(String topic, int partition, long offset,
      String coordinatorId, String what) {
    String whose = coordinatorId == null ? "" : " of coordinator '" + coordinatorId + "'";
    return new StateLogCorruptedException("Kafka state log topic '" + topic + "' holds a damaged "
        + "record" + whose + ": " + what + ". Nothing was skipped or repaired; the coordinator "
        + "cannot be claimed until the damage is dealt with. Look at the record (kafka-console-"
        + "consumer --topic " + topic + " --partition " + partition + " --offset " + offset
        + " --property print.key=true), then restore the coordinator's records from a copy of the "
        + "topic at least as recent as the damage, or, having checked what its participants "
        + "committed, start the coordinator under a new id; see docs/state-log-kafka.md, "
        + "\"Damage\"", topic + "-" + partition, offset);
  }
}
