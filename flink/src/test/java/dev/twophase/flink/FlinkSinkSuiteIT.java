package dev.twophase.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.external.ExternalSystemDataReader;
import org.apache.flink.connector.testframe.external.sink.DataStreamSinkV2ExternalContext;
import org.apache.flink.connector.testframe.external.sink.TestingSinkSettings;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SinkTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * Flink's own sink test suite ({@code SinkTestSuiteBase}: a basic job, restarts from a savepoint at
 * the same, a higher and a lower parallelism, the numRecordsSend metric) run against
 * {@code TwoPhaseSink} over the file participant, exactly once. Its reader sees only committed
 * files.
 */
class FlinkSinkSuiteIT extends SinkTestSuiteBase<String> {

  @TestEnv
  MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

  @TestContext
  ExternalContextFactory<DataStreamSinkV2ExternalContext<String>> files = FilesContext::new;

  @TestSemantics
  CheckpointingMode[] semantics = new CheckpointingMode[] {CheckpointingMode.EXACTLY_ONCE};

  /** A fresh output directory per test case, written by the sink and read back by file. */
  static final class FilesContext implements DataStreamSinkV2ExternalContext<String> {
    private final Path dir;

    FilesContext(String testName) {
      try {
        dir = Files.createTempDirectory("twophase-flink-suite");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public Sink<String> createSink(TestingSinkSettings settings) {
      return TwoPhaseSink.<String>builder("suite")
          .participant("files", Participants.files(dir.toString()))
          .build();
    }

    @Override
    public ExternalSystemDataReader<String> createSinkDataReader(TestingSinkSettings settings) {
      return new CommittedLinesReader(dir);
    }

    @Override
    public List<String> generateTestData(TestingSinkSettings settings, long seed) {
      Random random = new Random(seed);
      List<String> records = new ArrayList<>();
      int n = 200 + random.nextInt(300);
      for (int i = 0; i < n; i++) {
        records.add(i + "-" + Long.toHexString(random.nextLong()));
      }
      return records;
    }

    @Override
    public TypeInformation<String> getProducedType() {
      return Types.STRING;
    }

    @Override
    public List<URL> getConnectorJarPaths() {
      return List.of();
    }

    @Override
    public void close() throws IOException {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** Returns the lines of committed files it has not returned yet (committed files never change). */
  static final class CommittedLinesReader implements ExternalSystemDataReader<String> {
    private final Path dir;
    private final Set<Path> read = new HashSet<>();

    CommittedLinesReader(Path dir) {
      this.dir = dir;
    }

    /**
     * The regular files below the directory, sorted. The job renames in-progress parts while the
     * walk runs, and a walk that meets an entry gone since it listed its directory fails; then the
     * listing is taken again (committed files are never renamed, so they are found the next time).
     */
    private List<Path> files() {
      for (int attempt = 1; ; attempt++) {
        try (Stream<Path> s = Files.walk(dir)) {
          return s.filter(Files::isRegularFile).sorted().toList();
        } catch (UncheckedIOException | IOException e) {
          Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
          if (!(cause instanceof java.nio.file.NoSuchFileException) || attempt >= 100) {
            throw e instanceof UncheckedIOException u ? u : new UncheckedIOException((IOException) e);
          }
        }
      }
    }

    @Override
    public List<String> poll(Duration timeout) {
      List<String> lines = new ArrayList<>();
      for (Path f : files()) {
        if (f.getFileName().toString().startsWith("part-") && read.add(f)) {
          try {
            lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
      if (lines.isEmpty()) {
        try {
          Thread.sleep(Math.min(timeout.toMillis(), 100));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return lines;
    }

    @Override
    public void close() {}
  }
}
