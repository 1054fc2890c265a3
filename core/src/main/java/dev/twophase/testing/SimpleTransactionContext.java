package dev.twophase.testing;

import dev.twophase.TransactionContext;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A plain {@link TransactionContext}, for tests that call a participant directly. Its {@link
 * #transactionName()} follows the documented format {@code
 * <coordinatorId>-<participantName>-<epoch>-<sequence>}.
 *
 * @param <C> the participant's user context
 */
public record SimpleTransactionContext<C>(
    String coordinatorId,
    String participantName,
    long ownerEpoch,
    long checkpointId,
    long sequence,
    Optional<C> userContext)
    implements TransactionContext<C> {

  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._-]");

  public SimpleTransactionContext {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    Objects.requireNonNull(participantName, "participantName");
    Objects.requireNonNull(userContext, "userContext (use Optional.empty())");
  }

  @Override
  public String transactionName() {
    return transactionName(coordinatorId, participantName, ownerEpoch, sequence);
  }

  /**
   * The name {@link TransactionContext#transactionName()} documents: {@code
   * <coordinatorId>-<participantName>-<epoch>-<sequence>}, with every character of the two names
   * other than letters, digits, {@code .}, {@code _} and {@code -} replaced by {@code _}.
   */
  public static String transactionName(
      String coordinatorId, String participantName, long epoch, long sequence) {
    return transactionNamePrefix(coordinatorId, participantName) + epoch + "-" + sequence;
  }

  /**
   * The part of every transaction name that a coordinator's participant shares across restarts:
   * {@code <coordinatorId>-<participantName>-}, sanitised as in {@link #transactionName(String,
   * String, long, long)}. Note that it does not identify the pair uniquely if the names themselves
   * contain {@code -}.
   */
  public static String transactionNamePrefix(String coordinatorId, String participantName) {
    return sanitize(coordinatorId) + "-" + sanitize(participantName) + "-";
  }

  /** Replaces characters other than {@code [A-Za-z0-9._-]} by {@code _}. */
  public static String sanitize(String name) {
    return UNSAFE.matcher(Objects.requireNonNull(name, "name")).replaceAll("_");
  }
}
