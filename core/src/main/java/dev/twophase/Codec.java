package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * Turns a transaction handle or a participant context into bytes for the state log and back.
 *
 * <p>The {@link #version()} is written next to every encoded value, and {@link #decode} receives the
 * version the bytes were written with, so a participant can change its handle class and still
 * recover handles written by an older release. No Java serialization: use {@link Codecs#json} or
 * write a binary format of your own.
 *
 * @param <T> the encoded type
 */
@PublicEvolving
public interface Codec<T> {

  /** The format version of what {@link #encode} writes; a positive number. */
  int version();

  /** Encodes a value; never returns null. */
  byte[] encode(T value) throws Exception;

  /**
   * Decodes bytes written by {@link #encode} of this or an older version of the codec.
   *
   * @throws Exception if the version is unknown or the bytes are malformed; the coordinator
   *     refuses to start rather than lose a handle
   */
  T decode(byte[] bytes, int version) throws Exception;
}
