package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import java.util.Objects;

/**
 * The shape of the participant's transactional ids: {@code <base>e<ownerEpoch>-<index>}, where the
 * base {@code <userPrefix>-<transaction name prefix>tid-} names one participant of one coordinator
 * on one state log, the owner epoch one incarnation of it, and the index one id of that
 * incarnation's pool.
 *
 * <p>The epoch is in the id so that no incarnation ever registers ({@code initTransactions()}) an id
 * of another: a zombie, an earlier owner still running after a newer one claimed the coordinator,
 * can then fence and abort only its own epoch's transactions, never the newer owner's. Every part
 * is made of {@code [A-Za-z0-9._-]}. Every base ends with {@code tid-} and what follows it
 * ({@code e<digits>-<digits>}) holds no {@code tid}, so an id of one base is never read as an id of
 * another base, and one id has one epoch and index.
 *
 * <p>Ids of an earlier release, {@code <base><index>} without an epoch, are still recognised
 * ({@link Parsed#epoch()} {@code -1}) so that start-up aborts what such a release left open.
 */
@Internal
public final class TransactionalIdScheme {

  /** The epoch {@link #parse} reports for an id without one (an earlier release's). */
  public static final long NO_EPOCH = -1;

  private TransactionalIdScheme() {}

  /** {@code <userPrefix>-<owner>tid-}: what every id of the participant starts with, in every epoch. */
  public static String base(String userPrefix, String owner) {
    String o = owner.endsWith("-") ? owner : owner + "-";
    return userPrefix + "-" + o + "tid-";
  }

  /** {@code <base>e<epoch>-}: what every id of one incarnation's pool starts with. */
  public static String epochBase(String base, long epoch) {
    if (epoch < 0) {
      throw new IllegalArgumentException("an owner epoch is not negative: " + epoch);
    }
    return base + "e" + epoch + "-";
  }

  /** The parts of an id of a base. */
  public record Parsed(long epoch, int index) {}

  /**
   * The epoch and index of {@code id} if it is an id of {@code base} ({@code <base>e<epoch>-<index>},
   * or {@code <base><index>} of an earlier release: epoch {@link #NO_EPOCH}), else null. Numbers are
   * canonical (no leading zeros), so one id has one reading.
   */
  public static Parsed parse(String base, String id) {
    Objects.requireNonNull(base, "base");
    if (id == null || !id.startsWith(base)) {
      return null;
    }
    String rest = id.substring(base.length());
    if (isNumber(rest, 9)) {
      return new Parsed(NO_EPOCH, Integer.parseInt(rest));
    }
    if (!rest.startsWith("e")) {
      return null;
    }
    int dash = rest.indexOf('-');
    if (dash < 0) {
      return null;
    }
    String epoch = rest.substring(1, dash);
    String index = rest.substring(dash + 1);
    if (!isNumber(epoch, 19) || !isNumber(index, 9)) {
      return null;
    }
    try {
      return new Parsed(Long.parseLong(epoch), Integer.parseInt(index));
    } catch (NumberFormatException e) {
      return null; // 19 digits above Long.MAX_VALUE: no epoch made it
    }
  }

  /**
   * {@code <base>} followed by {@code e<epoch>-<index>} or by {@code <index>} alone: the prefix of
   * the id an index takes in an epoch ({@link #NO_EPOCH}: the earlier release's form).
   */
  public static String prefixOf(String base, long epoch) {
    return epoch == NO_EPOCH ? base : epochBase(base, epoch);
  }

  /**
   * A regular expression (RE2 syntax, the broker's) that matches exactly the ids {@link #parse}
   * accepts for {@code base}, of every epoch: {@code ^<base>(e[0-9]+-)?[0-9]+$}.
   */
  public static String regexOf(String base) {
    StringBuilder b = new StringBuilder("^");
    for (int i = 0; i < base.length(); i++) {
      char c = base.charAt(i);
      if (Character.isLetterOrDigit(c) || c == '_' || c == '-') {
        b.append(c);
      } else {
        b.append('\\').append(c);
      }
    }
    return b.append("(e[0-9]+-)?[0-9]+$").toString();
  }

  /** Digits only, at most {@code maxDigits}, no leading zero unless "0" itself. */
  private static boolean isNumber(String s, int maxDigits) {
    return !s.isEmpty() && s.length() <= maxDigits && s.chars().allMatch(c -> c >= '0' && c <= '9')
        && (s.length() == 1 || s.charAt(0) != '0');
  }
}
