package dev.twophase.file;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.ParticipantContext;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.file.FileTransaction.Part;
import dev.twophase.file.internal.BucketDirectories;
import dev.twophase.file.internal.BufferPool;
import dev.twophase.file.internal.EarlyDirectorySync;
import dev.twophase.file.internal.FileNames;
import dev.twophase.file.internal.Fsync;
import dev.twophase.file.internal.HandleCodec;
import dev.twophase.file.internal.LeftoverSweeper;
import dev.twophase.file.internal.OpenTransaction;
import dev.twophase.file.internal.OwnerClaims;
import dev.twophase.file.internal.PartFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once files, in the spirit of Flink's file sink: each transaction writes hidden
 * in-progress part files under a base directory, and its commit renames them to their final names.
 *
 * <ul>
 *   <li>{@code write} (through the transaction's {@link #writerFor writer}) picks the record's
 *       bucket (a sub-directory) and encodes the record straight into the buffer of the
 *       transaction's current part file there, rolling to a new part by size or record count. A
 *       record that cannot be encoded is rewound and fails alone: the transaction stays usable.
 *   <li>{@code preCommit} flushes, fsyncs and closes every part, and makes sure the directories
 *       are synced: the data and the in-progress names survive a crash. The directory of a new
 *       part is synced on a background thread as soon as the part is created, while its records
 *       are written, so the pre-commit usually only collects that sync's outcome instead of
 *       waiting for a second device flush after the part's own. It returns the handle that names
 *       every part.
 *   <li>{@code commit} renames each part atomically to {@code part-<transaction>-<index><suffix>}
 *       and fsyncs the directories. Repeated, it finds the final names and reports
 *       {@code ALREADY_COMMITTED}; a part with neither name is {@code LOST}.
 *   <li>{@code abort} deletes the in-progress parts; final files are never touched.
 *   <li>On start-up it deletes the in-progress parts of the transactions the recovery context
 *       calls leftovers ({@link RecoveryContext#leftovers}: this coordinator's and this
 *       participant's, and not handed to it, so begun after the last durable record), and leaves
 *       other coordinators' and participants' files in the same directories alone.
 * </ul>
 *
 * <p><b>Handles.</b> {@link FileTransaction} is an immutable value. The one
 * {@link #beginTransaction} returns names the transaction and no parts (the coordinator logs it
 * before the first record, so that recovery can abort the transaction); the one {@link #preCommit}
 * returns names every part, and is the one the coordinator logs with its decision and passes to
 * {@link #commit}. Recovery's {@link #recoverAndAbort} therefore finds parts by the transaction's
 * name, not by the handle's list.
 *
 * <p>Every path stays inside the base directory, and no symbolic link below it is followed (see
 * the user documentation for what that guarantees against a concurrent writer of the directory).
 * Files (and directories it creates) are owner-only where the file system has POSIX permissions.
 * A failed write or fsync (a full disk, say) fails the checkpoint; it is never reported as
 * success.
 *
 * <p>Fault injection: the participant calls its {@link Builder#faultInjector fault injector} at the
 * points named in {@link FilePoints}, never on the per-record path.
 *
 * <p>Threads: writes and pre-commits of the current transaction come from the application thread
 * while commits of earlier ones run on the coordinator's committer thread; transactions share no
 * mutable state but the map of open ones, which is concurrent, and the bucket directories, which
 * are thread-safe. One more thread, a daemon started on demand and ended after 30 s without work or
 * by {@link #close()}, syncs the directories of new parts.
 *
 * @param <IN> record type
 */
@PublicEvolving
public final class FileParticipant<IN>
    implements Participant<FileTransaction, Void>, Writable<IN, FileTransaction> {

  private static final Logger LOG = LoggerFactory.getLogger(FileParticipant.class);

  private final Path base;
  private final Clock clock;
  private final FileNames names;
  private final BucketDirectories buckets;
  private final Codec<FileTransaction> codec = new HandleCodec();
  private final OpenTransaction.Settings<IN> settings;
  private final PartFiles partFiles;
  private final LeftoverSweeper sweeper;
  /** Syncs the directory of each new part while its records are written. */
  private final EarlyDirectorySync earlySync;

  /** Who owns the transactions of each prefix this participant works on, in the base directory. */
  private final OwnerClaims claims;
  /** The claims this participant holds, by transaction-name prefix. */
  private final Map<String, OwnerClaims.Claim> claimed = new ConcurrentHashMap<>();

  /** Transactions begun here and not yet pre-committed or aborted, by name. */
  private final Map<String, OpenTransaction<IN>> open = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private FileParticipant(Builder<IN> b, Path realBase) {
    this.base = realBase;
    this.clock = b.clock;
    this.names = new FileNames(b.suffix);
    this.buckets = new BucketDirectories(realBase, b.ownerOnly);
    FaultInjector faults = b.faults;
    OpenTransaction.DirectorySync directorySync = (dir, point) -> {
      if (point != null) {
        faults.reached(point);
      }
      Fsync.directory(dir);
    };
    this.earlySync = new EarlyDirectorySync(dir -> directorySync.sync(dir, FilePoints.BACKGROUND_DIRECTORY_SYNC),
        "twophase-file-dirsync " + realBase);
    this.settings = new OpenTransaction.Settings<>(b.encoder, b.buckets, b.maxPartBytes, b.maxPartRecords,
        new BufferPool(b.bufferBytes, 4), b.ownerOnly, names, buckets, earlySync, directorySync, faults);
    this.partFiles = new PartFiles(names, buckets, directorySync, faults);
    this.sweeper = new LeftoverSweeper(names, buckets, directorySync, faults);
    this.claims = new OwnerClaims(realBase, b.ownerOnly, b.clock);
  }

  /**
   * Starts a participant writing under {@code baseDirectory} (created if missing) with
   * {@code encoder}; see {@link RecordEncoders}.
   */
  public static <IN> Builder<IN> builder(Path baseDirectory, RecordEncoder<IN> encoder) {
    return new Builder<>(baseDirectory, encoder);
  }

  /** The base directory: absolute, with symbolic links resolved when the participant was built. */
  public Path baseDirectory() {
    return base;
  }

  /** The final file of a committed part: an absolute path under {@link #baseDirectory()}. */
  public Path committedFile(FileTransaction transaction, Part part) {
    return buckets.resolve(part.bucket()).resolve(names.finalName(transaction.name(), part.index()));
  }

  @Override
  public Codec<FileTransaction> transactionCodec() {
    return codec;
  }

  /** Returns the handle that names the transaction and no parts; nothing is created on disk yet. */
  @Override
  public FileTransaction beginTransaction(TransactionContext<Void> context) {
    ensureOpen("beginTransaction");
    String name = names.transactionName(context.transactionNamePrefix(), context.transactionName());
    FileTransaction handle = new FileTransaction(name, clock.millis(), List.of());
    if (open.putIfAbsent(name, new OpenTransaction<>(handle, settings)) != null) {
      throw new FatalTwoPhaseException("transaction " + name + " is already open in this participant");
    }
    return handle;
  }

  @Override
  public RecordWriter<IN> writerFor(FileTransaction transaction) {
    return openTransaction(transaction, "write to");
  }

  /** Makes every part durable and returns the handle that names them all: log and commit that one. */
  @Override
  public FileTransaction preCommit(FileTransaction transaction) throws IOException {
    FileTransaction prepared = openTransaction(transaction, "pre-commit").preCommit();
    open.remove(transaction.name());
    return prepared;
  }

  @Override
  public CommitOutcome commit(FileTransaction transaction) throws IOException {
    if (open.containsKey(transaction.name())) {
      throw new FatalTwoPhaseException(
          "commit of " + transaction.name() + " before its pre-commit: a protocol violation");
    }
    return partFiles.commit(transaction);
  }

  @Override
  public void abort(FileTransaction transaction) throws IOException {
    deleteParts(transaction);
  }

  /** Deletes the in-progress parts of {@code transaction}; returns whether there were any. */
  private boolean deleteParts(FileTransaction transaction) throws IOException {
    OpenTransaction<IN> t = open.remove(transaction.name());
    List<Part> parts = new ArrayList<>(transaction.parts());
    if (t != null) {
      t.discard();
      parts.addAll(t.parts());
    }
    return partFiles.delete(transaction.name(), parts);
  }

  /**
   * Looks the transaction up by its name, since the handle recovery aborts may be the one logged
   * before the transaction's first write, which names no parts: a committed part of that name
   * means the transaction was committed ({@link AbortOutcome#COMMITTED}, nothing deleted);
   * otherwise every in-progress part of that name is deleted.
   */
  @Override
  public AbortOutcome recoverAndAbort(FileTransaction transaction) throws IOException {
    if (sweeper.hasCommittedPart(transaction.name())) {
      return AbortOutcome.COMMITTED;
    }
    boolean deleted = deleteParts(transaction);
    deleted |= sweeper.deleteInProgress(name -> name.equals(transaction.name()), FilePoints.ABORT_AFTER_DELETE) > 0;
    return deleted ? AbortOutcome.ABORTED : AbortOutcome.NOT_FOUND;
  }

  /** Claims the context's transactions in the base directory, before recovery touches any of them. */
  @Override
  public void startRecovery(ParticipantContext context) throws IOException {
    ensureOpen("startRecovery");
    claim(context);
  }

  /** Refuses a call after {@link #close()}: the participant's claims and buffers are gone. */
  private void ensureOpen(String call) {
    if (closed) {
      throw new FatalTwoPhaseException(call + " on " + this + " after close(): a participant serves one coordinator "
          + "(or sink task) and is closed with it; build a new participant for the next one");
    }
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<FileTransaction, Void> context) throws IOException {
    claim(context); // an engine that does not call startRecovery: still before any leftover is deleted
    Predicate<String> leftover = context.leftovers(FileTransaction::name);
    int deleted = sweeper.deleteInProgress(name -> !open.containsKey(name) && leftover.test(name),
        FilePoints.CLEANUP_AFTER_DELETE);
    if (deleted > 0) {
      LOG.info("{}: deleted {} in-progress part file(s) of transactions begun after the last "
          + "decision of coordinator {}", base, deleted, context.coordinatorId());
    }
  }

  /**
   * Claims the context's transactions in the base directory, once per prefix: a copy of the
   * coordinator's state log running beside it is refused ({@link OwnerClaims}).
   */
  private void claim(ParticipantContext context) throws IOException {
    String prefix = context.transactionNamePrefix();
    if (!claimed.containsKey(prefix)) {
      claimed.put(prefix, claims.claim(context));
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      for (OpenTransaction<IN> t : open.values()) {
        t.discard();
      }
      open.clear();
    } finally {
      try {
        earlySync.close();
      } finally {
        releaseClaims();
      }
    }
  }

  private void releaseClaims() {
    for (OwnerClaims.Claim claim : claimed.values()) {
      try {
        claim.close();
      } catch (IOException e) {
        LOG.warn("{}: could not release the claim file of a coordinator's transactions; the process's exit "
            + "releases it", base, e);
      }
    }
    claimed.clear();
  }

  @Override
  public String toString() {
    return "FileParticipant[" + base + "]";
  }

  private OpenTransaction<IN> openTransaction(FileTransaction transaction, String what) {
    OpenTransaction<IN> t = open.get(transaction.name());
    if (t == null) {
      throw new FatalTwoPhaseException("cannot " + what + " transaction " + transaction.name()
          + ": it is not open in this participant (pre-committed, aborted, or begun elsewhere)");
    }
    return t;
  }

  /** Settings of a {@link FileParticipant}; {@link #build()} checks them and creates the base. */
  public static final class Builder<IN> {
    private final Path base;
    private final RecordEncoder<IN> encoder;
    private BucketAssigner<IN> buckets = BucketAssigner.none();
    private long maxPartBytes = 128L * 1024 * 1024;
    private long maxPartRecords = Long.MAX_VALUE;
    private int bufferBytes = 64 * 1024;
    private String suffix = "";
    private boolean ownerOnly = true;
    private Clock clock = Clock.systemUTC();
    private FaultInjector faults = FaultInjector.none();

    private Builder(Path base, RecordEncoder<IN> encoder) {
      this.base = Objects.requireNonNull(base, "baseDirectory").toAbsolutePath().normalize();
      this.encoder = Objects.requireNonNull(encoder, "encoder");
    }

    /** Which sub-directory each record goes to; default: the base directory. */
    public Builder<IN> bucketAssigner(BucketAssigner<IN> assigner) {
      this.buckets = Objects.requireNonNull(assigner, "bucketAssigner");
      return this;
    }

    /** Roll to a new part file once a part holds this many bytes; default 128 MiB. */
    public Builder<IN> maxPartBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxPartBytes must be >= 1, was " + bytes);
      }
      this.maxPartBytes = bytes;
      return this;
    }

    /** Roll to a new part file once a part holds this many records; default unlimited. */
    public Builder<IN> maxPartRecords(long records) {
      if (records < 1) {
        throw new IllegalArgumentException("maxPartRecords must be >= 1, was " + records);
      }
      this.maxPartRecords = records;
      return this;
    }

    /** Write buffer per open part file; default 64 KiB. */
    public Builder<IN> bufferBytes(int bytes) {
      if (bytes < 512) {
        throw new IllegalArgumentException("bufferBytes must be >= 512, was " + bytes);
      }
      this.bufferBytes = bytes;
      return this;
    }

    /**
     * Ending of part file names, e.g. {@code ".jsonl"}; default none. A part file name holds at
     * most 255 bytes: a transaction name too long for it beside the suffix is shortened
     * ({@link dev.twophase.TransactionNames#shorten}, at most 61 characters), so a suffix of up to
     * 166 bytes (UTF-8) fits every name.
     */
    public Builder<IN> suffix(String suffix) {
      Objects.requireNonNull(suffix, "suffix");
      if (suffix.contains("/") || suffix.contains("\\") || suffix.contains("..") || suffix.contains("\0")) {
        throw new IllegalArgumentException("suffix must be a plain file name ending, was '" + suffix + "'");
      }
      this.suffix = suffix;
      return this;
    }

    /** Create files rw------- and directories rwx------ (POSIX file systems); default true. */
    public Builder<IN> ownerOnlyPermissions(boolean ownerOnly) {
      this.ownerOnly = ownerOnly;
      return this;
    }

    /** Clock for {@link FileTransaction#begunAtMillis()}. */
    public Builder<IN> clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Testing knob: the participant calls {@code injector} at each of the points named in
     * {@link FilePoints} (once per part, directory sync or operation, never per record), so that a
     * crash test can halt the JVM there and a fault test can fail the operation by throwing.
     * Default {@link FaultInjector#none()}.
     */
    public Builder<IN> faultInjector(FaultInjector injector) {
      this.faults = Objects.requireNonNull(injector, "faultInjector");
      return this;
    }

    /**
     * Builds the participant, creating the base directory if it does not exist.
     *
     * @throws IllegalArgumentException if the base directory cannot be created or is not a
     *     writable directory
     */
    public FileParticipant<IN> build() {
      Path real;
      try {
        if (!Files.isDirectory(base)) {
          // Owner-only like every other directory the participant creates (an existing one is
          // left as it is).
          Files.createDirectories(base, BucketDirectories.directoryAttributes(ownerOnly));
          Fsync.directory(base.getParent());
        }
        // Resolved once: a link that is the base directory (or above it) is the user's choice;
        // below it, no link is ever followed.
        real = base.toRealPath();
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot create the base directory " + base + ": " + e, e);
      }
      if (!Files.isWritable(real)) {
        throw new IllegalArgumentException("base directory " + base + " is not writable");
      }
      return new FileParticipant<>(this, real);
    }
  }
}
