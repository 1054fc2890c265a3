package dev.twophase.testkit.statelog;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.StoredState;
import dev.twophase.TwoPhaseException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32;

/**
 * A small {@link StateLog} shared by processes, for the suite's {@link Ownership#PER_COORDINATOR}
 * checks: a directory that any number of processes open at once, each coordinator claimed on its
 * own. Per coordinator, a file {@code <id>.owner} holds the owner epoch, the holder and whether it
 * released the coordinator, {@code <id>.state} the last state (checkpoint id, CRC32, payload) and
 * {@code <id>.mark} the highest completion mark; each is replaced by an atomic rename. Every
 * operation runs under one lock, a JVM-wide lock plus an OS lock on {@code claims.lock}, so that a
 * claim and its read, and an append and its epoch check, are atomic across processes. Slow and
 * simple on purpose: a reference to check the suite against, not a log to use.
 */
final class SharedDirectoryStateLog implements StateLog {

  /** Opens the log in the settings' {@code directory}. */
  public static final class Factory implements StateLogFactory {
    @Override
    public StateLog open(Map<String, String> settings, boolean takeOver) {
      return new SharedDirectoryStateLog(Path.of(settings.get("directory")), takeOver);
    }
  }

  private static final Map<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();
  private static final AtomicInteger OPENED = new AtomicInteger();

  private final Path dir;
  private final boolean takeOver;
  private final String holder;
  private final String logId;
  private final Map<String, View> open = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private SharedDirectoryStateLog(Path dir, boolean takeOver) {
    this.dir = dir;
    this.takeOver = takeOver;
    this.holder = "pid " + ProcessHandle.current().pid() + ", log " + OPENED.incrementAndGet();
    this.logId = locked(() -> {
      Path file = dir.resolve("logid");
      if (!Files.exists(file)) {
        String id = Long.toString(ThreadLocalRandom.current().nextLong(
            36L * 36 * 36 * 36 * 36 * 36 * 36, 36L * 36 * 36 * 36 * 36 * 36 * 36 * 36), 36);
        replace(file, id.getBytes(StandardCharsets.UTF_8));
      }
      return Files.readString(file, StandardCharsets.UTF_8);
    });
  }

  @Override
  public String logId() {
    return logId;
  }

  @Override
  public boolean isShared() {
    return true;
  }

  @Override
  public CoordinatorLog open(String coordinatorId) {
    if (closed) {
      throw new FencedException("shared state log " + dir + " is closed");
    }
    if (open.containsKey(coordinatorId)) {
      throw new CoordinatorHeldException(coordinatorId, holder, 0,
          "coordinator '" + coordinatorId + "' is already open on this log");
    }
    View view = locked(() -> {
      Owner owner = Owner.read(file(coordinatorId, "owner"));
      if (owner != null && !owner.released() && !takeOver) {
        throw new CoordinatorHeldException(coordinatorId, owner.holder(), owner.epoch(),
            "coordinator '" + coordinatorId + "' is held by " + owner.holder() + " at epoch "
                + owner.epoch() + "; take it over to fence it");
      }
      long epoch = (owner == null ? 0 : owner.epoch()) + 1;
      new Owner(epoch, holder, false).write(file(coordinatorId, "owner"));
      return new View(coordinatorId, epoch, readState(coordinatorId), readMark(coordinatorId));
    });
    if (open.putIfAbsent(coordinatorId, view) != null) {
      throw new CoordinatorHeldException(coordinatorId, holder, view.epoch,
          "coordinator '" + coordinatorId + "' is already open on this log");
    }
    return view;
  }

  @Override
  public void close() {
    closed = true;
    for (View view : open.values()) {
      view.close();
    }
  }

  private Path file(String coordinatorId, String kind) {
    return dir.resolve(HexFormat.of().formatHex(coordinatorId.getBytes(StandardCharsets.UTF_8))
        + "." + kind);
  }

  private StoredState readState(String coordinatorId) throws IOException {
    Path file = file(coordinatorId, "state");
    if (!Files.exists(file)) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
    long checkpointId = b.getLong();
    long crc = b.getLong();
    byte[] payload = new byte[b.remaining()];
    b.get(payload);
    if (crc(payload) != crc) {
      throw new StateLogCorruptedException("the state of coordinator '" + coordinatorId
          + "' fails its checksum", file, 0);
    }
    return new StoredState(checkpointId, payload);
  }

  private long readMark(String coordinatorId) throws IOException {
    Path file = file(coordinatorId, "mark");
    return Files.exists(file) ? ByteBuffer.wrap(Files.readAllBytes(file)).getLong() : 0;
  }

