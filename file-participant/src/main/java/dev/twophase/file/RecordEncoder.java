package dev.twophase.file;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Turns one record into the bytes that go into a part file. The participant encodes each record
 * into a scratch buffer first and appends it to the file only if encoding succeeded, so an encoder
 * that throws leaves the transaction as it was: the record is simply not in it.
 *
 * @param <IN> record type
 */
@FunctionalInterface
public interface RecordEncoder<IN> {

  /**
   * Writes the encoded record to {@code out}.
   *
   * @throws IOException or any runtime exception if the record cannot be encoded; the message
   *     should say what is wrong with it
   */
  void encode(IN record, OutputStream out) throws IOException;
}
