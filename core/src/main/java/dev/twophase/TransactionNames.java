package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The naming scheme of transactions: {@code <coordinatorId>-<participantName>-<logId>-<epoch>-<sequence>},
 * each of the first three parts made safe for file names, Kafka transactional ids and XA ids. The
 * coordinator builds its contexts' names with it; engines that drive participants themselves (an
 * adapter to a stream processor, say) and test kits use it to name transactions the same way.
 *
 * <p><b>Escaping and shortening.</b> {@link #safe} escapes each part of the prefix and bounds it to
 * {@link #MAX_PART_LENGTH}; it is part of the name's identity and never changes a name once made.
 * A resource whose names have a tighter limit than a whole name (an XA gtrid of 64 bytes, a
 * PostgreSQL gid of 200, a file name of 255) fits a name into it with {@link #shorten}, the one
 * shortening rule: the name itself when it fits, else {@code ~<h>~<epoch>-<sequence>}, where
 * {@code h} stands for the prefix. A shortened name stays recognisable as one of the prefix's
 * ({@link #unshorten}), which is what {@link RecoveryContext#leftovers} relies on.
 */
@PublicEvolving
public final class TransactionNames {

  /**
   * The longest a part of the prefix gets: a longer one keeps its first 55 characters and gets
   * {@code _<crc32>} appended, so that names stay short enough for file names.
   */
  public static final int MAX_PART_LENGTH = 64;

  /**
   * The characters {@link #shorten} accepts in a name: those {@link #prefix} and {@link #name} use.
   * A shortened name adds {@code ~}, so it is never a name used as it is.
   */
  private static final Pattern NAME_CHARS = Pattern.compile("[A-Za-z0-9._-]+");
  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9.]");
  private static final Pattern OWN_SUFFIX = Pattern.compile("[0-9]+-[0-9]+");
  private static final char MARK = '~';
  private static final int HASH_CHARS = 20;
  private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();

  /**
   * The length of the part {@link #shorten} puts in place of a prefix: {@code ~}, 20 characters of
   * hash, {@code ~}. A shortened name is this plus the name's {@code <epoch>-<sequence>}, so a
   * limit of {@code SHORT_PREFIX_LENGTH + 39} fits every name (two 19-digit numbers and a dash).
   */
  public static final int SHORT_PREFIX_LENGTH = HASH_CHARS + 2;

  private TransactionNames() {}

  /**
   * {@code <safe coordinatorId>-<safe participantName>-<safe logId>-}. No part contains {@code -},
   * so the prefix of one triple is never the prefix of another's names.
   */
  public static String prefix(String coordinatorId, String participantName, String logId) {
    return safe(coordinatorId) + '-' + safe(participantName) + '-' + safe(logId) + '-';
  }

  /** {@code prefix} followed by {@code <epoch>-<sequence>}. */
  public static String name(String prefix, long epoch, long sequence) {
    return prefix + epoch + '-' + sequence;
  }

  /** Whether {@code name} is {@code prefix} followed by {@code <epoch>-<sequence>}. */
  public static boolean isOwn(String prefix, String name) {
    return name != null
        && name.startsWith(prefix)
        && OWN_SUFFIX.matcher(name).region(prefix.length(), name.length()).matches();
  }

  /**
   * The owner epoch in {@code name}, a name of {@code prefix} ({@link #isOwn}), or -1 if it is not
   * one.
   */
  public static long epoch(String prefix, String name) {
    if (!isOwn(prefix, name)) {
      return -1;
    }
    int dash = name.indexOf('-', prefix.length());
    try {
      return Long.parseLong(name, prefix.length(), dash, 10);
    } catch (NumberFormatException e) {
      return -1; // more digits than a long holds: not a name the coordinator made
    }
  }

  /**
   * The part itself if it holds only {@code [A-Za-z0-9.]} and is at most {@link #MAX_PART_LENGTH}
   * characters; otherwise every other character becomes {@code _}, the result is cut to 55
   * characters, and {@code _<crc32 of the UTF-8 part, 8 hex digits>} is appended. An escaped part
   * always contains {@code _} and a plain one never does, so they cannot meet; two escaped parts
   * meet only if their CRC-32s collide ({@code a-b}, {@code a_b} and {@code a.b} stay distinct).
   */
  public static String safe(String part) {
    Objects.requireNonNull(part, "part");
    if (part.isEmpty()) {
      throw new IllegalArgumentException("a transaction name part must not be empty");
    }
    Matcher m = UNSAFE.matcher(part);
    boolean unsafe = m.find();
    if (!unsafe && part.length() <= MAX_PART_LENGTH) {
      return part;
    }
    String replaced = unsafe ? m.replaceAll("_") : part;
    int keep = MAX_PART_LENGTH - 9;
    CRC32 crc = new CRC32();
    crc.update(part.getBytes(StandardCharsets.UTF_8));
    return (replaced.length() > keep ? replaced.substring(0, keep) : replaced)
        + '_' + String.format("%08x", crc.getValue());
  }

  /**
   * {@code name} fitted into {@code maxLength} characters (bytes: the names are ASCII), for a
   * resource whose names are shorter than the coordinator's. The name itself if it fits; otherwise
   * {@code prefix} is replaced by {@code ~<h>~}, where {@code h} is 20 base-32 characters
   * ({@code [a-z2-7]}, 100 bits) of the SHA-256 of the UTF-8 prefix: {@code ~<h>~<epoch>-<sequence>},
   * at most {@link #SHORT_PREFIX_LENGTH} + 39 characters.
   *
   * <p>The rule is deterministic and depends on the prefix and the name alone, so a new process
   * finds the same names. Coordinators' names never hold {@code ~}, so a shortened name is never a
   * name used as it is; two shortened names of different prefixes meet only if 100 bits of their
   * SHA-256 do; and {@link #unshorten} gives back exactly {@code name}. A name that fits is never
   * shortened, so the names a resource held before a limit applied to them stay as they were.
   *
   * @throws IllegalArgumentException if {@code name} does not start with {@code prefix}, holds
   *     characters other than {@code [A-Za-z0-9._-]}, or does not fit even when shortened
   */
  public static String shorten(String prefix, String name, int maxLength) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(name, "name");
    if (!name.startsWith(prefix)) {
      throw new IllegalArgumentException(
          "transaction name " + name + " does not start with its prefix " + prefix);
    }
    if (!NAME_CHARS.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "transaction name " + name + " holds characters other than [A-Za-z0-9._-]");
    }
    if (name.length() <= maxLength) {
      return name;
    }
    String shortened = shortPrefix(prefix) + name.substring(prefix.length());
    if (shortened.length() > maxLength) {
      throw new IllegalArgumentException("transaction name " + name + " is longer than the limit of "
          + maxLength + " characters even when shortened (" + shortened + ")");
    }
    return shortened;
  }

  /**
   * The name {@link #shorten} shortened back: {@code prefix} followed by the rest if {@code name}
   * is {@code prefix}'s shortened form {@code ~<h>~<rest>}, else {@code name} itself (a name used
   * as it is, or another prefix's). Null stays null. It only restores the prefix: whether the rest
   * is an {@code <epoch>-<sequence>} is {@link #isOwn}'s to say.
   */
  public static String unshorten(String prefix, String name) {
    return unshortener(prefix).apply(name);
  }

  /** {@link #unshorten} for one prefix, its hash computed once. */
  static UnaryOperator<String> unshortener(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    String shortPrefix = shortPrefix(prefix);
    return name -> name != null && name.startsWith(shortPrefix)
        ? prefix + name.substring(shortPrefix.length())
        : name;
  }

  private static String shortPrefix(String prefix) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(prefix.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
    StringBuilder out = new StringBuilder(SHORT_PREFIX_LENGTH).append(MARK);
    int buffer = 0;
    int bits = 0;
    for (int i = 0; out.length() < HASH_CHARS + 1; i++) {
      buffer = (buffer << 8) | (digest[i] & 0xff);
      bits += 8;
      while (bits >= 5 && out.length() < HASH_CHARS + 1) {
        out.append(BASE32[(buffer >>> (bits - 5)) & 31]);
        bits -= 5;
      }
    }
    return out.append(MARK).toString();
  }
}
