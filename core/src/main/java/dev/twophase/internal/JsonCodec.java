package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.twophase.Codec;
import java.util.Objects;

/** Jackson-backed codec. Default typing stays off: the log never chooses a class to load. */
@Internal
public final class JsonCodec<T> implements Codec<T> {

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(JsonReadLimits.factory())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  private final Class<T> type;
  private final int version;

  public JsonCodec(Class<T> type, int version) {
    this.type = Objects.requireNonNull(type, "type");
    if (version <= 0) {
      throw new IllegalArgumentException("codec version must be positive, was " + version);
    }
    this.version = version;
  }

  @Override
  public int version() {
    return version;
  }

  @Override
  public byte[] encode(T value) throws Exception {
    return MAPPER.writeValueAsBytes(Objects.requireNonNull(value, "value"));
  }

  @Override
  public T decode(byte[] bytes, int version) throws Exception {
    if (version != this.version) {
      throw new IllegalArgumentException(
          "JSON codec for "
              + type.getName()
              + " reads version "
              + this.version
              + " but the log holds version "
              + version
              + "; supply a Codec that migrates it");
    }
    return MAPPER.readValue(bytes, type);
  }

  @Override
  public String toString() {
    return "json(" + type.getSimpleName() + ", v" + version + ")";
  }
}
