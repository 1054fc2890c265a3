package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;

/**
 * How a state is cut into records: chunks of at most {@value #CHUNK_BYTES} bytes, so that a
 * state of up to {@link dev.twophase.StateLog#MAX_STATE_BYTES} fits under a topic's default
 * {@code max.message.bytes} (1 MiB) and a producer's default {@code max.request.size}. All chunks
 * of one append go in one transaction; each carries the epoch, the sequence of the append, the
 * checkpoint id, its index and the count, so that reading back checks the last state is whole.
 */
@Internal
final class StateChunks {

  /** The largest payload of one state record, 512 KiB. */
  static final int CHUNK_BYTES = 512 * 1024;

  private StateChunks() {}

  /** How many chunks a state of {@code length} bytes takes: at least one, for an empty state. */
  static int count(int length) {
    return Math.max(1, (length + CHUNK_BYTES - 1) / CHUNK_BYTES);
  }
}
