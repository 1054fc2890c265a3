package dev.twophase.file;

import dev.twophase.annotation.Experimental;
import java.util.List;

/**
 * The named points at which a {@link FileParticipant} calls its
 * {@link FileParticipant.Builder#faultInjector(dev.twophase.FaultInjector) fault injector}, in the
 * order a transaction reaches them. A crash test halts a JVM at one of them (for example with the
 * core's {@code CrashInjector.haltAt(FilePoints.COMMIT_AFTER_RENAME, 2)}: between the first and the
 * second rename of a commit) and recovers in a new one; a fault test throws there instead, and the
 * operation in progress fails with that exception as if the file system had failed.
 *
 * <p>None of them is on the per-record path: they are reached once per part file, per directory
 * sync or per operation.
 */
@Experimental
public final class FilePoints {

  private FilePoints() {}

  /**
   * A new in-progress part file exists (empty, its first record still in memory) and the sync of
   * its directory has been handed to the background thread. Once per part, on the writing thread.
   */
  public static final String WRITE_AFTER_CREATE_PART = "file.write.afterCreatePart";

  /**
   * Right before the directory of a new part is synced ahead of the pre-commit: on the background
   * thread, or on the pre-commit's thread if the background thread had not begun that sync yet.
   * Throwing here fails that sync: the transaction's {@code preCommit} then fails with it.
   */
  public static final String BACKGROUND_DIRECTORY_SYNC = "file.directorySync.background";

  /**
   * In {@code preCommit}: every part of the transaction is written, fsynced and closed; the
   * directory syncs that make their names durable are not awaited yet.
   */
  public static final String PRE_COMMIT_AFTER_FSYNC = "file.preCommit.afterFsync";

  /**
   * In {@code preCommit}, right before it syncs a directory itself (one that gained an entry after
   * its background sync began, such as the parent of a new bucket directory). Once per directory.
   */
  public static final String PRE_COMMIT_DIRECTORY_SYNC = "file.preCommit.directorySync";

  /**
   * In {@code commit} and {@code recoverAndCommit}: one part was renamed to its final name; the
   * next part is not renamed yet and no directory is synced. Once per renamed part, so the
   * {@code n}-th hit of a transaction with several parts is a crash in the middle of its commit.
   */
  public static final String COMMIT_AFTER_RENAME = "file.commit.afterRename";

  /** In {@code commit}, right before it syncs a directory that holds renamed parts. */
  public static final String COMMIT_DIRECTORY_SYNC = "file.commit.directorySync";

  /**
   * In {@code abort} and {@code recoverAndAbort}: one in-progress part was deleted. Once per
   * deleted part.
   */
  public static final String ABORT_AFTER_DELETE = "file.abort.afterDelete";

  /**
   * In the start-up clean-up ({@code finishRecoveringContext}): one in-progress part of a
   * transaction begun after the last decision was deleted. Once per deleted part.
   */
  public static final String CLEANUP_AFTER_DELETE = "file.cleanup.afterDelete";

  /** Every point, in the order a transaction reaches them; for {@code CrashInjector.parse}. */
  public static List<String> all() {
    return List.of(WRITE_AFTER_CREATE_PART, BACKGROUND_DIRECTORY_SYNC, PRE_COMMIT_AFTER_FSYNC, PRE_COMMIT_DIRECTORY_SYNC,
        COMMIT_AFTER_RENAME, COMMIT_DIRECTORY_SYNC, ABORT_AFTER_DELETE, CLEANUP_AFTER_DELETE);
  }
}
