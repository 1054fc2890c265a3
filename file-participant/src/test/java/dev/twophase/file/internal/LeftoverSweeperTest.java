package dev.twophase.file.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FaultInjector;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweeper walks a base directory that other tasks and processes share and change while it
 * walks (claim files written through temporary ones, parts renamed on commit, buckets created):
 * an entry that vanishes mid-walk is passed over, never a failure of the sweeper's own work.
 */
class LeftoverSweeperTest {

  @TempDir
  Path base;

  private final FileNames names = new FileNames(".jsonl");

  private LeftoverSweeper sweeper() {
    return new LeftoverSweeper(names, new BucketDirectories(base, false), (dir, point) -> { }, FaultInjector.none());
  }

  @Test
  void deletesItsInProgressPartsWhileOtherWritersAddAndRemoveFiles() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    Thread other = new Thread(() -> {
      for (long i = 0; !stop.get(); i++) {
        try {
          Path bucket = Files.createDirectories(base.resolve("bucket-" + (i % 4)));
          Path tmp = Files.writeString(bucket.resolve(".twophase-claim-" + i + ".tmp"), "claim");
          Files.writeString(bucket.resolve(names.inProgressName("other_" + i, 0)), "x");
          Files.delete(tmp);
          Files.deleteIfExists(bucket.resolve(names.inProgressName("other_" + i, 0)));
        } catch (NoSuchFileException ignored) { // a bucket may be gone for a moment; next round
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    });
    other.start();
    try {
      for (int round = 0; round < 300; round++) {
        Path bucket = Files.createDirectories(base.resolve("mine"));
        Path part = Files.writeString(bucket.resolve(names.inProgressName("mine_" + round, 0)), "x");
        assertEquals(1, sweeper().deleteInProgress(("mine_" + round)::equals, "test"), "round " + round);
        assertFalse(Files.exists(part));
        assertFalse(sweeper().hasCommittedPart("mine_" + round));
      }
    } finally {
      stop.set(true);
      other.join();
    }
    assertTrue(Files.isDirectory(base.resolve("mine")));
  }
}
