// snippet: line-file-crash-subject
package example;

import dev.twophase.Participant;
import dev.twophase.testkit.crash.CrashEnvironment;
import dev.twophase.testkit.crash.CrashSubject;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The participant as the crash harness runs it in each child JVM. */
public class LineFileCrashSubject implements CrashSubject<String> {

  @Override
  public Participant<?, ?> participant(CrashEnvironment environment) {
    return new LineFileParticipant(environment.workDirectory(), environment.faults(),
        file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
  }

  @Override
  public String record(long n) {
    return "line-" + n;
  }

  @Override
  public List<String> committedRecords(CrashEnvironment environment) throws IOException {
    return readLines(environment.workDirectory(), ".txt");
  }

  @Override
  public List<String> openTransactions(CrashEnvironment environment) throws IOException {
    try (Stream<Path> files = Files.list(environment.workDirectory())) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".inprogress")).toList();
    }
  }

  private static List<String> readLines(Path directory, String suffix) throws IOException {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(f -> f.toString().endsWith(suffix)).toList()) {
        lines.addAll(Files.readAllLines(file, StandardCharsets.UTF_8));
      }
    }
    return lines;
  }
}
// end snippet
