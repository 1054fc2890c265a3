package dev.twophase.kafka;

import dev.twophase.annotation.Experimental;
import java.util.List;

/**
 * The named points at which a {@link KafkaParticipant} calls its
 * {@link KafkaParticipant.Builder#faultInjector(dev.twophase.FaultInjector) fault injector}. A crash
 * test halts a JVM at one of them (with the core's {@code CrashInjector}) and recovers in a new
 * one. None of them is on the per-record path.
 */
@Experimental
public final class KafkaPoints {

  private KafkaPoints() {}

  /** Every record of the transaction acknowledged by the broker, the handle not yet returned. */
  public static final String AFTER_FLUSH = "kafka.preCommit.afterFlush";

  /** The broker accepted the commit of a live producer, the outcome not yet returned. */
  public static final String AFTER_COMMIT = "kafka.commit.afterCommit";

  /** The broker accepted a commit resumed from a handle, the outcome not yet returned. */
  public static final String AFTER_RECOVERY_COMMIT = "kafka.recoverAndCommit.afterCommit";

  /** One lingering transaction aborted at start-up, before the next. */
  public static final String AFTER_LINGERING_ABORT = "kafka.finishRecovering.afterAbort";

  /** Every point, in the order a transaction can reach them; for {@code CrashInjector.parse}. */
  public static List<String> all() {
    return List.of(AFTER_FLUSH, AFTER_COMMIT, AFTER_RECOVERY_COMMIT, AFTER_LINGERING_ABORT);
  }
}
