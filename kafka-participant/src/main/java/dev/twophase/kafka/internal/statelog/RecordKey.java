package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.kafka.common.utils.Utils;

/**
 * The key of a state log record, readable text so that the topic can be inspected with Kafka's
 * console tools: {@code log-id}, {@code owner/<coordinator>}, {@code done/<coordinator>} and
 * {@code state/<chunk index>/<coordinator>}. The coordinator id is the rest of the key, so it may
 * hold any character, a {@code /} too.
 *
 * <p>A coordinator's records all go to one partition, chosen by the murmur2 hash of its id (as
 * Kafka's default partitioner would hash the id); the log-id record lives in partition 0.
 */
@Internal
public final class RecordKey {

  private final RecordKind kind;
  private final String coordinatorId;
  private final int index;

  private RecordKey(RecordKind kind, String coordinatorId, int index) {
    this.kind = kind;
    this.coordinatorId = coordinatorId;
    this.index = index;
  }

  static RecordKey logId() {
    return new RecordKey(RecordKind.LOG_ID, null, 0);
  }

  static RecordKey owner(String coordinatorId) {
    return new RecordKey(RecordKind.OWNER, Objects.requireNonNull(coordinatorId), 0);
  }

  static RecordKey completion(String coordinatorId) {
    return new RecordKey(RecordKind.COMPLETION, Objects.requireNonNull(coordinatorId), 0);
  }

  static RecordKey state(String coordinatorId, int index) {
    return new RecordKey(RecordKind.STATE, Objects.requireNonNull(coordinatorId), index);
  }

  /** The partition of {@code coordinatorId}'s records in a topic of {@code partitions}. */
  public static int partitionOf(String coordinatorId, int partitions) {
    return Utils.toPositive(Utils.murmur2(coordinatorId.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  RecordKind kind() {
    return kind;
  }

  /** The coordinator, null for the log-id record. */
  String coordinatorId() {
    return coordinatorId;
  }

  /** The chunk index of a state record, 0 for the other kinds. */
  int index() {
    return index;
  }

  /** The key as stored. */
  public byte[] bytes() {
    return text().getBytes(StandardCharsets.UTF_8);
  }

  String text() {
    return switch (kind) {
      case LOG_ID -> kind.keyPrefix();
      case STATE -> kind.keyPrefix() + "/" + index + "/" + coordinatorId;
      case OWNER, COMPLETION -> kind.keyPrefix() + "/" + coordinatorId;
    };
  }

  /** The key {@code bytes} stand for, or null if they are no key of a state log. */
  static RecordKey parse(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    String s = new String(bytes, StandardCharsets.UTF_8);
    if (s.equals(RecordKind.LOG_ID.keyPrefix())) {
      return logId();
    }
    int slash = s.indexOf('/');
    if (slash < 0 || slash == s.length() - 1) {
      return null;
    }
    String prefix = s.substring(0, slash);
    String rest = s.substring(slash + 1);
    if (prefix.equals(RecordKind.OWNER.keyPrefix())) {
      return owner(rest);
    }
    if (prefix.equals(RecordKind.COMPLETION.keyPrefix())) {
      return completion(rest);
    }
    if (prefix.equals(RecordKind.STATE.keyPrefix())) {
      int second = rest.indexOf('/');
      if (second <= 0 || second == rest.length() - 1 || second > 9) {
        return null;
      }
      String digits = rest.substring(0, second);
      for (int i = 0; i < digits.length(); i++) {
        if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
          return null;
        }
      }
      return state(rest.substring(second + 1), Integer.parseInt(digits));
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordKey k && k.kind == kind && k.index == index
        && Objects.equals(k.coordinatorId, coordinatorId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, coordinatorId, index);
  }

  @Override
  public String toString() {
    return text();
  }
}
