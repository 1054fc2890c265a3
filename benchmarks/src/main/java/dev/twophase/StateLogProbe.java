package dev.twophase;

/**
 * Benchmark-only access to {@link FileStateLog}'s package-private counters, to tell how many
 * appends each sync covered (group commit). Lives in package {@code dev.twophase} of the benchmarks
 * module for that reason alone; not part of any API.
 */
public final class StateLogProbe {

  private StateLogProbe() {}

  /** Syncs of the log's segments since it was opened. */
  public static long forceCount(FileStateLog log) {
    return log.forceCount();
  }

  /** Records written since the log was opened (states, completion marks, the owner record). */
  public static long writtenSequence(FileStateLog log) {
    return log.writtenSequence();
  }
}
