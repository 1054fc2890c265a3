package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.Objects;

/**
 * A coordinator could not be claimed because another owner holds it: a coordinator with the same
 * id open on the same log object, or, on a log shared by processes, another process that claimed
 * it and has not released it (it is running, or it stopped without closing its log). Nothing was
 * claimed and nothing changed in the log.
 *
 * <p>What to do: if the holder runs, stop it or give this coordinator another id (two running
 * coordinators must never share one); if the holder is gone, take the coordinator over (the log's
 * take-over setting), which fences the holder for good. The message names the holder, its epoch
 * and the setting.
 */
@PublicEvolving
public class CoordinatorHeldException extends FencedException {

  private static final long serialVersionUID = 1L;

  private final String coordinatorId;
  private final String holder;
  private final long holderEpoch;

  /**
   * @param coordinatorId the coordinator that could not be claimed
   * @param holder who holds it, as the log knows it (a process name, host and pid, say)
   * @param holderEpoch the holder's owner epoch, 0 if the log does not know it
   * @param message the whole message, holder and remedy included
   */
  public CoordinatorHeldException(String coordinatorId, String holder, long holderEpoch,
      String message) {
    super(message);
    this.coordinatorId = Objects.requireNonNull(coordinatorId, "coordinatorId");
    this.holder = Objects.requireNonNull(holder, "holder");
    this.holderEpoch = holderEpoch;
  }

  /** The coordinator that could not be claimed. */
  public String coordinatorId() {
    return coordinatorId;
  }

  /** Who holds it, as the log knows it. */
  public String holder() {
    return holder;
  }

  /** The holder's owner epoch, 0 if the log does not know it. */
  public long holderEpoch() {
    return holderEpoch;
  }
}
