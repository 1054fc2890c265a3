package dev.twophase.internal.log;

import dev.twophase.annotation.Internal;
import java.nio.file.Path;
import java.util.Objects;

/**
 * An incomplete end of the last segment: a record (or segment header) whose write had not finished
 * when the log was read. The owner cuts it off at start-up; the inspector reports it as in
 * progress.
 *
 * @param file the segment
 * @param offset where the incomplete record or header starts; the intact log ends here
 * @param fileSize the size of the file when it was read
 * @param headerIncomplete true if the segment header itself is incomplete (the segment holds
 *     nothing)
 * @param reason what was found, for logs
 * @param zeros true if every byte from {@link #offset()} on is zero: space the log allocated
 *     ahead of its appends, not a torn write
 */
@Internal
public record TornTail(
    Path file, long offset, long fileSize, boolean headerIncomplete, String reason, boolean zeros) {

  public TornTail {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(reason, "reason");
  }

  /** The bytes from {@link #offset()} to the end of the file. */
  public long bytes() {
    return fileSize - offset;
  }
}
