package dev.twophase.file;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The handle of one file transaction: its name (the coordinator's
 * {@link dev.twophase.TransactionContext#transactionName()}) and the part files it wrote. From this
 * alone a new process can commit it (rename each in-progress part to its final name) or abort it.
 *
 * <p>Part file names: {@code <bucket>/part-<name>-<index><suffix>} when committed, and the hidden
 * {@code <bucket>/.part-<name>-<index><suffix>.inprogress} before.
 */
public final class FileTransaction {

  /** One part file: its bucket (relative directory, {@code ""} for the base) and its index. */
  public record Part(String bucket, int index) {
    public Part {
      Objects.requireNonNull(bucket, "bucket");
      if (index < 0) {
        throw new IllegalArgumentException("part index must be >= 0, was " + index);
      }
    }
  }

  private final String name;
  private final long begunAtMillis;
  private final List<Part> parts;

  FileTransaction(String name, long begunAtMillis, List<Part> parts) {
    this.name = Objects.requireNonNull(name, "name");
    this.begunAtMillis = begunAtMillis;
    this.parts = new ArrayList<>(parts);
  }

  public String name() {
    return name;
  }

  public long begunAtMillis() {
    return begunAtMillis;
  }

  /** The part files written so far, in creation order. */
  public List<Part> parts() {
    synchronized (parts) {
      return Collections.unmodifiableList(new ArrayList<>(parts));
    }
  }

  void addPart(Part part) {
    synchronized (parts) {
      parts.add(part);
    }
  }

  /** Equal when the names are: a name identifies a transaction for the coordinator's lifetime. */
  @Override
  public boolean equals(Object o) {
    return o instanceof FileTransaction && ((FileTransaction) o).name.equals(name);
  }

  @Override
  public int hashCode() {
    return name.hashCode();
  }

  @Override
  public String toString() {
    return "FileTransaction{" + name + ", parts=" + parts() + '}';
  }
}