  private static long crc(byte[] payload) {
    CRC32 crc = new CRC32();
    crc.update(payload);
    return crc.getValue();
  }

  /** Writes {@code bytes} to a temporary file, syncs it, and renames it over {@code file}. */
  private static void replace(Path file, byte[] bytes) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        channel.write(b);
      }
      channel.force(false);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private interface Step<T> {
    T run() throws IOException;
  }

  /** Runs {@code step} under the JVM-wide and the OS lock of the directory. */
  private <T> T locked(Step<T> step) {
    ReentrantLock jvmLock = JVM_LOCKS.computeIfAbsent(dir, d -> new ReentrantLock());
    jvmLock.lock();
    try (FileChannel channel = FileChannel.open(dir.resolve("claims.lock"),
        StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FileLock lock = channel.lock();
      try {
        return step.run();
      } finally {
        lock.release();
      }
    } catch (IOException e) {
      throw new TwoPhaseException("shared state log " + dir + ": " + e, e);
    } finally {
      jvmLock.unlock();
    }
  }

  /** What {@code <id>.owner} holds. */
  private record Owner(long epoch, String holder, boolean released) {
    static Owner read(Path file) throws IOException {
      if (!Files.exists(file)) {
        return null;
      }
      String[] parts = Files.readString(file, StandardCharsets.UTF_8).split("\n");
      return new Owner(Long.parseLong(parts[0]), parts[1], Boolean.parseBoolean(parts[2]));
    }

    void write(Path file) throws IOException {
      replace(file, (epoch + "\n" + holder + "\n" + released).getBytes(StandardCharsets.UTF_8));
    }
  }

  private final class View implements CoordinatorLog {
    private final String id;
    private final long epoch;
    private final StoredState last;
    private final long completed;
    private long lastAppended;
    private boolean viewClosed;

    View(String id, long epoch, StoredState last, long completed) {
      this.id = id;
      this.epoch = epoch;
      this.last = last;
      this.completed = completed;
      this.lastAppended = last == null ? 0 : last.checkpointId();
    }

    @Override
    public String coordinatorId() {
      return id;
    }

    @Override
    public long ownerEpoch() {
      return epoch;
    }

    @Override
    public String logId() {
      return logId;
    }

    @Override
    public StoredState lastState() {
      return last;
    }

    @Override
    public long lastCompletedCheckpointId() {
      return completed;
    }

    @Override
    public void appendState(long checkpointId, byte[] payload) {
      byte[] copy = payload.clone();
      synchronized (this) {
        if (checkpointId < lastAppended) {
          throw new IllegalArgumentException("checkpoint " + checkpointId
              + " is lower than the last appended, " + lastAppended);
        }
        asOwner(() -> {
          ByteBuffer b = ByteBuffer.allocate(16 + copy.length);
          b.putLong(checkpointId).putLong(crc(copy)).put(copy);
          replace(file(id, "state"), b.array());
          return null;
        });
        lastAppended = checkpointId;
      }
    }

    @Override
    public void appendCompletion(long checkpointId) {
      asOwner(() -> {
        if (checkpointId > readMark(id)) {
          replace(file(id, "mark"), ByteBuffer.allocate(8).putLong(checkpointId).array());
        }
        return null;
      });
    }

    /** Runs {@code step} under the lock if this view still owns the coordinator. */
    private void asOwner(Step<Void> step) {
      synchronized (this) {
        if (viewClosed || closed) {
          throw new FencedException("coordinator '" + id + "' was closed on this log");
        }
      }
      locked(() -> {
        Owner owner = Owner.read(file(id, "owner"));
        if (owner == null || owner.epoch() != epoch || owner.released()) {
          throw new FencedException("coordinator '" + id + "' at epoch " + epoch
              + " was superseded" + (owner == null ? "" : " by epoch " + owner.epoch()));
        }
        return step.run();
      });
    }

    @Override
    public void close() {
      synchronized (this) {
        if (viewClosed) {
          return;
        }
        viewClosed = true;
      }
      open.remove(id, this);
      try {
        locked(() -> {
          Owner owner = Owner.read(file(id, "owner"));
          if (owner != null && owner.epoch() == epoch) { // a fenced view releases nothing
            new Owner(epoch, holder, true).write(file(id, "owner"));
          }
          return null;
        });
      } catch (UncheckedIOException | TwoPhaseException e) {
        // the claim stays until taken over
      }
    }
  }
}
