package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The transactional ids of a Kafka state log: {@code <prefix>.<topic>/c/<coordinator>} for the
 * producer of a claimed coordinator and {@code <prefix>.<topic>/log-id} for the one that creates
 * the log id. The coordinator id is escaped: letters, digits, {@code .}, {@code _} and {@code -}
 * stay, every other UTF-8 byte becomes {@code %XX}, so that no coordinator id makes the name of
 * another or that of the log-id producer. Ids longer than {@value #MAX_LENGTH} characters are cut
 * and end with {@code ~} and 16 hex digits of the SHA-256 of the coordinator id, which keeps them
 * apart. Topic names are at most 249 characters of {@code [a-zA-Z0-9._-]}, so the prefix and
 * topic always fit.
 */
@Internal
public final class TransactionalIds {

  /** The longest transactional id made. */
  public static final int MAX_LENGTH = 400;

  private TransactionalIds() {}

  /** The transactional id of {@code coordinatorId}'s producer. */
  public static String forCoordinator(String prefix, String topic, String coordinatorId) {
    String head = prefix + "." + topic + "/c/";
    String escaped = escape(coordinatorId);
    if (head.length() + escaped.length() <= MAX_LENGTH) {
      return head + escaped;
    }
    String hash = "~" + sha256Hex(coordinatorId).substring(0, 16);
    int keep = Math.max(0, MAX_LENGTH - head.length() - hash.length());
    String cut = escaped.substring(0, Math.min(keep, escaped.length()));
    // Never cut inside a %XX escape.
    int percent = cut.lastIndexOf('%');
    if (percent >= 0 && percent > cut.length() - 3) {
      cut = cut.substring(0, percent);
    }
    return head + cut + hash;
  }

  /** The transactional id of the producer that creates the log id. */
  public static String forLogId(String prefix, String topic) {
    return prefix + "." + topic + "/log-id";
  }

  static String escape(String coordinatorId) {
    StringBuilder sb = new StringBuilder();
    for (byte b : coordinatorId.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
          || c == '_' || c == '-') {
        sb.append(c);
      } else {
        sb.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
      }
    }
    return sb.toString();
  }

  private static String sha256Hex(String s) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
