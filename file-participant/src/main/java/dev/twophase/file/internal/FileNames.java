package dev.twophase.file.internal;

import dev.twophase.annotation.Internal;
import java.nio.file.Path;

/**
 * The participant's naming scheme. Final: {@code part-<txn>-<index><suffix>}; in progress: the
 * hidden {@code .part-<txn>-<index><suffix>.inprogress}. Transaction names end in
 * {@code -<epoch>-<sequence>}, so the index is what follows the last {@code -}.
 */
@Internal
public final class FileNames {

  private static final String FINAL_PREFIX = "part-";
  private static final String IN_PROGRESS_PREFIX = ".part-";
  private static final String IN_PROGRESS_SUFFIX = ".inprogress";

  private final String suffix;

  public FileNames(String suffix) {
    this.suffix = suffix;
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
