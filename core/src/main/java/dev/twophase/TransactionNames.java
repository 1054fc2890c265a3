package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The naming scheme of transactions: {@code <coordinatorId>-<participantName>-<logId>-<epoch>-<sequence>},
 * each of the first three parts made safe for file names, Kafka transactional ids and XA ids. The
 * coordinator builds its contexts' names with it; engines that drive participants themselves (an
 * adapter to a stream processor, say) and test kits use it to name transactions the same way.
 */
@PublicEvolving
public final class TransactionNames {

  /**
   * The longest a part of the prefix gets: a longer one keeps its first 55 characters and gets
   * {@code _<crc32>} appended, so that names stay short enough for file names.
   */
  public static final int MAX_PART_LENGTH = 64;

  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9.]");
  private static final Pattern OWN_SUFFIX = Pattern.compile("[0-9]+-[0-9]+");

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
}
