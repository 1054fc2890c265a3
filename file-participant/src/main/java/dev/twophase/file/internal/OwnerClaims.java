package dev.twophase.file.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.FencedException;
import dev.twophase.ParticipantContext;
import dev.twophase.annotation.Internal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who owns a coordinator's transactions in an output directory: a file
 * {@code .twophase-<transaction name prefix>claim} in the base directory, locked (an operating
 * system lock, released when the process dies) for as long as a participant works on them, and
 * holding who that is.
 *
 * <p>It exists for one mistake that nothing else can see: a copy of a state log (a restored
 * backup) started beside the original. Both have the same log id, so their transaction names share
 * a prefix, and each one's start-up would take the other's part files for its own leftovers and
 * delete them. The second to claim is refused with a {@link FencedException} naming both.
 *
 * <p>Within one JVM, the OS lock is taken once per file and its ownership moves to a newer owner
 * epoch: an engine's next attempt (Flink's, an {@code EmbeddedCoordinator}'s) may start before the
 * attempt it replaces has closed its participants, and is the rightful owner. An owner of the same
 * or a newer epoch in the same JVM refuses the claim, as another process does.
 *
 * <p>On a shared state log ({@link ParticipantContext#sharedLog()}) the log's claim decides who
 * owns the coordinator, and its epochs order every owner in every process, so no OS lock is taken:
 * a new owner must start while the old owner's process still lives (stopped, or cut off) and holds
 * whatever it holds. The file then only records the newest owner (replaced atomically by each
 * newer one), and a claim of an epoch below the recorded one is refused: that owner was superseded
 * before its start-up touched anything. What keeps the owners apart is the epoch in the names: a
 * participant touches only names of its own epoch or an earlier one
 * ({@link ParticipantContext#isOwnTransactionName}). Thread-safe.
 */
@Internal
public final class OwnerClaims {

  /** The claims this JVM holds, by file. Guarded by itself. */
  @GuardedBy("HELD")
  private static final Map<Path, Held> HELD = new HashMap<>();

  /** The epoch in a claim file's text, as {@link #describe} writes it. */
  private static final Pattern RECORDED_EPOCH = Pattern.compile("owner epoch ([0-9]{1,18})\\b");

  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

  private final Path base;
  private final boolean ownerOnly;
  private final Clock clock;

  public OwnerClaims(Path base, boolean ownerOnly, Clock clock) {
    this.base = base;
    this.ownerOnly = ownerOnly;
    this.clock = clock;
  }

  /** One participant's claim on a prefix; {@link #close()} gives it up. */
  public static final class Claim implements AutoCloseable {
    private final Path file;
    private final long epoch;
    private boolean closed;

    private Claim(Path file, long epoch) {
      this.file = file;
      this.epoch = epoch;
    }

    @Override
    public void close() throws IOException {
      synchronized (HELD) {
        if (closed) {
          return;
        }
        closed = true;
        Held held = HELD.get(file);
        if (held != null && held.epoch == epoch) {
          HELD.remove(file);
          held.release();
        }
      }
    }
  }

  /**
   * Claims the transactions of {@code context}'s prefix for its owner epoch: on a shared log by
   * recording it ({@link #recordNewest}), otherwise with the OS lock.
   *
   * @throws FencedException if another process, or an owner of the same or a newer epoch in this
   *     JVM, holds them, or (shared log) a newer owner is recorded; the message names both
   */
  public Claim claim(ParticipantContext context) throws IOException {
    String prefix = context.transactionNamePrefix();
    long epoch = context.ownerEpoch();
    Path file = base.resolve(".twophase-" + prefix + "claim");
    String me = describe(epoch, context.coordinatorId(), context.participantName());
    if (context.sharedLog()) {
      recordNewest(file, prefix, epoch, me);
      return new Claim(file, epoch);
    }
    synchronized (HELD) {
      Held held = HELD.get(file);
      if (held != null) {
        if (held.epoch >= epoch) {
          throw refused(file, prefix, held.description, me);
        }
        held.epoch = epoch; // the newer attempt of this JVM takes over
        held.write(me);
        held.description = me;
        return new Claim(file, epoch);
      }
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // another channel of this JVM, outside this registry: treat it as another owner
      } catch (IOException | RuntimeException | Error e) {
        channel.close();
        throw e;
      }
      if (lock == null) {
        String holder = read(channel);
        channel.close();
        throw refused(file, prefix, holder, me);
      }
      Held mine = new Held(channel, lock, epoch, me);
      try {
        if (ownerOnly && Files.getFileStore(file).supportsFileAttributeView("posix")) {
          Files.setPosixFilePermissions(file, OWNER_ONLY);
        }
        mine.write(me);
      } catch (IOException | RuntimeException | Error e) {
        mine.release();
        throw e;
      }
      HELD.put(file, mine);
      return new Claim(file, epoch);
    }
  }

  /**
   * Records {@code me} as the newest owner of {@code prefix}'s transactions on a shared log, unless
   * a newer epoch is recorded. The record is replaced atomically (a file written beside it, then
   * moved over it); two owners racing may leave the older of them recorded, which costs nothing:
   * the record only refuses an owner whose start-up comes after a newer owner's, and the epochs in
   * the names keep them apart in any case.
   */
  private void recordNewest(Path file, String prefix, long epoch, String me) throws IOException {
    String recorded = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8).trim() : "";
    long newest = epochOf(recorded);
    if (newest > epoch) {
      throw new FencedException("the transactions " + prefix + "* in " + file.getParent() + " were claimed by a "
          + "newer owner of the coordinator on its shared state log (" + recorded + ", " + file.getFileName()
          + "), so this participant (" + me + ") is superseded and must not touch them: stop this process; the "
          + "newer owner recovers the coordinator");
    }
    Path temp = Files.createTempFile(base, ".twophase-claim-", ".tmp");
    try {
      Files.writeString(temp, me + "\n", StandardCharsets.UTF_8);
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** The owner epoch a claim file's text names, or -1 if it names none. */
  static long epochOf(String recorded) {
    Matcher m = RECORDED_EPOCH.matcher(recorded);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private String describe(long epoch, String coordinatorId, String participant) {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      host = System.getenv("COMPUTERNAME");
    }
    return "pid " + ProcessHandle.current().pid() + (host == null || host.isBlank() ? "" : " on " + host)
        + ", coordinator '" + coordinatorId + "' participant '" + participant + "', owner epoch " + epoch
        + ", since " + Instant.ofEpochMilli(clock.millis());
  }

  private static FencedException refused(Path file, String prefix, String holder, String me) {
    return new FencedException("the transactions " + prefix + "* in " + file.getParent() + " are claimed by "
        + (holder.isBlank() ? "another process" : holder) + " (" + file.getFileName() + "), so this participant ("
        + me + ") cannot work on them: two coordinators with one id on copies of one state log (a restored backup "
        + "started beside the original, say) share these transaction names, and each would take the other's part "
        + "files for its own leftovers and delete them. Stop one of them; give a copy that must run on its own "
        + "its own output directory or coordinator id");
  }

  private static String read(FileChannel channel) {
    try {
      ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(4096, channel.size()));
      channel.read(buffer, 0);
      return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      return "";
    }
  }

  /** The OS lock this JVM holds on one claim file. */
  private static final class Held {
    private final FileChannel channel;
    private final FileLock lock;
    private long epoch;
    private String description;

    Held(FileChannel channel, FileLock lock, long epoch, String description) {
      this.channel = channel;
      this.lock = lock;
      this.epoch = epoch;
      this.description = description;
    }

    void write(String who) throws IOException {
      byte[] bytes = (who + "\n").getBytes(StandardCharsets.UTF_8);
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(bytes), 0);
    }

    void release() throws IOException {
      try {
        lock.release();
      } finally {
        channel.close();
      }
    }
  }
}
