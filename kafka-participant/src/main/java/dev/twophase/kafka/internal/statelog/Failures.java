package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;

/** How the Kafka client reports that a producer was fenced. */
@Internal
final class Failures {

  private Failures() {}

  /**
   * Whether {@code t} or one of its causes says that a newer producer of the transactional id
   * fenced this one.
   */
  static boolean isFenced(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ProducerFencedException || c instanceof InvalidProducerEpochException) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }
}
