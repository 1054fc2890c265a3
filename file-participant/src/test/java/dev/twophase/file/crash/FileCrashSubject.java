package dev.twophase.file.crash;

import dev.twophase.Participant;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.testkit.crash.CrashEnvironment;
import dev.twophase.testkit.crash.CrashSubject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The file participant as the testkit's crash harness runs it in each child JVM: lines in three
 * buckets, rolling every two records, so that a transaction has several parts in several
 * directories and a crash at {@code file.commit.afterRename} falls between two renames.
 */
public class FileCrashSubject implements CrashSubject<String> {

  static Path out(CrashEnvironment environment) {
    return environment.workDirectory().resolve("out");
  }

  @Override
  public Participant<?, ?> participant(CrashEnvironment environment) {
    return FileParticipant.builder(out(environment), RecordEncoders.lines())
        .bucketAssigner(r -> "b" + (Long.parseLong(r.toString().substring("line-".length())) % 3))
        .maxPartRecords(2)
        .suffix(".txt")
        .faultInjector(environment.faults())
        .build();
  }

  @Override
  public String record(long n) {
    return "line-" + n;
  }

  @Override
  public List<String> committedRecords(CrashEnvironment environment) throws IOException {
    List<String> lines = new ArrayList<>();
    for (Path file : files(environment, n -> n.startsWith("part-") && n.endsWith(".txt"))) {
      lines.addAll(Files.readAllLines(file, StandardCharsets.UTF_8));
    }
    return lines;
  }

  @Override
  public List<String> openTransactions(CrashEnvironment environment) throws IOException {
    return files(environment, n -> n.startsWith(".part-") && n.endsWith(".inprogress")).stream()
        .map(p -> p.getFileName().toString())
        .toList();
  }

  private static List<Path> files(CrashEnvironment environment, java.util.function.Predicate<String> name)
      throws IOException {
    Path out = out(environment);
    if (!Files.isDirectory(out)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(out)) {
      return walk.filter(Files::isRegularFile).filter(p -> name.test(p.getFileName().toString())).toList();
    }
  }
}
