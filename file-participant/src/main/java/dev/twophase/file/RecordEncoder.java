package dev.twophase.file;

import dev.twophase.annotation.PublicEvolving;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Turns one record into the bytes that go into a part file. {@code out} is the part's own buffer:
 * nothing of it reaches the file while a record is being encoded, and if the encoder throws, the
 * participant rewinds the buffer to where the record began. An encoder that throws therefore leaves
 * the transaction as it was: the record is simply not in it. Write to {@code out} only during the
 * call; closing or flushing it does nothing.
 *
 * @param <IN> record type
 */
@FunctionalInterface
@PublicEvolving
public interface RecordEncoder<IN> {

  /**
   * Writes the encoded record to {@code out}.
   *
   * @throws IOException or any runtime exception if the record cannot be encoded; the message
   *     should say what is wrong with it
   */
  void encode(IN record, OutputStream out) throws IOException;
}
