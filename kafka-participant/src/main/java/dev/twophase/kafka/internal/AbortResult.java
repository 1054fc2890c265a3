package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;

/** What aborting a transaction from its handle found (the participant maps it to core's outcome). */
@Internal
public enum AbortResult {
  /** It was open on the broker and is aborted now. */
  ABORTED,
  /** Nothing to roll back: never started, already aborted or expired, or the id moved on. */
  NOT_FOUND,
  /** The broker shows it committed. */
  COMMITTED
}
