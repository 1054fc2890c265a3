package dev.twophase.file;

import dev.twophase.Writable;

/** Writes a record the way the coordinator does: through the transaction's record writer. */
final class W {

  private W() {}

  static <IN, T> void write(Writable<IN, T> participant, T transaction, IN record) throws Exception {
    participant.writerFor(transaction).write(record);
  }
}
