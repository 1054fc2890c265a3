package dev.twophase.file.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Coordinator;
import dev.twophase.FencedException;
import dev.twophase.FileStateLog;
import dev.twophase.crash.ChildJvm;
import dev.twophase.crash.LogCopies;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.FileTransaction;
import dev.twophase.file.RecordEncoders;
import dev.twophase.testing.TestContexts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy of a state log started beside the original shares its transaction names: the file
 * participant's claim on them refuses the second owner, in another process or of the same epoch
 * in this one, before it deletes anything; an engine's next attempt in the same JVM takes over.
 */
class OwnerClaimsIT {

  @TempDir
  Path tmp;

  private FileParticipant<CharSequence> files(Path dir) {
    return FileParticipant.builder(dir, RecordEncoders.lines()).build();
  }

  private static void recover(FileParticipant<CharSequence> p, long epoch) throws IOException {
    p.finishRecoveringContext(TestContexts.<FileTransaction, Void>recovery("orders", "files", epoch, List.of(), 0));
  }

  @Test
  void anotherProcessHoldingTheClaimIsRefusedUntilItDies() throws Exception {
    Path out = tmp.resolve("out");
    Process child = new ProcessBuilder(ChildJvm.command(ClaimHolderChild.class, Map.of(),
        List.of(out.toString(), "7"))).redirectErrorStream(true).start();
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = lines.readLine()) != null && !line.equals("claimed")) {
        // the child's log lines
      }
      assertEquals("claimed", line, "the child claimed");
      Files.writeString(out.resolve(".part-orders-files-testlog0-7-1-0.inprogress"), "the child's records\n");

      FileParticipant<CharSequence> second = files(out);
      FencedException e = assertThrows(FencedException.class, () -> recover(second, 8));
      assertTrue(e.getMessage().contains("pid " + child.pid()), "names the holder: " + e.getMessage());
      assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()), "names itself: " + e.getMessage());
      assertTrue(e.getMessage().contains("owner epoch 7") && e.getMessage().contains("owner epoch 8"), e.getMessage());
      assertTrue(Files.exists(out.resolve(".part-orders-files-testlog0-7-1-0.inprogress")),
          "nothing of the holder's was deleted");
      second.close();

      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
      FileParticipant<CharSequence> after = files(out);
      recover(after, 8); // the claim died with its process
      assertTrue(Files.notExists(out.resolve(".part-orders-files-testlog0-7-1-0.inprogress")),
          "now the leftovers are this owner's to delete");
      after.close();
    } finally {
      child.destroyForcibly();
    }
  }

  private static void recoverShared(FileParticipant<CharSequence> p, long epoch) throws IOException {
    p.finishRecoveringContext(TestContexts.<FileTransaction, Void>recovery("orders", "files", TestContexts.LOG_ID,
        epoch, true, List.of(), null, 0));
  }

  /**
   * On a shared log the log's claim decides: a new owner starts while the superseded owner's
   * process lives, deletes the superseded owner's leftovers and never a newer owner's, and an
   * owner whose start-up comes after a newer owner's is refused before it touches anything.
   */
  @Test
  void onASharedLogANewerOwnerStartsWhileTheOldOwnersProcessLives() throws Exception {
    Path out = tmp.resolve("out");
    Process child = new ProcessBuilder(ChildJvm.command(ClaimHolderChild.class, Map.of(),
        List.of(out.toString(), "7", "shared"))).redirectErrorStream(true).start();
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = lines.readLine()) != null && !line.equals("claimed")) {
        // the child's log lines
      }
      assertEquals("claimed", line, "the child claimed");
      Path supersededPart = out.resolve(".part-orders-files-testlog0-7-1-0.inprogress");
      Path newerPart = out.resolve(".part-orders-files-testlog0-9-1-0.inprogress");
      Files.writeString(supersededPart, "the superseded owner's records\n");
      Files.writeString(newerPart, "a newer owner's records\n");

      FileParticipant<CharSequence> next = files(out);
      recoverShared(next, 8); // while the child (epoch 7) lives
      assertTrue(Files.notExists(supersededPart), "the superseded owner's leftover is the new owner's to delete");
      assertTrue(Files.exists(newerPart), "a newer owner's transaction is never touched");
      assertTrue(Files.readString(out.resolve(".twophase-orders-files-testlog0-claim")).contains("owner epoch 8"),
          "the claim file names the newest owner");

      FileParticipant<CharSequence> late = files(out);
      FencedException e = assertThrows(FencedException.class, () -> recoverShared(late, 7));
      assertTrue(e.getMessage().contains("owner epoch 8") && e.getMessage().contains("owner epoch 7")
          && e.getMessage().contains("superseded"), e.getMessage());
      assertTrue(Files.exists(newerPart), "nothing was deleted by the refused owner");
      late.close();
      next.close();
    } finally {
      child.destroyForcibly();
      child.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void inOneJvmANewerEpochTakesOverAndTheSameEpochIsRefused() throws Exception {
    Path out = tmp.resolve("out");
    FileParticipant<CharSequence> attempt1 = files(out);
    recover(attempt1, 3);
    FileParticipant<CharSequence> attempt2 = files(out);
    recover(attempt2, 4); // an engine's next attempt, started before the first closed
    attempt1.close();     // the zombie's close does not give up the new owner's claim
    FileParticipant<CharSequence> copy = files(out);
    FencedException e = assertThrows(FencedException.class, () -> recover(copy, 4));
    assertTrue(e.getMessage().contains("owner epoch 4"), e.getMessage());
    copy.close();
    attempt2.close();
    FileParticipant<CharSequence> next = files(out);
    recover(next, 4);
    next.close();
  }

  @Test
  void twoCoordinatorsOnCopiesOfOneLogCannotBothStart() throws Exception {
    Path out = tmp.resolve("out");
    Path original = tmp.resolve("log");
    try (FileStateLog log = FileStateLog.open(original);
        Coordinator c = Coordinator.builder("orders", log).participant("files", files(out)).build()) {
      c.checkpoint();
    }
    Path copy = tmp.resolve("log-copy");
    LogCopies.copy(original, copy);

    FileParticipant<CharSequence> first = files(out);
    try (FileStateLog log = FileStateLog.open(original);
        Coordinator running = Coordinator.builder("orders", log).participant("files", first).build()) {
      running.output(first).write("kept");
      try (FileStateLog copied = FileStateLog.open(copy)) {
        FileParticipant<CharSequence> second = files(out);
        FencedException e = assertThrows(FencedException.class,
            () -> Coordinator.builder("orders", copied).participant("files", second).build());
        assertTrue(e.getMessage().contains("copies of one state log"), e.getMessage());
      }
      running.checkpoint().awaitCommitted(Duration.ofSeconds(10));
    }
    try (Stream<Path> s = Files.list(out)) {
      List<String> committed = s.filter(p -> !p.getFileName().toString().startsWith("."))
          .flatMap(p -> {
            try {
              return Files.readAllLines(p).stream();
            } catch (IOException ex) {
              throw new java.io.UncheckedIOException(ex);
            }
          }).toList();
      assertEquals(List.of("kept"), committed, "the original's records survived the copy's start");
    }
  }
}
