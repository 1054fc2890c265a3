package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The name of a transaction inside the database (PostgreSQL gid, XA gtrid, H2 transaction name),
 * derived from the coordinator's transaction name so that start-up finds this participant's
 * leftovers and nobody else's.
 *
 * <p>The coordinator's name is {@code <prefix><suffix>} and opaque to us; it is used as it is when
 * it fits the database's limit. Otherwise it becomes {@code ~<h>~<suffix>}, where {@code h} is 20
 * base-32 characters (100 bits) of the SHA-256 of the prefix: at most 63 bytes for any suffix of
 * two 19-digit numbers, within XA's 64-byte gtrid. The coordinator never puts {@code ~} in a
 * name, so a shortened name never equals a name used as it is, and ownership stays exact: a name
 * is ours if it is a name the coordinator calls ours, or if it starts with our {@code ~<h>~} and
 * the coordinator calls {@code <prefix><rest>} ours.
 */
@Internal
public final class BranchNames {

  /** What the coordinator's names are made of; anything else is refused rather than escaped. */
  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._-]+");
  /** What a derived name is made of: the coordinator's characters and the shortening mark. */
  private static final Pattern DERIVED = Pattern.compile("[A-Za-z0-9._~-]+");
  private static final char MARK = '~';
  private static final int HASH_CHARS = 20;
  private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();

  private BranchNames() {}

  /**
   * The database's name for {@code transactionName}, at most {@code maxBytes} bytes.
   *
   * @throws IllegalArgumentException if the name does not start with {@code prefix}, holds
   *     characters other than {@code [A-Za-z0-9._-]}, or cannot be shortened to {@code maxBytes}
   */
  public static String of(String prefix, String transactionName, int maxBytes) {
    if (!transactionName.startsWith(prefix)) {
      throw new IllegalArgumentException(
          "transaction name " + transactionName + " does not start with its prefix " + prefix);
    }
    if (!SAFE.matcher(transactionName).matches()) {
      throw new IllegalArgumentException(
          "transaction name " + transactionName + " holds characters other than [A-Za-z0-9._-]");
    }
    if (transactionName.length() <= maxBytes) {
      return transactionName;
    }
    String shortened = shortPrefix(prefix) + transactionName.substring(prefix.length());
    if (shortened.length() > maxBytes) {
      throw new IllegalArgumentException(
          "transaction name " + transactionName + " is longer than the database's limit of "
              + maxBytes + " bytes even when shortened (" + shortened + ")");
    }
    return shortened;
  }

  /**
   * Whether {@code name}, as the database lists it, is one this participant derived: {@code
   * isOwnTransactionName} is {@code ParticipantContext::isOwnTransactionName}.
   */
  public static boolean isOwn(String name, String prefix, Predicate<String> isOwnTransactionName) {
    if (name == null || name.isEmpty()) {
      return false;
    }
    if (name.charAt(0) != MARK) {
      return isOwnTransactionName.test(name);
    }
    String shortPrefix = shortPrefix(prefix);
    return name.startsWith(shortPrefix)
        && isOwnTransactionName.test(prefix + name.substring(shortPrefix.length()));
  }

  /**
   * The text that stands for {@code prefix} in a column of at most {@code maxChars}: the prefix
   * itself if it fits, else its shortened form {@code ~<h>~}.
   */
  public static String owner(String prefix, int maxChars) {
    return prefix.length() <= maxChars ? prefix : shortPrefix(prefix);
  }

  static String shortPrefix(String prefix) {
    return MARK + hash(prefix) + MARK;
  }

  static String hash(String text) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
    StringBuilder out = new StringBuilder(HASH_CHARS);
    int buffer = 0;
    int bits = 0;
    for (int i = 0; out.length() < HASH_CHARS; i++) {
      buffer = (buffer << 8) | (digest[i] & 0xff);
      bits += 8;
      while (bits >= 5 && out.length() < HASH_CHARS) {
        out.append(BASE32[(buffer >>> (bits - 5)) & 31]);
        bits -= 5;
      }
    }
    return out.toString();
  }

  /**
   * Refuses a name that {@link #of} could not have derived, and so one that could not be put
   * safely between quotes in SQL.
   */
  public static void requireSafe(String name) {
    if (!DERIVED.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "transaction name " + name + " holds characters other than [A-Za-z0-9._~-]");
    }
  }

  /** {@code name} between single quotes, for names produced by {@link #of} (no escaping needed). */
  static String quoted(String name) {
    if (name.indexOf('\'') >= 0 || name.indexOf('\\') >= 0) {
      throw new IllegalArgumentException("a transaction name cannot hold quotes: " + name);
    }
    return '\'' + name + '\'';
  }
}
