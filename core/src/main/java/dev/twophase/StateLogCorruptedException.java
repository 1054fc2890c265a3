package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.nio.file.Path;

/**
 * The state log holds bytes it cannot trust: a record or header that fails its checks where a
 * crash cannot have left it (anything but a torn last append; also a damaged last record), a
 * foreign file, segments of two logs, or a format version this version of twophase does not read.
 * Nothing was skipped, cut or repaired. The message says what was found and what the operator
 * does (for damage: copy the directory aside, restore a copy at least as recent as the damage, or
 * cut the last segment at {@link #offset()} and check the participants before resuming);
 * docs/state-log.md, "Torn tail or corruption", has the details. A log kept elsewhere than in
 * files (a database table, say) names in the message where the bad record is, and has no {@link
 * #file()}.
 */
@PublicEvolving
public class StateLogCorruptedException extends FatalTwoPhaseException {

  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long offset;

  public StateLogCorruptedException(String message, Path file, long offset) {
    super(message + " (file " + file + ", offset " + offset + ")");
    this.file = file;
    this.offset = offset;
  }

  /**
   * For a log not kept in files: {@code message} names the store and the record (a table and a
   * coordinator, say); {@link #file()} is null and {@link #offset()} -1.
   */
  public StateLogCorruptedException(String message) {
    super(message);
    this.file = null;
    this.offset = -1;
  }

  /**
   * Damage in a log that is not kept in files (a Kafka topic, a table): {@code location} names
   * where the bad record is (a topic partition, say) and {@code offset} its position there;
   * {@link #file()} is null.
   */
  public StateLogCorruptedException(String message, String location, long offset) {
    super(message + " (" + location + ", offset " + offset + ")");
    this.file = null;
    this.offset = offset;
  }

  /** The file holding the bad bytes, or null for a log not kept in files. */
  public Path file() {
    return file;
  }

  /**
   * The byte offset in {@link #file()} where the bad record or header starts, or the record's
   * position in the store of a log not kept in files (a Kafka offset, say); -1 where there is
   * neither.
   */
  public long offset() {
    return offset;
  }
}
