// snippet: line-file-conformance-test
package example;

import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.TransactionContext;
import dev.twophase.testkit.ParticipantConformanceSuite;
import dev.twophase.testkit.SimulatedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

class LineFileParticipantConformanceTest
    extends ParticipantConformanceSuite<LineFileParticipant.Handle, Void, String> {

  @TempDir Path directory;

  @Override
  protected Participant<LineFileParticipant.Handle, Void> newParticipant(SimulatedProcess process) {
    // Every file the participant opens belongs to its process: killing the process closes it,
    // as the operating system would, without the participant being told.
    return new LineFileParticipant(directory, FaultInjector.none(), file -> process.track(
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), FileChannel::close));
  }

  @Override
  protected List<String> committedRecords() throws IOException {
    // What a reader of published files sees, in commit order: commit() stamps a file's
    // modification time just before it publishes it; equal times go by epoch, then sequence.
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".txt"))
          .sorted(Comparator.comparing(LineFileParticipantConformanceTest::publishedAt)
              .thenComparingLong(f -> namePart(f, 2))
              .thenComparingLong(f -> namePart(f, 1)))
          .toList()) {
        lines.addAll(Files.readAllLines(p, StandardCharsets.UTF_8));
      }
    }
    return lines;
  }

  private static FileTime publishedAt(Path file) {
    try {
      return Files.getLastModifiedTime(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** From {@code <prefix><epoch>-<sequence>.txt}: part 2 from the end is the epoch, 1 the sequence. */
  private static long namePart(Path file, int fromEnd) {
    String[] parts = file.getFileName().toString().replace(".txt", "").split("-");
    return Long.parseLong(parts[parts.length - fromEnd]);
  }

  @Override
  protected String record(int i) {
    return "line-" + i;
  }

  @Override
  protected boolean lostTransactionSupported() {
    return true;
  }

  @Override
  protected void makeLost(LineFileParticipant.Handle transaction) throws IOException {
    Files.delete(directory.resolve(transaction.name() + ".inprogress")); // a cleaner deleting temp files
  }

  @Override
  protected boolean inProgressCheckSupported() {
    return true;
  }

  @Override
  protected boolean isInProgress(LineFileParticipant.Handle transaction) {
    return Files.exists(directory.resolve(transaction.name() + ".inprogress"));
  }

  @Override
  protected Optional<LineFileParticipant.Handle> handleNeverBegun(TransactionContext<Void> context) {
    return Optional.of(new LineFileParticipant.Handle(context.transactionName()));
  }
}
// end snippet
