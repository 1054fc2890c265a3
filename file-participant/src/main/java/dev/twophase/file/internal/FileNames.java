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
  static final int MAX_FILE_NAME_BYTES = 255;
  /** The most digits a part index has (an {@code int}). */
  private static final int MAX_INDEX_DIGITS = 10;

  private static final String FINAL_PREFIX = "part-";
  private static final String IN_PROGRESS_PREFIX = ".part-";
  private static final String IN_PROGRESS_SUFFIX = ".inprogress";

  private final String suffix;
  private final int maxTransactionChars;

  /**
   * @throws IllegalArgumentException if {@code suffix} is so long that no transaction name would
   *     fit into a part file's name, even shortened
   */
  public FileNames(String suffix) {
    this.suffix = suffix;
    this.maxTransactionChars = maxTransactionChars(suffix);
  }

  /**
   * What a part file's name leaves for the transaction name with {@code suffix}.
   *
   * @throws IllegalArgumentException if that is too little for a shortened name
   */
  public static int maxTransactionChars(String suffix) {
    int max = MAX_FILE_NAME_BYTES - IN_PROGRESS_PREFIX.length() - 1 - MAX_INDEX_DIGITS
        - suffix.getBytes(StandardCharsets.UTF_8).length - IN_PROGRESS_SUFFIX.length();
    int shortest = TransactionNames.SHORT_PREFIX_LENGTH + 2 * 19 + 1;
    if (max < shortest) {
      throw new IllegalArgumentException("suffix '" + suffix + "' is too long: a part file's name "
          + "holds at most " + MAX_FILE_NAME_BYTES + " bytes and needs " + shortest
          + " of them for the transaction's name, so the suffix may have at most "
          + (MAX_FILE_NAME_BYTES - IN_PROGRESS_PREFIX.length() - 1 - MAX_INDEX_DIGITS
              - IN_PROGRESS_SUFFIX.length() - shortest) + " bytes (UTF-8)");
    }
    return max;
  }

  /**
   * The name part files carry for the transaction {@code transactionName} of {@code prefix}: the
   * name itself when every part file name fits 255 bytes with it, else its shortened form.
   */
  public String transactionName(String prefix, String transactionName) {
    return TransactionNames.shorten(prefix, transactionName, maxTransactionChars);
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
