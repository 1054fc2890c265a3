package dev.twophase.internal.log;

import dev.twophase.annotation.Internal;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * Makes a segment's written bytes durable. The default is {@code force(false)} (fdatasync); tests
 * substitute one that counts, delays or fails.
 */
@FunctionalInterface
@Internal
public interface Syncer {

  Syncer FDATASYNC = channel -> channel.force(false);

  void force(FileChannel channel) throws IOException;
}
