// snippet: line-file-participant
package example;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.CommitOutcome;
import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** Writes lines into one file per transaction; commit renames it to its final name. */
public final class LineFileParticipant
    implements Participant<LineFileParticipant.Handle, Void>, Writable<String, LineFileParticipant.Handle> {

  /** The handle: the transaction's name, from which both file names follow. A value. */
  public record Handle(String name) {
    String inProgress() {
      return name + ".inprogress";
    }

    String published() {
      return name + ".txt";
    }
  }

  /** Opens the file a transaction writes: the test's factory tracks what it hands out. */
  @FunctionalInterface
  public interface ChannelFactory {
    FileChannel create(Path file) throws IOException;
  }

  /** Crash point: the lines are written, not yet forced to disk. */
  public static final String PRE_COMMIT_WRITTEN = "lines.preCommit.written";
  /** Crash point: the file has its final name, the directory is not yet forced to disk. */
  public static final String COMMIT_RENAMED = "lines.commit.renamed";

  private static final Codec<Handle> CODEC = Codecs.json(Handle.class);

  private final Path directory;
  private final FaultInjector faults;
  private final ChannelFactory files;
  // The application thread writes and pre-commits while the committer thread commits earlier
  // transactions: a concurrent map, and nothing shared between transactions.
  private final Map<String, FileChannel> open = new ConcurrentHashMap<>();

  public LineFileParticipant(Path directory) {
    this(directory, FaultInjector.none(),
        file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
  }

  public LineFileParticipant(Path directory, FaultInjector faults, ChannelFactory files) {
    this.directory = directory;
    this.faults = faults;
    this.files = files;
  }

  @Override
  public Codec<Handle> transactionCodec() {
    return CODEC;
  }

  @Override
  public Handle beginTransaction(TransactionContext<Void> context) throws IOException {
    Handle handle = new Handle(context.transactionName()); // unique across restarts
    open.put(handle.name(), files.create(directory.resolve(handle.inProgress())));
    return handle;
  }

  @Override
  public RecordWriter<String> writerFor(Handle transaction) {
    FileChannel channel = open.get(transaction.name());
    return line -> {
      ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
    };
  }

  @Override
  public Handle preCommit(Handle transaction) throws IOException {
    FileChannel channel = open.remove(transaction.name());
    if (channel != null) {
      try (channel) {
        faults.reached(PRE_COMMIT_WRITTEN);
        channel.force(true); // the data must survive power loss before the decision
      }
    } else if (!Files.exists(directory.resolve(transaction.inProgress()))) {
      throw new IOException("nothing to pre-commit for " + transaction);
    }
    forceDirectory(); // and so must the file's directory entry
    return transaction;
  }

  @Override
  public CommitOutcome commit(Handle transaction) throws IOException {
    Path inProgress = directory.resolve(transaction.inProgress());
    Path published = directory.resolve(transaction.published());
    if (Files.exists(published)) {
      return CommitOutcome.ALREADY_COMMITTED; // a repeat after a crash
    }
    if (!Files.exists(inProgress)) {
      return CommitOutcome.LOST; // neither name: the data is gone
    }
    // Stamp the commit time, so that readers can take published files in commit order.
    Files.setLastModifiedTime(inProgress, FileTime.from(Instant.now()));
    Files.move(inProgress, published, StandardCopyOption.ATOMIC_MOVE); // one atomic step
    faults.reached(COMMIT_RENAMED);
    forceDirectory(); // the rename must be durable before commit returns
    return CommitOutcome.COMMITTED;
  }

  @Override
  public void abort(Handle transaction) throws IOException {
    discard(transaction.name());
  }

  @Override
  public AbortOutcome recoverAndAbort(Handle transaction) throws IOException {
    if (Files.exists(directory.resolve(transaction.published()))) {
      return AbortOutcome.COMMITTED; // never undo a commit: the coordinator decides what it means
    }
    return discard(transaction.name()) ? AbortOutcome.ABORTED : AbortOutcome.NOT_FOUND;
  }

  private boolean discard(String name) throws IOException {
    FileChannel channel = open.remove(name);
    if (channel != null) {
      channel.close();
    }
    return Files.deleteIfExists(directory.resolve(new Handle(name).inProgress()));
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<Handle, Void> context) throws IOException {
    // In-progress files of this coordinator's participant that the log does not name were begun
    // after the last durable record: the context calls them leftovers. Other coordinators' files,
    // and the handled transactions' (named by Handle::name), are left alone.
    Predicate<String> leftover = context.leftovers(Handle::name);
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, "*.inprogress")) {
      for (Path file : stream) {
        String fileName = file.getFileName().toString();
        String name = fileName.substring(0, fileName.length() - ".inprogress".length());
        if (leftover.test(name)) {
          Files.deleteIfExists(file);
        }
      }
    }
    forceDirectory();
  }

  @Override
  public void close() throws IOException {
    for (FileChannel channel : open.values()) {
      channel.close();
    }
    open.clear();
  }

  private void forceDirectory() throws IOException {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }
}
// end snippet
