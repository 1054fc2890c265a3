package dev.twophase.file.internal;

import dev.twophase.TransactionNames;
import dev.twophase.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The participant's naming scheme. Final: {@code part-<txn>-<index><suffix>}; in progress: the
 * hidden {@code .part-<txn>-<index><suffix>.inprogress}. Transaction names end in
 * {@code -<epoch>-<sequence>}, so the index is what follows the last {@code -}.
 *
 * <p>{@code <txn>} is the coordinator's transaction name fitted by core's shortening rule
 * ({@link TransactionNames#shorten}) into what a file name of 255 bytes leaves for it
 * ({@link #transactionName}); the recovery context recognises both forms as this participant's.
 */
@Internal
public final class FileNames {

  /** The longest file name the common file systems allow (ext4, XFS, btrfs, ZFS, APFS), in bytes. */
  private static final int MAX_FILE_NAME_BYTES = 255;
  /** The most digits a part index has (an {@code int}). */
  private static final int MAX_INDEX_DIGITS = 10;

  private static final String FINAL_PREFIX = "part-";
  private static final String IN_PROGRESS_PREFIX = ".part-";
  private static final String IN_PROGRESS_SUFFIX = ".inprogress";

  private final String suffix;
  private final int maxTransactionChars;

  public FileNames(String suffix) {
    this.suffix = suffix;
    this.maxTransactionChars = MAX_FILE_NAME_BYTES - IN_PROGRESS_PREFIX.length() - 1 - MAX_INDEX_DIGITS
        - suffix.getBytes(StandardCharsets.UTF_8).length - IN_PROGRESS_SUFFIX.length();
  }

  /**
   * The name part files carry for the transaction {@code transactionName} of {@code prefix}: the
   * name itself when every part file name (any index) fits 255 bytes with it, else its shortened
   * form.
   *
   * @throws IllegalArgumentException if a name too long is not one {@link TransactionNames#shorten}
   *     can shorten (one an engine made outside the coordinator's scheme), or the suffix leaves
   *     too little room even for a shortened name
   */
  public String transactionName(String prefix, String transactionName) {
    return transactionName.length() <= maxTransactionChars
        ? transactionName
        : shorten(prefix, transactionName);
  }

  private String shorten(String prefix, String transactionName) {
    try {
      return TransactionNames.shorten(prefix, transactionName, maxTransactionChars);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the part files of transaction " + transactionName
          + " would have names over " + MAX_FILE_NAME_BYTES + " bytes with suffix '" + suffix
          + "', and the name cannot be shortened to fit (" + e.getMessage() + "): use a shorter "
          + "suffix, or shorter coordinator and participant names", e);
    }
  }

  public String finalName(String transaction, int index) {
    return FINAL_PREFIX + transaction + '-' + index + suffix;
  }

  public String inProgressName(String transaction, int index) {
    return IN_PROGRESS_PREFIX + transaction + '-' + index + suffix + IN_PROGRESS_SUFFIX;
  }

  /**
   * The transaction name of an in-progress part file of this scheme, or null if {@code file} is
   * not one.
   */
  public String transactionOfInProgress(Path file) {
    return transactionOf(file.getFileName().toString(), IN_PROGRESS_PREFIX, suffix + IN_PROGRESS_SUFFIX);
  }

  /**
   * The transaction name of a committed part file of this scheme, or null if {@code file} is not
   * one.
   */
  public String transactionOfCommitted(Path file) {
    return transactionOf(file.getFileName().toString(), FINAL_PREFIX, suffix);
  }

  private static String transactionOf(String n, String prefix, String end) {
    if (!n.startsWith(prefix) || !n.endsWith(end) || n.length() <= prefix.length() + end.length()) {
      return null;
    }
    String middle = n.substring(prefix.length(), n.length() - end.length());
    int dash = middle.lastIndexOf('-');
    if (dash <= 0 || !isDigits(middle, dash + 1)) {
      return null;
    }
    return middle.substring(0, dash);
  }

  private static boolean isDigits(String s, int from) {
    if (from >= s.length()) {
      return false;
    }
    for (int i = from; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }
}
