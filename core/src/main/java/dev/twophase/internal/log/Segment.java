package dev.twophase.internal.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;

/**
 * A segment file open for writing, through two descriptors: {@code channel}, which every write,
 * truncate and sync uses, and a standby opened at the same time. {@link FileChannel} is
 * interruptible: a thread interrupted while it blocks in a write or sync closes the channel for
 * every coordinator sharing the log. The standby then takes over and the operation is done again
 * (see {@link SegmentIo}).
 *
 * <p>Why a standby opened in advance rather than a descriptor opened when needed: on Linux a sync
 * reports a write-back error only through descriptors open when the error happened (each file
 * description keeps its own cursor into the file's error sequence). The interrupted sync may have
 * failed without anyone learning it; a descriptor opened afterwards would let the second sync
 * "succeed" over pages the kernel dropped. So a standby may take over a sync only if it was opened
 * before anything was written to the segment, or before the start of a sync that succeeded since:
 * every error before that start was reported to that sync.
 */
final class Segment {

  private static final Logger LOG = SegmentedLog.LOG;

  /** What {@link #takeOver} did. */
  enum Takeover {
    DONE,
    /** The channel had been replaced already: use the current one. */
    BY_ANOTHER_THREAD,
    /** No standby: the step fails. */
    NO_STANDBY
  }

  final long sequence;
  final Path file;
  /** Its format version: {@link LogFormat#VERSION} for a segment this release created. */
  final int version;
  /** The descriptor in use; replaced by the standby once an interrupt closed it. */
  volatile FileChannel channel;
  /** Bytes written; guarded by the append lock. */
  long size;
  /**
   * Length of the file: {@code size} plus zeros written ahead of the appends (see {@link
   * SegmentIo#write}); guarded by the append lock.
   */
  long allocated;
  /** Size right after the segment was created by compaction (0 if unknown). */
  long baseSize;

  /**
   * Held for each sync of this segment: two syncs at once on one descriptor could split a
   * write-back error between them, so that one reports it while the other "succeeds".
   */
  final ReentrantLock syncLock = new ReentrantLock();

  // Guarded by this segment's monitor:
  /** Null once no new standby could be opened (the file was deleted by a roll, say). */
  private FileChannel standby;
  /** Syncs begun so far, and the number of the last one that succeeded. */
  private long syncsBegun;
  private long lastGoodSync;
  /** Syncs begun when the standby was opened; -1: opened before anything was written. */
  private long standbyOpenedAfter;
  /** Whether {@code channel} may sync: it would report every write-back error not yet reported. */
  private boolean channelMaySync = true;

  private Segment(long sequence, Path file, int version, FileChannel channel, long size)
      throws IOException {
    this.sequence = sequence;
    this.file = file;
    this.version = version;
    this.channel = channel;
    this.size = size;
    this.allocated = size;
    // Both descriptors are opened before this process writes anything: the standby may sync.
    this.standby = FileChannel.open(file, StandardOpenOption.WRITE);
    this.standbyOpenedAfter = -1;
  }

  /** Creates {@code file}, which must not exist, as an empty segment; on failure nothing stays open. */
  static Segment create(long sequence, Path file) throws IOException {
    return open(sequence, file, LogFormat.VERSION, 0, StandardOpenOption.CREATE_NEW);
  }

  /**
   * Opens the existing segment {@code file} of format {@code version} for appending after its
   * first {@code size} bytes; on failure nothing stays open.
   */
  static Segment reopen(long sequence, Path file, int version, long size) throws IOException {
    return open(sequence, file, version, size, StandardOpenOption.WRITE);
  }

  private static Segment open(long sequence, Path file, int version, long size,
      StandardOpenOption mode) throws IOException {
    FileChannel ch = FileChannel.open(file, mode, StandardOpenOption.WRITE);
    try {
      return new Segment(sequence, file, version, ch, size);
    } catch (IOException | RuntimeException | Error e) {
      SegmentedLog.closeQuietly(ch);
      throw e;
    }
  }

  /** Numbers a sync about to run on {@code ch}, or throws if {@code ch} may not sync. */
  synchronized long beginSync(FileChannel ch) throws IOException {
    if (ch == channel && !channelMaySync) {
      throw new IOException("segment " + file + ": its descriptor was replaced after interrupts "
          + "and cannot prove that no write-back error was missed");
    }
    return ++syncsBegun;
  }

  synchronized void syncSucceeded(long number) {
    lastGoodSync = Math.max(lastGoodSync, number);
  }

  /**
   * Replaces {@code closed}, closed by an interrupt, with the standby and opens a new standby.
   * The standby may sync only if it was opened before anything was written or before a sync
   * that succeeded since.
   */
  synchronized Takeover takeOver(FileChannel closed) {
    if (channel != closed) {
      return Takeover.BY_ANOTHER_THREAD;
    }
    if (standby == null) {
      return Takeover.NO_STANDBY;
    }
    channelMaySync = standbyOpenedAfter < 0 || lastGoodSync > standbyOpenedAfter;
    channel = standby;
    try {
      standby = FileChannel.open(file, StandardOpenOption.WRITE);
      standbyOpenedAfter = syncsBegun;
    } catch (IOException e) {
      standby = null;
      LOG.warn("State log segment {}: no new standby descriptor ({}); the next interrupt in a "
          + "write or sync fails the log", file, e.toString());
    }
    return Takeover.DONE;
  }

  synchronized void closeChannels() {
    SegmentedLog.closeQuietly(channel);
    SegmentedLog.closeQuietly(standby);
  }

  @Override
  public String toString() {
    return "Segment{" + file + ", " + size + " bytes}";
  }
}
