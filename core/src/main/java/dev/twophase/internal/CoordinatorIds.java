package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The rules for coordinator ids and participant names, checked when a coordinator is built (the
 * same for both kinds of coordinator): not blank, valid Unicode text, at most 255 bytes in UTF-8.
 * Messages quote a long value shortened, never whole.
 */
@Internal
public final class CoordinatorIds {

  /** Most UTF-8 bytes of a coordinator id or participant name. */
  public static final int MAX_BYTES = 255;

  private CoordinatorIds() {}

  /** Checks a coordinator id; returns it. */
  public static String requireValid(String id) {
    return requireValid(id, "coordinatorId");
  }

  /** Checks an id or name; {@code what} names it in the message. */
  public static String requireValid(String value, String what) {
    Objects.requireNonNull(value, what);
    if (value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank, was " + quote(value));
    }
    ByteBuffer utf8;
    try {
      utf8 = StandardCharsets.UTF_8.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(value));
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          what + " must be valid Unicode text (it has an unpaired surrogate): " + quote(value), e);
    }
    if (utf8.remaining() > MAX_BYTES) {
      throw new IllegalArgumentException(what + " must be at most " + MAX_BYTES + " bytes in UTF-8, was "
          + utf8.remaining() + ": " + quote(value));
    }
    return value;
  }

  /** {@code 'value'}, or its first 40 characters and its length if it is longer, for messages. */
  public static String quote(String value) {
    return value.length() <= 48
        ? "'" + value + "'"
        : "'" + value.substring(0, 40) + "...' (" + value.length() + " characters)";
  }
}
