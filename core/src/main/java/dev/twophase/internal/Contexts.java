package dev.twophase.internal;

import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** The coordinator's implementations of the SPI's context objects. */
public final class Contexts {

  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._-]");

  private Contexts() {}

  /** The documented {@link TransactionContext#transactionName()} format. */
  public static String transactionName(
      String coordinatorId, String participantName, long epoch, long sequence) {
    return namePrefix(coordinatorId, participantName) + epoch + '-' + sequence;
  }

  /**
   * The prefix every transaction name of one coordinator's participant starts with; participants
   * match leftovers against it.
   */
  public static String namePrefix(String coordinatorId, String participantName) {
    return safe(coordinatorId) + '-' + safe(participantName) + '-';
  }

  private static String safe(String s) {
    return UNSAFE.matcher(s).replaceAll("_");
  }

  /** A transaction context. */
  public record Transaction<C>(
      String coordinatorId,
      String participantName,
      long ownerEpoch,
      long checkpointId,
      long sequence,
      Optional<C> userContext)
      implements TransactionContext<C> {

    @Override
    public String transactionName() {
      return Contexts.transactionName(coordinatorId, participantName, ownerEpoch, sequence);
    }
  }

  /** A recovery context. */
  public record Recovery<T, C>(
      String coordinatorId,
      String participantName,
      long ownerEpoch,
      List<T> handledTransactions,
      Optional<C> userContext,
      long lastCheckpointId)
      implements RecoveryContext<T, C> {

    public Recovery {
      handledTransactions = List.copyOf(handledTransactions);
    }
  }

  /** The context given to {@code initializeUserContext}. */
  public record Participant(String coordinatorId, String participantName, long ownerEpoch)
      implements dev.twophase.ParticipantContext {}
}
