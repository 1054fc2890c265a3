package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;

/**
 * The kinds of record in a Kafka state log topic. Each kind has its own key per coordinator (per
 * chunk, for states), so that compaction keeps the latest of each.
 */
@Internal
public enum RecordKind {
  /** The log's id and partition count, under the one reserved key {@code log-id}. */
  LOG_ID((byte) 1, "log-id"),
  /** Who claimed a coordinator, under which epoch, and whether it released it. */
  OWNER((byte) 2, "owner"),
  /** One chunk of a coordinator's state. */
  STATE((byte) 3, "state"),
  /** A coordinator's highest completion mark. */
  COMPLETION((byte) 4, "done");

  private final byte code;
  private final String keyPrefix;

  RecordKind(byte code, String keyPrefix) {
    this.code = code;
    this.keyPrefix = keyPrefix;
  }

  byte code() {
    return code;
  }

  /** The first part of the record key, as in {@code owner/<coordinator id>}. */
  String keyPrefix() {
    return keyPrefix;
  }

  /** The kind of {@code code}, or null if none. */
  static RecordKind ofCode(byte code) {
    for (RecordKind k : values()) {
      if (k.code == code) {
        return k;
      }
    }
    return null;
  }
}
