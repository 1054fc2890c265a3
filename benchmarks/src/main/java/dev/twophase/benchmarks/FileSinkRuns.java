package dev.twophase.benchmarks;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.flink.TwoPhaseSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/** FileSink against the file participant. */
final class FileSinkRuns implements FlinkSinkRuns {
  static final String[] NAMES = {"FileSink", "TwoPhaseSink(file)"};
  private final Path base;

  FileSinkRuns(Path base) {
    this.base = base;
  }

  @Override
  public String[] names() {
    return NAMES.clone();
  }

  private Path out(boolean ours) {
    return base.resolve(ours ? "twophase" : "filesink");
  }

  @Override
  public Sink<String> sink(boolean ours, int run) throws IOException {
    Path out = out(ours);
    BenchDirs.deleteRecursively(out);
    Files.createDirectories(out);
    String dir = out.toString();
    if (ours) {
      return TwoPhaseSink.<String>builder("bench")
          .participant("files", () -> FileParticipant.builder(Path.of(dir), RecordEncoders.lines()).build())
          .build();
    }
    return FileSink.forRowFormat(new org.apache.flink.core.fs.Path(dir), new SimpleStringEncoder<String>("UTF-8"))
        .withBucketAssigner(new BasePathBucketAssigner<>())
        .withRollingPolicy(OnCheckpointRollingPolicy.build())
        .build();
  }

  @Override
  public long committed(boolean ours, int run) throws IOException {
    return countCommittedLines(out(ours), ours);
  }

  @Override
  public String where(boolean ours, int run) throws IOException {
    return parts(out(ours)) + " parts";
  }

  /** Lines in committed files: twophase's {@code part-*}, FileSink's files not hidden. */
  private static long countCommittedLines(Path dir, boolean twophase) throws IOException {
    long lines = 0;
    for (Path f : files(dir)) {
      String name = f.getFileName().toString();
      if (twophase ? name.startsWith("part-") : !name.startsWith(".")) {
        try (Stream<String> s = Files.lines(f, StandardCharsets.UTF_8)) {
          lines += s.count();
        }
      }
    }
    return lines;
  }

  private static long parts(Path dir) throws IOException {
    return files(dir).stream().filter(f -> !f.getFileName().toString().startsWith(".")).count();
  }

  private static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }
}
