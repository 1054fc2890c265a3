package dev.twophase.file;

import dev.twophase.annotation.PublicEvolving;
import java.util.List;
import java.util.Objects;

/**
 * The handle of one file transaction: its name (the coordinator's
 * {@link dev.twophase.TransactionContext#transactionName()}, or its
 * {@link dev.twophase.TransactionNames#shorten shortened} form if the part file names would
 * otherwise exceed 255 bytes), when it was begun, and the part files it wrote. An immutable value,
 * equal by value.
 *
 * <p>The handle {@link FileParticipant#beginTransaction beginTransaction} returns names no parts
 * (the coordinator logs it before the transaction's first record, so that recovery can abort it);
 * the one {@link FileParticipant#preCommit preCommit} returns names every part, and is the one to
 * log with the decision and to commit: from it alone a new process renames each in-progress part
 * to its final name. {@link FileParticipant#recoverAndAbort recoverAndAbort} may get either, so it
 * finds the parts by the transaction's name, and reports the transaction committed if a committed
 * part of that name exists.
 *
 * <p>Part file names: {@code <bucket>/part-<name>-<index><suffix>} when committed, and the hidden
 * {@code <bucket>/.part-<name>-<index><suffix>.inprogress} before.
 *
 * @param name the transaction's name
 * @param begunAtMillis when it was begun, by the participant's clock
 * @param parts the part files written, in creation order
 */
@PublicEvolving
public record FileTransaction(String name, long begunAtMillis, List<Part> parts) {

  /** One part file: its bucket (relative directory, {@code ""} for the base) and its index. */
  public record Part(String bucket, int index) {
    public Part {
      Objects.requireNonNull(bucket, "bucket");
      if (index < 0) {
        throw new IllegalArgumentException("part index must be >= 0, was " + index);
      }
    }
  }

  public FileTransaction {
    Objects.requireNonNull(name, "name");
    parts = List.copyOf(parts);
  }
}
