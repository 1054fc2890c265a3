package dev.twophase.jdbc.internal.statelog;

import dev.twophase.StoredState;
import dev.twophase.annotation.Internal;

/**
 * What a claim wrote and read: the new owner epoch, the last state (null if none) and the highest
 * completion mark.
 */
@Internal
public record ClaimedRow(long epoch, StoredState lastState, long completed) {}
