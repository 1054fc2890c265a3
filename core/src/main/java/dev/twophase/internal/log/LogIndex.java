package dev.twophase.internal.log;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The live content of a log: the highest owner epoch seen and, per coordinator, its last state and
 * highest completion mark. It is what a reader rebuilds from the records and what compaction
 * writes. Not thread-safe: the log mutates it under its append lock.
 */
class LogIndex implements RecordVisitor {

  private final Map<String, CoordinatorEntry> entries = new TreeMap<>();
  private long maxEpoch;

  long maxEpoch() {
    return maxEpoch;
  }

  /** The entry of {@code id}, created empty if absent. */
  CoordinatorEntry entry(String id) {
    return entries.computeIfAbsent(id, CoordinatorEntry::new);
  }

  /** All entries in id order, including empty ones. */
  Collection<CoordinatorEntry> entries() {
    return Collections.unmodifiableCollection(entries.values());
  }

  /** The number of coordinators with something in the log. */
  int liveCoordinators() {
    int n = 0;
    for (CoordinatorEntry e : entries.values()) {
      if (!e.isEmpty()) {
        n++;
      }
    }
    return n;
  }

  void raiseEpoch(long epoch) {
    maxEpoch = Math.max(maxEpoch, epoch);
  }

  @Override
  public void owner(long epoch) {
    raiseEpoch(epoch);
  }

  @Override
  public void state(String coordinatorId, long checkpointId, long epoch, byte[] payload,
      java.nio.file.Path file, long offset, int length) {
    raiseEpoch(epoch);
    entry(coordinatorId).setState(checkpointId, epoch, payload);
  }

  @Override
  public void completed(String coordinatorId, long checkpointId, long epoch) {
    raiseEpoch(epoch);
    entry(coordinatorId).complete(checkpointId, epoch);
  }
}
