package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;

/**
 * A record value that is no intact frame; the reader, which knows the topic, partition, offset and
 * coordinator, turns it into a {@link dev.twophase.StateLogCorruptedException}.
 */
@Internal
final class FrameException extends Exception {

  private static final long serialVersionUID = 1L;

  FrameException(String message) {
    super(message);
  }
}
