package dev.twophase.flink;

import java.util.HashSet;
import java.util.Set;

/** Finds an exception of a type in a cause chain (with suppressed exceptions), as Flink wraps them. */
final class Causes {

  private Causes() {}

  static <T extends Throwable> T find(Throwable t, Class<T> type) {
    return find(t, type, new HashSet<>());
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> type, Set<Throwable> seen) {
    if (t == null || !seen.add(t)) {
      return null;
    }
    if (type.isInstance(t)) {
      return type.cast(t);
    }
    T found = find(t.getCause(), type, seen);
    for (Throwable s : t.getSuppressed()) {
      if (found == null) {
        found = find(s, type, seen);
      }
    }
    return found;
  }
}
