/**
 * Not API: the sink's writer, committer, committable and writer-state types and their
 * serializers. Public only because {@link dev.twophase.flink.TwoPhaseSink} names them in its
 * Flink interfaces; they may change in any release.
 */
package dev.twophase.flink.internal;
