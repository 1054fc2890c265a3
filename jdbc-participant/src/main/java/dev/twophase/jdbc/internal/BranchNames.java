package dev.twophase.jdbc.internal;

import dev.twophase.TransactionNames;
import dev.twophase.annotation.Internal;
import java.util.regex.Pattern;

/**
 * The name of a transaction inside the database (PostgreSQL gid, XA gtrid, H2 transaction name)
 * and in the marker table: the coordinator's transaction name fitted into the database's limit by
 * core's one shortening rule, {@link TransactionNames#shorten} (the name itself when it fits, else
 * {@code ~<h>~<epoch>-<sequence>}). Which of the listed names are this participant's leftovers is
 * the recovery context's decision ({@code RecoveryContext.leftovers}), which recognises both forms.
 */
@Internal
public final class BranchNames {

  /** What a derived name is made of: the coordinator's characters and the shortening mark. */
  private static final Pattern DERIVED = Pattern.compile("[A-Za-z0-9._~-]+");

  private BranchNames() {}

  /**
   * The database's name for {@code transactionName}, at most {@code maxBytes} bytes: see
   * {@link TransactionNames#shorten}.
   *
   * @throws IllegalArgumentException if the name does not start with {@code prefix}, holds
   *     characters other than {@code [A-Za-z0-9._-]}, or cannot be shortened to {@code maxBytes}
   */
  public static String of(String prefix, String transactionName, int maxBytes) {
    return TransactionNames.shorten(prefix, transactionName, maxBytes);
  }

  /**
   * The text that stands for {@code prefix} in a column of at most {@code maxChars}: the prefix
   * itself if it fits, else the {@code ~<h>~} that {@link TransactionNames#shorten} puts in its
   * place.
   */
  public static String owner(String prefix, int maxChars) {
    return TransactionNames.shorten(prefix, prefix, maxChars);
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
