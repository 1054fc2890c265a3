package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import dev.twophase.internal.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/** Ready-made {@link Codec}s. */
@PublicEvolving
public final class Codecs {

  private Codecs() {}

  /**
   * A JSON codec for a plain class or record, through Jackson with default typing off (the log
   * never names a class to instantiate). Version 1.
   */
  public static <T> Codec<T> json(Class<T> type) {
    return json(type, 1);
  }

  /**
   * A JSON codec that writes {@code version}. Reading bytes of another version fails with a clear
   * error; write your own {@link Codec} to migrate old versions.
   */
  public static <T> Codec<T> json(Class<T> type, int version) {
    return new JsonCodec<>(type, version);
  }

  /** UTF-8 strings, version 1. */
  public static Codec<String> utf8() {
    return Utf8.INSTANCE;
  }

  /** For participants without a context: encodes only {@code null}. */
  @SuppressWarnings("unchecked")
  public static <T> Codec<T> none() {
    return (Codec<T>) None.INSTANCE;
  }

  private enum Utf8 implements Codec<String> {
    INSTANCE;

    @Override
    public int version() {
      return 1;
    }

    @Override
    public byte[] encode(String value) {
      return Objects.requireNonNull(value, "value").getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String decode(byte[] bytes, int version) {
      requireVersion(version, 1, "utf8");
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private enum None implements Codec<Object> {
    INSTANCE;

    @Override
    public int version() {
      return 1;
    }

    @Override
    public byte[] encode(Object value) {
      if (value != null) {
        throw new IllegalArgumentException(
            "this participant declares no context codec but returned a context of "
                + value.getClass().getName()
                + "; override Participant.contextCodec()");
      }
      return new byte[0];
    }

    @Override
    public Object decode(byte[] bytes, int version) {
      return null;
    }
  }

  static void requireVersion(int actual, int expected, String codec) {
    if (actual != expected) {
      throw new IllegalArgumentException(
          "the " + codec + " codec reads version " + expected + " but the log holds version " + actual);
    }
  }
}
