package dev.twophase.internal;

import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/** The coordinator's implementations of the SPI's context objects. */
public final class Contexts {

  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9.]");
  private static final Pattern OWN_SUFFIX = Pattern.compile("[0-9]+-[0-9]+");

  private Contexts() {}

  /**
   * {@code <safe coordinatorId>-<safe participantName>-}; see
   * {@link dev.twophase.ParticipantContext#transactionNamePrefix()}.
   */
  public static String namePrefix(String coordinatorId, String participantName) {
    return safe(coordinatorId) + '-' + safe(participantName) + '-';
  }

  /** Whether {@code name} is {@code prefix} followed by {@code <epoch>-<sequence>}. */
  public static boolean isOwnName(String prefix, String name) {
    return name != null
        && name.startsWith(prefix)
        && OWN_SUFFIX.matcher(name).region(prefix.length(), name.length()).matches();
  }

  /**
   * The name itself if it holds only {@code [A-Za-z0-9.]}; otherwise every other character becomes
   * {@code _} and {@code _<crc32 of the UTF-8 name, 8 hex digits>} is appended. An escaped name
   * always contains {@code _} and a plain one never does, so they cannot meet; two escaped names
   * meet only if their CRC-32s collide ({@code a-b}, {@code a_b} and {@code a.b} stay distinct).
   */
  static String safe(String name) {
    java.util.regex.Matcher m = UNSAFE.matcher(name);
    if (!m.find()) {
      return name;
    }
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return m.replaceAll("_") + '_' + String.format("%08x", crc.getValue());
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

    public Transaction {
      Objects.requireNonNull(coordinatorId, "coordinatorId");
      Objects.requireNonNull(participantName, "participantName");
      Objects.requireNonNull(userContext, "userContext (use Optional.empty())");
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
      Objects.requireNonNull(coordinatorId, "coordinatorId");
      Objects.requireNonNull(participantName, "participantName");
      handledTransactions = List.copyOf(handledTransactions);
      Objects.requireNonNull(userContext, "userContext (use Optional.empty())");
    }
  }

  /** The context given to {@code initializeUserContext}. */
  public record Participant(String coordinatorId, String participantName, long ownerEpoch)
      implements dev.twophase.ParticipantContext {

    public Participant {
      Objects.requireNonNull(coordinatorId, "coordinatorId");
      Objects.requireNonNull(participantName, "participantName");
    }
  }
}
