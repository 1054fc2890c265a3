package dev.twophase.file.internal;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FaultInjector;
import dev.twophase.RecordWriter;
import dev.twophase.annotation.Internal;
import dev.twophase.file.BucketAssigner;
import dev.twophase.file.FilePoints;
import dev.twophase.file.FileTransaction;
import dev.twophase.file.FileTransaction.Part;
import dev.twophase.file.RecordEncoder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Future;

/**
 * One transaction between {@code beginTransaction} and its pre-commit or abort: the writer of its
 * records, its part files, and the directory syncs its pre-commit must see completed.
 *
 * <p>The record path ({@link #write}): the bucket assigner names the bucket, the record is encoded
 * straight into the bucket's current part buffer, and the part's counters move only once the
 * encoder returned. A record that cannot be encoded is rewound and refused alone. Everything
 * else (another bucket, a roll, a new part file, a full buffer) is off that path.
 *
 * <p>Touched by one thread at a time: the application thread writes and pre-commits; an abort may
 * come from another thread once the writing stopped.
 *
 * @param <IN> record type
 */
@Internal
public final class OpenTransaction<IN> implements RecordWriter<IN> {

  /** What every transaction of one participant shares. */
  public record Settings<IN>(
      RecordEncoder<IN> encoder,
      BucketAssigner<IN> assigner,
      long maxPartBytes,
      long maxPartRecords,
      BufferPool buffers,
      boolean ownerOnly,
      FileNames names,
      BucketDirectories buckets,
      EarlyDirectorySync earlySync,
      DirectorySync directorySync,
      FaultInjector faults) {}

  /** Syncs a directory after telling the fault injector which point it is at. */
  @FunctionalInterface
  public interface DirectorySync {
    void sync(Path dir, String point) throws IOException;
  }

  /** No bucket is current: compared by reference, it equals no bucket name an assigner returns. */
  private static final String NO_BUCKET = new String("no bucket");

  private final FileTransaction handle;
  private final Settings<IN> s;
  private final RecordEncoder<IN> encoder;
  private final BucketAssigner<IN> assigner;
  private final long maxPartBytes;
  private final long maxPartRecords;

  /** The bucket of the last record written and its part: the fast path's cache. */
  private String currentBucket = NO_BUCKET;
  private PartWriter current;

  /** The parts created so far, in creation order. */
  private final List<Part> parts = new ArrayList<>();
  /** The open part of each bucket. */
  private final Map<String, PartWriter> writers = new LinkedHashMap<>();
  /**
   * Every part whose file was created, open or finished: {@link #discard} closes them all, also one
   * created by a write that failed before the part became its bucket's open part.
   */
  private final List<PartWriter> files = new ArrayList<>();
  /** The directories whose entries pre-commit must make durable. */
  private final Set<Path> dirsToSync = new LinkedHashSet<>();
  /**
   * Per directory, a background sync begun after the directory's latest new entry, if any (see
   * EarlyDirectorySync); a directory without one is synced by the pre-commit itself.
   */
  private final Map<Path, Future<Void>> earlySyncs = new HashMap<>();
  /** Every background sync started for this transaction: each one's failure counts. */
  private final List<EarlySync> allEarlySyncs = new ArrayList<>();
  private int nextIndex;
  /** The failure after which this transaction can only be aborted. */
  private Throwable broken;
  /** Set once pre-committed or discarded: no record may be written any more. */
  private String closedBy;

  private record EarlySync(Path dir, Future<Void> sync) {}

  public OpenTransaction(FileTransaction handle, Settings<IN> settings) {
    this.handle = handle;
    this.s = settings;
    this.encoder = settings.encoder();
    this.assigner = settings.assigner();
    this.maxPartBytes = settings.maxPartBytes();
    this.maxPartRecords = settings.maxPartRecords();
  }

  public FileTransaction handle() {
    return handle;
  }

  /** The parts created so far (also those of a broken transaction: abort deletes them). */
  public List<Part> parts() {
    return parts;
  }

  @Override
  public void write(IN record) throws IOException {
    if (record == null) {
      throw new NullPointerException("record");
    }
    if (broken != null || closedBy != null) {
      throw notWritable();
    }
    String bucket = assigner.bucket(record);
    PartWriter part = current;
    if (!Objects.equals(bucket, currentBucket) || part.records() >= maxPartRecords) {
      part = partFor(bucket);
    }
    int start = part.position();
    try {
      encoder.encode(record, part);
    } catch (Throwable e) {
      part.rewind(start);
      if (!part.created()) {
        part.discard(); // a new part that never got a record: its buffer goes back
      }
      throw refused(e);
    }
    int length = part.position() - start;
    if (part == current && part.bytes() + length <= maxPartBytes) {
      part.recordWritten(length);
      try {
        part.drainIfFull(length);
      } catch (IOException | RuntimeException | Error e) {
        throw failed(part, e);
      }
      return;
    }
    complete(part, bucket, start, length);
  }

  private IOException notWritable() {
    if (closedBy != null) {
      throw new FatalTwoPhaseException("cannot write to transaction " + handle.name() + ": it was "
          + closedBy + " (a writer kept across a checkpoint; write through the coordinator's Output)");
    }
    return new IOException("transaction " + handle.name() + " can no longer be committed after "
        + "an earlier failed write (" + broken.getMessage() + "); the next checkpoint aborts it");
  }

  private IllegalArgumentException refused(Throwable e) {
    if (e instanceof Error error) {
      throw error; // rewound: the transaction is as it was; the caller learns of the Error as it is
    }
    return new IllegalArgumentException("record cannot be encoded for " + s.buckets().base() + ": "
        + e.getMessage() + " (the transaction " + handle.name() + " is unchanged)", e);
  }

