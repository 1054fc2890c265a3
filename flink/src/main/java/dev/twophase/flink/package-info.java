/**
 * twophase participants as an exactly-once Apache Flink sink (Flink 2.x Sink V2):
 * {@link dev.twophase.flink.TwoPhaseSink}, built from serializable
 * {@link dev.twophase.flink.ParticipantFactory participant factories} and
 * {@link dev.twophase.flink.InputMapper input mappers}. Flink is a provided dependency. See
 * {@code docs/flink.md}.
 */
package dev.twophase.flink;
