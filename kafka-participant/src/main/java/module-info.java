/**
 * twophase's Kafka participant: exactly-once records in Kafka through transactional producers,
 * committed from a handle after a crash, and a runner that spreads a job over a consumer group.
 * Only {@code dev.twophase.kafka} and {@code dev.twophase.kafka.group} are exported;
 * {@code dev.twophase.kafka.internal} is not.
 */
module dev.twophase.kafka {
  requires transitive dev.twophase.core;
  requires transitive kafka.clients;
  requires org.slf4j;
  requires static com.google.errorprone.annotations; // @GuardedBy, for the compiler only

  exports dev.twophase.kafka;
  exports dev.twophase.kafka.group;
}
