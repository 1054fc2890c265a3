package dev.twophase.file;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.file.FileTransaction.Part;
import dev.twophase.file.internal.EarlyDirectorySync;
import dev.twophase.file.internal.FileNames;
import dev.twophase.file.internal.Fsync;
import dev.twophase.file.internal.PartWriter;
import dev.twophase.file.internal.ScratchBuffer;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once files, in the spirit of Flink's file sink: each transaction writes hidden
 * in-progress part files under a base directory, and its commit renames them to their final names.
 *
 * <ul>
 *   <li>{@code write} encodes the record into a scratch buffer (a record that cannot be encoded
 *       fails alone and the transaction stays usable), picks its bucket (a sub-directory) and
 *       appends it to the transaction's current part file there, rolling to a new part by size or
 *       record count.
 *   <li>{@code preCommit} flushes, fsyncs and closes every part, and makes sure the directories
 *       are synced: the data and the in-progress names survive a crash. The directory of a new
 *       part is synced on a background thread as soon as the part is created, while its records
 *       are written, so the pre-commit usually only collects that sync's outcome instead of
 *       waiting for a second device flush after the part's own.
 *   <li>{@code commit} renames each part atomically to {@code part-<transaction>-<index><suffix>}
 *       and fsyncs the directories. Repeated, it finds the final names and reports
 *       {@code ALREADY_COMMITTED}; a part with neither name is {@code LOST}.
 *   <li>{@code abort} deletes the in-progress parts; final files are never touched.
 *   <li>On start-up it deletes the in-progress parts of this coordinator's and this participant's
 *       transactions that the coordinator did not hand it (begun after the last durable record),
 *       and leaves other coordinators' and participants' files in the same directories alone.
 * </ul>
 *
 * <p>Every path stays inside the base directory; files (and directories it creates) are
 * owner-only where the file system has POSIX permissions. A failed write or fsync (a full disk,
 * say) fails the checkpoint; it is never reported as success.
 *
 * <p>Threads: writes and pre-commits of the current transaction come from the application thread
 * while commits of earlier ones run on the coordinator's committer thread; transactions share no
 * mutable state but the map of open ones, which is concurrent, and the directory syncer, which is
 * thread-safe. One more thread, a daemon started on
 * demand and ended after 30 s without work or by {@link #close()}, syncs the directories of new
 * parts (see {@code EarlyDirectorySync}).
 *
 * @param <IN> record type
 */
public final class FileParticipant<IN>
    implements Participant<FileTransaction, Void>, Writable<IN, FileTransaction> {

  private static final Logger LOG = LoggerFactory.getLogger(FileParticipant.class);
  private static final boolean POSIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

  private final Path base;
  private final RecordEncoder<IN> encoder;
  private final BucketAssigner<IN> buckets;
  private final long maxPartBytes;
  private final long maxPartRecords;
  private final int bufferBytes;
  private final boolean ownerOnly;
  private final Clock clock;
  private final FileNames names;
  private final Codec<FileTransaction> codec = new HandleCodec();

  /** Transactions begun here and not yet pre-committed or aborted, by name. */
  private final Map<String, OpenTransaction> open = new ConcurrentHashMap<>();
  /** Application thread only: encoding scratch space. */
  private final ScratchBuffer scratch = new ScratchBuffer();
  /**
   * Buckets already checked. Concurrent: the application thread (write, abort) and the committer
   * thread (commit) both resolve buckets.
   */
  private final Map<String, Path> bucketDirs = new ConcurrentHashMap<>();
  private final EarlyDirectorySync.DirectorySyncer directorySyncer;
  /** Syncs the directory of each new part while its records are written. */
  private final EarlyDirectorySync earlySync;

  private FileParticipant(Builder<IN> b) {
    this.base = b.base;
    this.encoder = b.encoder;
    this.buckets = b.buckets;
    this.maxPartBytes = b.maxPartBytes;
    this.maxPartRecords = b.maxPartRecords;
    this.bufferBytes = b.bufferBytes;
    this.ownerOnly = b.ownerOnly;
    this.clock = b.clock;
    this.names = new FileNames(b.suffix);
    this.directorySyncer = b.directorySyncer;
    this.earlySync = new EarlyDirectorySync(b.directorySyncer, "twophase-file-dirsync " + b.base);
  }

  private void syncDirectory(Path dir) throws IOException {
    directorySyncer.sync(dir);
  }

  /**
   * Starts a participant writing under {@code baseDirectory} (created if missing) with
   * {@code encoder}; see {@link RecordEncoders}.
   */
  public static <IN> Builder<IN> builder(Path baseDirectory, RecordEncoder<IN> encoder) {
    return new Builder<>(baseDirectory, encoder);
  }

  /** The base directory, absolute. */
  public Path baseDirectory() {
    return base;
  }

  /** The final file of a committed part: an absolute path under {@link #baseDirectory()}. */
  public Path committedFile(FileTransaction transaction, Part part) {
    return bucketDir(part.bucket()).resolve(names.finalName(transaction.name(), part.index()));
  }

  @Override
  public Codec<FileTransaction> transactionCodec() {
    return codec;
  }

  @Override
  public FileTransaction beginTransaction(TransactionContext<Void> context) {
    String name = context.transactionName();
    FileTransaction handle = new FileTransaction(name, clock.millis(), List.of());
    if (open.putIfAbsent(name, new OpenTransaction(handle)) != null) {
      throw new FatalTwoPhaseException("transaction " + name + " is already open in this participant");
    }
    return handle;
  }

  @Override
  public RecordWriter<IN> writerFor(FileTransaction transaction) {
    return openTransaction(transaction, "write to");
  }

  @Override
  public FileTransaction preCommit(FileTransaction transaction) throws IOException {
    OpenTransaction t = openTransaction(transaction, "pre-commit");
    if (t.broken != null) {
      throw new IOException("transaction " + transaction.name() + " had a failed write and cannot be "
          + "pre-committed: " + t.broken.getMessage(), t.broken);
    }
    for (PartWriter writer : t.writers.values()) {
      writer.finish();
    }
    t.writers.clear();
    // Every background sync, not only the latest per directory: a failed one stays a failure even
    // if a later sync of the same directory succeeds (after a reported fsync error, a new fsync
    // may succeed without the entries having been written).
    for (EarlySync early : t.allEarlySyncs) {
      EarlyDirectorySync.await(early.sync, early.dir);
    }
    for (Path dir : t.dirsToSync) {
      if (!t.earlySyncs.containsKey(dir)) { // else covered: begun after the directory's last entry
        syncDirectory(dir);
      }
    }
    open.remove(transaction.name());
    return new FileTransaction(transaction.name(), transaction.begunAtMillis(), t.parts);
  }

  @Override
  public CommitOutcome commit(FileTransaction transaction) throws IOException {
    if (open.containsKey(transaction.name())) {
      throw new FatalTwoPhaseException(
          "commit of " + transaction.name() + " before its pre-commit: a protocol violation");
    }
    // Check every part before renaming any: a transaction with a part gone is reported LOST
    // without making its other parts visible.
    List<Path> missing = new ArrayList<>();
    for (Part part : transaction.parts()) {
      Path dir = bucketDir(part.bucket());
      if (!Files.exists(dir.resolve(names.inProgressName(transaction.name(), part.index())), LinkOption.NOFOLLOW_LINKS)
          && !Files.exists(dir.resolve(names.finalName(transaction.name(), part.index())), LinkOption.NOFOLLOW_LINKS)) {
        missing.add(dir.resolve(names.inProgressName(transaction.name(), part.index())));
      }
    }
    if (!missing.isEmpty()) {
      LOG.error("transaction {}: part files {} have neither their in-progress nor their final name; "
          + "their records are missing", transaction.name(), missing);
      return CommitOutcome.LOST;
    }
    boolean renamed = false;
    Set<Path> dirs = new LinkedHashSet<>();
    for (Part part : transaction.parts()) {
      Path dir = bucketDir(part.bucket());
      Path inProgress = dir.resolve(names.inProgressName(transaction.name(), part.index()));
      Path committed = dir.resolve(names.finalName(transaction.name(), part.index()));
      try {
        Files.move(inProgress, committed, StandardCopyOption.ATOMIC_MOVE);
        renamed = true;
        dirs.add(dir);
      } catch (NoSuchFileException alreadyFinal) {
        // renamed by an earlier attempt (checked above that one of the names exists)
      }
    }
    for (Path dir : dirs) {
      syncDirectory(dir);
    }
    return renamed || transaction.parts().isEmpty() ? CommitOutcome.COMMITTED : CommitOutcome.ALREADY_COMMITTED;
  }

  @Override
  public void abort(FileTransaction transaction) throws IOException {
    deleteParts(transaction);
  }

  /** Deletes the in-progress parts of {@code transaction}; returns whether there were any. */
  private boolean deleteParts(FileTransaction transaction) throws IOException {
    OpenTransaction t = open.remove(transaction.name());
    List<Part> parts = new ArrayList<>(transaction.parts());
    if (t != null) {
      t.writers.values().forEach(PartWriter::closeQuietly);
      parts.addAll(t.parts);
    }
    Set<Path> dirs = new LinkedHashSet<>();
    for (Part part : parts) {
      Path dir = bucketDir(part.bucket());
      if (Files.deleteIfExists(dir.resolve(names.inProgressName(transaction.name(), part.index())))) {
        dirs.add(dir);
      }
    }
    for (Path dir : dirs) {
      syncDirectory(dir);
    }
    return !dirs.isEmpty();
  }

  /**
   * Looks the transaction up by its name, since the handle recovery aborts was logged before the
   * transaction's first write and names no parts: a committed part of that name means the
   * transaction was committed ({@link AbortOutcome#COMMITTED}, nothing deleted); otherwise every
   * in-progress part of that name is deleted.
   */
  @Override
  public AbortOutcome recoverAndAbort(FileTransaction transaction) throws IOException {
    if (hasCommittedPart(transaction.name())) {
      return AbortOutcome.COMMITTED;
    }
    boolean deleted = deleteParts(transaction);
    deleted |= deleteInProgress(name -> name.equals(transaction.name())) > 0;
    return deleted ? AbortOutcome.ABORTED : AbortOutcome.NOT_FOUND;
  }

  /** Whether any bucket under the base holds a committed part of transaction {@code name}. */
  private boolean hasCommittedPart(String name) throws IOException {
    if (!Files.isDirectory(base)) {
      return false;
    }
    boolean[] found = {false};
    Files.walkFileTree(base, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (attrs.isRegularFile() && name.equals(names.transactionOfCommitted(file))) {
          found[0] = true;
          return FileVisitResult.TERMINATE;
        }
        return FileVisitResult.CONTINUE;
      }
    });
    return found[0];
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<FileTransaction, Void> context) throws IOException {
    Set<String> handled = new HashSet<>();
    context.handledTransactions().forEach(t -> handled.add(t.name()));
    int deleted = deleteInProgress(
        name -> context.isOwnTransactionName(name) && !handled.contains(name) && !open.containsKey(name));
    if (deleted > 0) {
      LOG.info("{}: deleted {} in-progress part file(s) of transactions begun after the last "
          + "decision of coordinator {}", base, deleted, context.coordinatorId());
    }
  }

  @Override
  public void close() {
    for (OpenTransaction t : open.values()) {
      t.writers.values().forEach(PartWriter::closeQuietly);
    }
    open.clear();
    earlySync.close();
  }

  @Override
  public String toString() {
    return "FileParticipant[" + base + "]";
  }

  // ------------------------------------------------------------------ internals

  private OpenTransaction openTransaction(FileTransaction transaction, String what) {
    OpenTransaction t = open.get(transaction.name());
    if (t == null) {
      throw new FatalTwoPhaseException("cannot " + what + " transaction " + transaction.name()
          + ": it is not open in this participant (pre-committed, aborted, or begun elsewhere)");
    }
    return t;
  }

  /** The bucket's directory, checked once per bucket name to stay inside the base directory. */
  private Path bucketDir(String bucket) {
    if (bucket == null) {
      return resolveBucket(base, null); // refuses it (and a concurrent map holds no null key)
    }
    Path dir = bucketDirs.get(bucket);
    if (dir == null) {
      dir = resolveBucket(base, bucket);
      if (bucketDirs.size() < 10_000) {
        bucketDirs.put(bucket, dir);
      }
    }
    return dir;
  }

  static Path resolveBucket(Path base, String bucket) {
    if (bucket == null) {
      throw new IllegalArgumentException("the bucket assigner returned null; return \"\" for the base directory");
    }
    if (bucket.isEmpty()) {
      return base;
    }
    if (bucket.startsWith("/") || bucket.indexOf('\\') >= 0 || bucket.indexOf('\0') >= 0
        || (bucket.length() > 1 && bucket.charAt(1) == ':')) {
      throw new IllegalArgumentException("bucket '" + bucket + "' is not a relative path of names "
          + "separated by '/'; it must stay inside " + base);
    }
    for (String segment : bucket.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException("bucket '" + bucket + "' has an empty, '.' or '..' "
            + "segment; buckets must stay inside " + base);
      }
    }
    Path dir = base.resolve(bucket).normalize();
    if (!dir.startsWith(base) || dir.equals(base)) {
      throw new IllegalArgumentException("bucket '" + bucket + "' leaves " + base);
    }
    return dir;
  }

  /** Deletes in-progress parts (of this scheme) whose transaction name matches; returns how many. */
  private int deleteInProgress(java.util.function.Predicate<String> transaction) throws IOException {
    if (!Files.isDirectory(base)) {
      return 0;
    }
    Set<Path> dirs = new LinkedHashSet<>();
    int[] deleted = {0};
    Files.walkFileTree(base, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        String name = attrs.isRegularFile() ? names.transactionOfInProgress(file) : null;
        if (name != null && transaction.test(name) && Files.deleteIfExists(file)) {
          LOG.debug("deleted in-progress part {}", file);
          dirs.add(file.getParent());
          deleted[0]++;
        }
        return FileVisitResult.CONTINUE;
      }
    });
    for (Path dir : dirs) {
      syncDirectory(dir);
    }
    return deleted[0];
  }

  /**
   * State of a transaction between begin and pre-commit, and the writer of its records; touched by
   * one thread at a time.
   */
  private final class OpenTransaction implements RecordWriter<IN> {
    final FileTransaction handle;
    /** The parts created so far, in creation order. */
    final List<Part> parts = new ArrayList<>();
    final Map<String, PartWriter> writers = new LinkedHashMap<>();
    /** The directories whose entries pre-commit must make durable. */
    final Set<Path> dirsToSync = new LinkedHashSet<>();
    /**
     * Per directory, a background sync begun after the directory's latest new entry, if any (see
     * EarlyDirectorySync); a directory without one is synced by the pre-commit itself.
     */
    final Map<Path, Future<Void>> earlySyncs = new HashMap<>();
    /** Every background sync started for this transaction: each one's failure counts. */
    final List<EarlySync> allEarlySyncs = new ArrayList<>();
    int nextIndex;
    Exception broken;

    OpenTransaction(FileTransaction handle) {
      this.handle = handle;
    }

    @Override
    public void write(IN record) throws IOException {
      Objects.requireNonNull(record, "record");
      if (broken != null) {
        throw new IOException("transaction " + handle.name() + " can no longer be committed after "
            + "an earlier failed write (" + broken.getMessage() + "); the next checkpoint aborts it");
      }
      scratch.reset();
      try {
        encoder.encode(record, scratch);
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            "record cannot be encoded for " + base + ": " + e.getMessage() + " (the transaction "
                + handle.name() + " is unchanged)", e);
      }
      String bucket = buckets.bucket(record);
      Path dir = bucketDir(bucket);
      PartWriter writer = writers.get(bucket);
      try {
        if (writer != null && writer.records() > 0
            && (writer.records() >= maxPartRecords || writer.bytes() + scratch.size() > maxPartBytes)) {
          writers.remove(bucket);
          writer.finish(); // roll: this part is complete and durable; the next one starts empty
          writer = null;
        }
        if (writer == null) {
          writer = newPart(bucket, dir);
        }
        writer.append(scratch.array(), scratch.size());
      } catch (IOException | RuntimeException e) {
        // A part may now hold half a record: this transaction can only be aborted.
        broken = e;
        throw new IOException("writing to " + (writer == null ? dir : writer.file()) + " failed: "
            + e.getMessage() + "; transaction " + handle.name() + " can no longer be committed", e);
      }
    }

    PartWriter newPart(String bucket, Path dir) throws IOException {
      createDirectories(dir);
      int index = nextIndex++;
      PartWriter writer =
          new PartWriter(dir.resolve(names.inProgressName(handle.name(), index)), bufferBytes, ownerOnly);
      parts.add(new Part(bucket, index));
      writers.put(bucket, writer);
      dirsToSync.add(dir);
      // An older sync would not cover this part: forget it first, so that if none can be started
      // now (closed, or the start fails) the pre-commit syncs the directory itself.
      earlySyncs.remove(dir);
      Future<Void> sync = earlySync.start(dir);
      if (sync != null) {
        earlySyncs.put(dir, sync);
        allEarlySyncs.add(new EarlySync(dir, sync));
      }
      return writer;
    }

    /** Creates missing directories up from the base, remembering parents to sync. */
    private void createDirectories(Path dir) throws IOException {
      if (Files.isDirectory(dir)) {
        return;
      }
      List<Path> missing = new ArrayList<>();
      for (Path p = dir; p != null && !Files.isDirectory(p); p = p.getParent()) {
        missing.add(0, p);
      }
      for (Path p : missing) {
        try {
          Files.createDirectory(p, directoryAttributes());
        } catch (java.nio.file.FileAlreadyExistsException raced) {
          // created meanwhile (another participant sharing the base): fine
        }
        dirsToSync.add(p.getParent());
        earlySyncs.remove(p.getParent()); // a new entry there: a sync begun before it is stale

      }
    }
  }

  private record EarlySync(Path dir, Future<Void> sync) {}

  private FileAttribute<?>[] directoryAttributes() {
    return directoryAttributes(ownerOnly);
  }

  private static FileAttribute<?>[] directoryAttributes(boolean ownerOnly) {
    return ownerOnly && POSIX
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
        : new FileAttribute<?>[0];
  }

  /** JSON: {@code {"name":..., "begunAt":..., "parts":[{"bucket":..., "index":...}]}}, version 1. */
  private static final class HandleCodec implements Codec<FileTransaction> {
    private static final ObjectMapper MAPPER = JsonMapper.builder().build();

    @Override
    public int version() {
      return 1;
    }

    @Override
    public byte[] encode(FileTransaction t) throws IOException {
      ObjectNode node = MAPPER.createObjectNode();
      node.put("name", t.name());
      node.put("begunAt", t.begunAtMillis());
      ArrayNode parts = node.putArray("parts");
      for (Part p : t.parts()) {
        parts.addObject().put("bucket", p.bucket()).put("index", p.index());
      }
      return MAPPER.writeValueAsBytes(node);
    }

    @Override
    public FileTransaction decode(byte[] bytes, int version) throws IOException {
      if (version != 1) {
        throw new IOException("file transaction handles of version " + version + " are unknown to "
            + "this release, which reads version 1");
      }
      JsonNode node = MAPPER.readTree(bytes);
      JsonNode name = node.get("name");
      if (name == null || !name.isTextual()) {
        throw new IOException("not a file transaction handle: " + node);
      }
      List<Part> parts = new ArrayList<>();
      for (JsonNode p : node.path("parts")) {
        parts.add(new Part(p.path("bucket").asText(), p.path("index").asInt()));
      }
      return new FileTransaction(name.asText(), node.path("begunAt").asLong(), parts);
    }
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
    private EarlyDirectorySync.DirectorySyncer directorySyncer = Fsync::directory;

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

    /** Ending of part file names, e.g. {@code ".jsonl"}; default none. */
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

    /** Tests only: how directories are synced (to inject failures). */
    Builder<IN> directorySyncer(EarlyDirectorySync.DirectorySyncer syncer) {
      this.directorySyncer = Objects.requireNonNull(syncer, "directorySyncer");
      return this;
    }

    /**
     * @throws IllegalArgumentException if the base directory cannot be created or is not a
     *     writable directory
     */
    public FileParticipant<IN> build() {
      try {
        if (!Files.isDirectory(base)) {
          // Owner-only like every other directory the participant creates (an existing one is
          // left as it is).
          Files.createDirectories(base, directoryAttributes(ownerOnly));
          Fsync.directory(base.getParent());
        }
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot create the base directory " + base + ": " + e, e);
      }
      if (!Files.isWritable(base)) {
        throw new IllegalArgumentException("base directory " + base + " is not writable");
      }
      return new FileParticipant<>(this);
    }
  }
}
