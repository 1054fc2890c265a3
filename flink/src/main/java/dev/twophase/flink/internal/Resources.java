package dev.twophase.flink.internal;

import dev.twophase.Participant;
import dev.twophase.internal.engine.Member;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closing what the sink opened on every path, with {@link Error}s treated like exceptions: every
 * participant is closed even if an earlier one threw, and the first failure is kept with the later
 * ones suppressed.
 */
final class Resources {

  private static final Logger LOG = LoggerFactory.getLogger(Resources.class);

  private Resources() {}

  /** {@code first}, with {@code next} suppressed into it, or {@code next} if there was none. */
  static Throwable add(Throwable first, Throwable next) {
    if (first == null) {
      return next;
    }
    if (next != null && next != first) {
      first.addSuppressed(next);
    }
    return first;
  }

  /** Aborts each member's open transaction, if any, then closes its participant. */
  static Throwable closeAll(Iterable<Member<Object, Object>> members, Throwable first) {
    for (Member<Object, Object> member : members) {
      if (member.current() != null) {
        first = add(first, member.abortQuietly(member.current(), member.currentCheckpointId()));
        member.clearCurrent();
      }
      first = add(first, member.closeQuietly());
    }
    return first;
  }

  /** Closes a participant; returns {@code first} with a failure added. */
  static Throwable close(Participant<?, ?> participant, String name, Throwable first) {
    try {
      participant.close();
    } catch (Exception | Error e) {
      LOG.warn("closing participant '{}' failed", name, e);
      first = add(first, e);
    }
    return first;
  }

  /** Closes a participant that could not be set up; its failure joins {@code cause}. */
  static void closeQuietly(Participant<?, ?> participant, Throwable cause) {
    add(cause, close(participant, String.valueOf(participant), null));
  }

  /**
   * For methods that may throw only {@link IOException}: throws {@code e} if unchecked, returns it
   * if an {@code IOException}, else wraps it.
   */
  static IOException uncheckedOrIO(Throwable e, String message) {
    if (e instanceof Error error) {
      throw error;
    }
    if (e instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (e instanceof IOException io) {
      return io;
    }
    return new IOException(message + ": " + e, e);
  }

  /**
   * The end of a {@code close()}: throws the first {@link Error} among {@code t} and its suppressed
   * failures, and nothing for exceptions, which were logged where they happened. Flink calls
   * {@code close()} also while it cleans up a failed or cancelled task, and treats an exception
   * thrown there as fatal for the whole task manager; what a failed abort leaves, the next start
   * aborts, and what a failed close leaks, the task manager's end releases.
   */
  static void throwErrors(Throwable t) {
    if (t == null) {
      return;
    }
    if (t instanceof Error error) {
      throw error;
    }
    for (Throwable s : t.getSuppressed()) {
      if (s instanceof Error error) {
        throw error;
      }
    }
  }
}
