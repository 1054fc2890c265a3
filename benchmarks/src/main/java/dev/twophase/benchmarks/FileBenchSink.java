package dev.twophase.benchmarks;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A sink of {@link FileParticipantBenchmark}, what both sides implement: the benchmark loop is the
 * same for all variants.
 */
interface FileBenchSink {
  void write(String record) throws IOException;

  /** Makes everything written so far durable and visible under its final name. */
  void checkpoint() throws IOException;

  long checkpoints();

  /** The directory the final files appear in. */
  Path outputDirectory();

  /** Whether {@code name} is a committed (final) file; in-progress ones must not be deleted. */
  boolean isCommitted(String name);

  /** Where the checkpoints' time went, for the per-iteration report. */
  CheckpointPhases phases();

  /** Finishes work still running in the background (a pipelined commit); the default has none. */
  default void drain() throws IOException {}

  void close() throws IOException;
}
