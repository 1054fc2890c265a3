package dev.twophase.benchmarks;

import com.google.errorprone.annotations.FormatMethod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The benchmarks' diagnostics (appends per sync, per-phase timings, interleaved ratios), kept out
 * of JMH's console output: appended to {@code -Dbench.report=...}, else to
 * {@code bench-report.txt} in {@link BenchDirs#base()}, one time-stamped line per entry.
 */
final class BenchReport {

  static final String PROPERTY = "bench.report";

  private BenchReport() {}

  static Path file() {
    String configured = System.getProperty(PROPERTY);
    return configured != null && !configured.isBlank()
        ? Path.of(configured).toAbsolutePath()
        : BenchDirs.base().resolve("bench-report.txt");
  }

  /** Appends one formatted line. */
  @FormatMethod
  static synchronized void line(String format, Object... args) {
    String text = Instant.now() + " " + String.format(format, args).strip() + System.lineSeparator();
    try {
      Files.writeString(file(), text, StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the benchmark report " + file(), e);
    }
  }
}
