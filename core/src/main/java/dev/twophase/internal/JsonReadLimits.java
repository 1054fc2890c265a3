package dev.twophase.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * The JSON factory of the log's readers ({@link StateCodec}, {@link JsonCodec}): without Jackson's
 * default size limits on strings, numbers and names (20 million characters for a string), which
 * are there against hostile input. What is read here was written by twophase and a participant's
 * codec, and the size of a state record is limited where it is written ({@link StateSize}), so a
 * reader limit below it would make accepted checkpoints unrecoverable. The nesting depth keeps
 * Jackson's default (1000), which its writer enforces too.
 */
final class JsonReadLimits {

  private JsonReadLimits() {}

  /** A factory whose parsers accept strings, numbers and names of any length. */
  static JsonFactory factory() {
    return JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxStringLength(Integer.MAX_VALUE)
            .maxNumberLength(Integer.MAX_VALUE)
            .maxNameLength(Integer.MAX_VALUE)
            .maxDocumentLength(0) // no limit
            .build())
        .build();
  }
}
