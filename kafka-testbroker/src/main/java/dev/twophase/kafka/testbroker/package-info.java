/**
 * Test support for Kafka: {@link dev.twophase.kafka.testbroker.KafkaTestBroker}, a real KRaft
 * broker inside the JVM, and {@link dev.twophase.kafka.testbroker.ReadCommitted}, a {@code
 * read_committed} reader that checks what a topic holds. The twophase Kafka participant's own tests
 * and the demo use them; so can the tests of an application that writes to Kafka.
 */
package dev.twophase.kafka.testbroker;
