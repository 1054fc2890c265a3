package dev.twophase;

import java.nio.file.Path;

/**
 * The state log holds bytes it cannot trust: a bad checksum before the tail, a foreign file, or a
 * format version this release does not know. Nothing was skipped or repaired. Restore the named
 * file from a backup, or move the log aside if its pending transactions are known to be finished.
 */
public class StateLogCorruptedException extends FatalTwoPhaseException {

  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long offset;

  public StateLogCorruptedException(String message, Path file, long offset) {
    super(message + " (file " + file + ", offset " + offset + ")");
    this.file = file;
    this.offset = offset;
  }

  /** The file holding the bad bytes. */
  public Path file() {
    return file;
  }

  /** The byte offset in {@link #file()} where the bad record or header starts. */
  public long offset() {
    return offset;
  }
}
