package dev.twophase.flink;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.ParticipantContext;
import dev.twophase.RecoveryContext;
import dev.twophase.RetirementListener;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.FileTransaction;
import dev.twophase.file.RecordEncoders;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real file participant with a test's hook before its pre-commits, commits and aborts: the
 * hook may throw (a failing pre-commit or commit) or change the files (an external clean-up that
 * loses a transaction). It also counts, per directory, the participants created and not yet
 * closed, so that tests can check that every path closes what it opened, and records the handles
 * retired ({@link RetirementListener}). Everything else is the file participant's own behaviour.
 */
final class HookedFiles implements Participant<FileTransaction, Void>, Writable<CharSequence, FileTransaction>,
    RetirementListener<FileTransaction> {

  /**
   * Called at {@code "begin"} (after the begin), {@code "preCommit"}, {@code "commit"} (before the
   * commit or recoverAndCommit), {@code "committed"} (after it returned) and {@code "abort"} with
   * the handle.
   */
  @FunctionalInterface
  interface Hook extends Serializable {
    void at(String point, FileTransaction transaction, Path baseDirectory) throws Exception;
  }

  private static final Map<String, AtomicInteger> OPEN = new ConcurrentHashMap<>();
  private static final ThreadLocal<Boolean> RECOVERING = new ThreadLocal<>();
  private static final Map<String, Set<String>> RETIRED = new ConcurrentHashMap<>();
  private static final Set<String> RETIRED_UNCOMMITTED = ConcurrentHashMap.newKeySet();
  private static final Map<String, AtomicInteger> EARLIER_RETIRED = new ConcurrentHashMap<>();

  private final FileParticipant<CharSequence> files;
  private final Hook hook;
  private final String dir;
  private boolean closed;

  private HookedFiles(FileParticipant<CharSequence> files, Hook hook, String dir) {
    this.files = files;
    this.hook = hook;
    this.dir = dir;
    OPEN.computeIfAbsent(dir, d -> new AtomicInteger()).incrementAndGet();
  }

  static ParticipantFactory<HookedFiles> factory(String dir, Hook hook) {
    return () -> new HookedFiles(FileParticipant.builder(Path.of(dir), RecordEncoders.lines()).build(), hook, dir);
  }

  /** A participant that only counts. */
  static ParticipantFactory<HookedFiles> counted(String dir) {
    return factory(dir, (point, t, base) -> { });
  }

  /** The transactions on {@code dir} retired so far (their names). */
  static Set<String> retired(String dir) {
    return RETIRED.getOrDefault(dir, Set.of());
  }

  /** Transactions retired while a part of theirs was not committed (must stay empty). */
  static Set<String> retiredUncommitted() {
    return RETIRED_UNCOMMITTED;
  }

  /** How often the earlier incarnations of a participant on {@code dir} were retired. */
  static int earlierRetired(String dir) {
    AtomicInteger n = EARLIER_RETIRED.get(dir);
    return n == null ? 0 : n.get();
  }

  /** Whether the calling hook runs inside a {@code recoverAndCommit} (else a live {@code commit}). */
  static boolean inRecoverAndCommit() {
    return RECOVERING.get() != null;
  }

  /** How many participants on {@code dir} were created and not closed. */
  static int notClosed(String dir) {
    AtomicInteger n = OPEN.get(dir);
    return n == null ? 0 : n.get();
  }

  @Override
  public Codec<FileTransaction> transactionCodec() {
    return files.transactionCodec();
  }

  @Override
  public FileTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
    FileTransaction t = files.beginTransaction(context);
    hook.at("begin", t, files.baseDirectory());
    return t;
  }

  @Override
  public RecordWriter<CharSequence> writerFor(FileTransaction transaction) {
    return files.writerFor(transaction);
  }

  @Override
  public FileTransaction preCommit(FileTransaction transaction) throws Exception {
    hook.at("preCommit", transaction, files.baseDirectory());
    return files.preCommit(transaction);
  }

  @Override
  public CommitOutcome commit(FileTransaction transaction) throws Exception {
    hook.at("commit", transaction, files.baseDirectory());
    CommitOutcome outcome = files.commit(transaction);
    hook.at("committed", transaction, files.baseDirectory());
    return outcome;
  }

  @Override
  public CommitOutcome recoverAndCommit(FileTransaction transaction) throws Exception {
    RECOVERING.set(true);
    try {
      hook.at("commit", transaction, files.baseDirectory());
      CommitOutcome outcome = files.recoverAndCommit(transaction);
      hook.at("committed", transaction, files.baseDirectory());
      return outcome;
    } finally {
      RECOVERING.remove();
    }
  }

  @Override
  public void abort(FileTransaction transaction) throws Exception {
    hook.at("abort", transaction, files.baseDirectory());
    files.abort(transaction);
  }

  @Override
  public AbortOutcome recoverAndAbort(FileTransaction transaction) throws Exception {
    return files.recoverAndAbort(transaction);
  }

  @Override
  public void startRecovery(ParticipantContext context) throws Exception {
    files.startRecovery(context);
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<FileTransaction, Void> context) throws Exception {
    files.finishRecoveringContext(context);
  }

  @Override
  public void finishProcessing(FileTransaction transaction) throws Exception {
    files.finishProcessing(transaction);
  }

  @Override
  public void onRetired(List<FileTransaction> transactions) {
    Set<String> names = RETIRED.computeIfAbsent(dir, d -> ConcurrentHashMap.newKeySet());
    for (FileTransaction t : transactions) {
      if (!names.add(t.name())) {
        RETIRED_UNCOMMITTED.add(t.name() + " (retired twice)");
      }
      for (FileTransaction.Part part : t.parts()) {
        if (!java.nio.file.Files.exists(files.committedFile(t, part))) {
          RETIRED_UNCOMMITTED.add(t.name());
        }
      }
    }
  }

  @Override
  public void onEarlierIncarnationsRetired(ParticipantContext context) {
    EARLIER_RETIRED.computeIfAbsent(dir, d -> new AtomicInteger()).incrementAndGet();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      OPEN.get(dir).decrementAndGet();
    }
    files.close();
  }
}
