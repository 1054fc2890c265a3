package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warnings at start-up about timeouts that lose data or fail every transaction: a
 * {@code transaction.timeout.ms} shorter than the checkpoint interval (the broker aborts
 * transactions before they are committed), or above the broker's {@code transaction.max.timeout.ms}
 * (the broker refuses the producers).
 */
@Internal
public final class StartupChecks {

  private static final Logger LOG = LoggerFactory.getLogger(StartupChecks.class);

  private StartupChecks() {}

  /** Logs the warnings that apply; never throws (a broker that cannot be asked is logged at DEBUG). */
  public static void warnAboutTimeouts(
      String participant, Admin admin, Duration adminTimeout, Duration transactionTimeout, Duration checkpointInterval) {
    if (checkpointInterval != null && transactionTimeout.compareTo(checkpointInterval) <= 0) {
      LOG.warn("{}: transaction.timeout.ms={} is not longer than the checkpoint interval {}: the broker aborts a "
          + "transaction that is not committed within it, and its checkpoint is LOST. Make transaction.timeout.ms "
          + "exceed the checkpoint interval plus the longest recovery downtime", participant, transactionTimeout.toMillis(),
          checkpointInterval);
    }
    try {
      Collection<Node> nodes = admin.describeCluster().nodes().get(adminTimeout.toMillis(), TimeUnit.MILLISECONDS);
      if (nodes.isEmpty()) {
        return;
      }
      ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(nodes.iterator().next().id()));
      Config config = admin.describeConfigs(List.of(broker)).all().get(adminTimeout.toMillis(), TimeUnit.MILLISECONDS)
          .get(broker);
      ConfigEntry max = config == null ? null : config.get("transaction.max.timeout.ms");
      if (max != null && max.value() != null && transactionTimeout.toMillis() > Long.parseLong(max.value())) {
        LOG.warn("{}: transaction.timeout.ms={} is above the broker's transaction.max.timeout.ms={}: the broker "
            + "refuses the producers (InvalidTxnTimeoutException). Lower transaction.timeout.ms or raise "
            + "transaction.max.timeout.ms", participant, transactionTimeout.toMillis(), max.value());
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.debug("{}: could not read the broker's transaction.max.timeout.ms", participant, e);
    }
  }
}