  /** This transaction can only be aborted from now on: a part may hold half a record. */
  private IOException failed(PartWriter part, Throwable e) {
    broken = e;
    return new IOException("writing to " + part.file() + " failed: " + e.getMessage() + "; transaction "
        + handle.name() + " can no longer be committed", e);
  }

  /**
   * The part the next record of {@code bucket} goes to: the bucket's open part, or a new one (no
   * file yet) if the bucket has none or its open part is full by record count.
   */
  private PartWriter partFor(String bucket) {
    PartWriter part = bucket == null ? null : writers.get(bucket);
    if (part != null && part.records() < maxPartRecords) {
      current = part;
      currentBucket = bucket;
      return part;
    }
    Path dir = s.buckets().resolve(bucket); // refuses a bucket outside the base
    return new PartWriter(bucket, dir, s.buffers());
  }

  /**
   * The record of {@code length} bytes at {@code start} of {@code part} is encoded, but the part is
   * not the current one of its bucket, or is not created yet, or the record would make it too big.
   */
  private void complete(PartWriter part, String bucket, int start, int length) throws IOException {
    PartWriter open = writers.get(bucket);
    if (part == open) {
      if (part.bytes() + length <= maxPartBytes) {
        part.recordWritten(length);
        try {
          part.drainIfFull(length);
        } catch (IOException | RuntimeException | Error e) {
          throw failed(part, e);
        }
        return;
      }
      // Roll by size: the record goes to a new part, the full one is finished.
      PartWriter next = new PartWriter(bucket, part.dir(), s.buffers());
      part.moveTo(next, start);
      part = next;
    }
    try {
      create(part);
    } catch (BucketDirectories.LinkRefusedException e) {
      // Nothing of the record reached a file: refused alone, like a bucket outside the base.
      part.discard();
      throw new IllegalArgumentException("bucket '" + bucket + "': " + e.getMessage()
          + "; the record was not written (the transaction " + handle.name() + " is unchanged)", e);
    } catch (IOException | RuntimeException | Error e) {
      throw failed(part, e);
    }
    part.recordWritten(length);
    writers.put(bucket, part);
    current = part;
    currentBucket = bucket;
    if (open != null) {
      try {
        open.finish(); // rolled: that part is complete and durable; the next one has begun
      } catch (IOException | RuntimeException | Error e) {
        throw failed(open, e);
      }
    }
    try {
      part.drainIfFull(length);
    } catch (IOException | RuntimeException | Error e) {
      throw failed(part, e);
    }
  }

  /** Creates the part's directories and file, and starts the background sync of its directory. */
  private void create(PartWriter part) throws IOException {
    Path dir = part.dir();
    for (Path created : s.buckets().createDirectories(dir)) {
      dirsToSync.add(created.getParent());
      earlySyncs.remove(created.getParent()); // a new entry there: a sync begun before it is stale
    }
    int index = nextIndex;
    part.create(dir.resolve(s.names().inProgressName(handle.name(), index)), index, s.ownerOnly());
    files.add(part); // from here on, whatever fails, discard() closes it
    nextIndex++;
    parts.add(new Part(part.bucket(), index));
    dirsToSync.add(dir);
    // An older sync would not cover this part: forget it first, so that if none can be started
    // now (closed, or the start fails) the pre-commit syncs the directory itself.
    earlySyncs.remove(dir);
    Future<Void> sync = s.earlySync().start(dir);
    if (sync != null) {
      earlySyncs.put(dir, sync);
      allEarlySyncs.add(new EarlySync(dir, sync));
    }
    s.faults().reached(FilePoints.WRITE_AFTER_CREATE_PART);
  }

  /**
   * Flushes, fsyncs and closes every part, waits for the directory syncs and syncs the directories
   * no background sync covers; returns the handle that names every part.
   */
  public FileTransaction preCommit() throws IOException {
    if (broken != null) {
      throw new IOException("transaction " + handle.name() + " had a failed write and cannot be "
          + "pre-committed: " + broken.getMessage(), broken);
    }
    try {
      closedBy = "pre-committed";
      for (PartWriter writer : writers.values()) {
        writer.finish();
      }
      writers.clear();
      current = null;
      currentBucket = NO_BUCKET;
      s.faults().reached(FilePoints.PRE_COMMIT_AFTER_FSYNC);
      // Every background sync, not only the latest per directory: a failed one stays a failure
      // even if a later sync of the same directory succeeds (after a reported fsync error, a new
      // fsync may succeed without the entries having been written).
      for (EarlySync early : allEarlySyncs) {
        s.earlySync().awaitOrRun(early.sync(), early.dir());
      }
      for (Path dir : dirsToSync) {
        if (!earlySyncs.containsKey(dir)) { // else covered: begun after the directory's last entry
          s.directorySync().sync(dir, FilePoints.PRE_COMMIT_DIRECTORY_SYNC);
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      broken = e; // a part may be cut short: a second pre-commit must not succeed
      throw e;
    }
    return new FileTransaction(handle.name(), handle.begunAtMillis(), parts);
  }

  /** Closes every open part without writing it out (the transaction is aborted or abandoned). */
  public void discard() {
    if (closedBy == null) {
      closedBy = "aborted";
    }
    for (PartWriter writer : files) {
      writer.discard();
    }
    files.clear();
    writers.clear();
    current = null;
    currentBucket = NO_BUCKET;
  }
}
