package dev.twophase.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.twophase.TwoPhaseException;
import java.io.IOException;
import java.util.List;

/**
 * The coordinator's state record: what {@code appendState} stores and {@code snapshot(id)} returns.
 *
 * <p>JSON, so that an operator can read it with the CLI or {@code jq}; handles, contexts and the
 * application snapshot are the participants' own encodings, stored as base64 next to the version
 * of the codec that wrote them. {@link #FORMAT} is checked on read: a newer format is refused
 * rather than half-understood.
 */
public final class StateCodec {

  /** Version of this record layout. */
  public static final int FORMAT = 1;

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  private StateCodec() {}

  /** One coordinator's state as of a checkpoint. */
  public record CoordinatorRecord(
      int format,
      String coordinatorId,
      long checkpointId,
      long ownerEpoch,
      long writtenAtMillis,
      boolean finished,
      List<ParticipantRecord> participants,
      Blob application) {}

  /** One participant's part of it. */
  public record ParticipantRecord(
      String name,
      int transactionCodecVersion,
      Blob context,
      List<HandleRecord> pending,
      HandleRecord current) {}

  /**
   * A transaction handle. For a pending one, {@code checkpointId} is the checkpoint that decided
   * it; for the current one, the checkpoint it was begun for.
   */
  public record HandleRecord(long checkpointId, long begunAtMillis, byte[] handle) {}

  /** An encoded value and the codec version that wrote it. */
  public record Blob(int version, byte[] bytes) {}

  public static byte[] encode(CoordinatorRecord record) {
    try {
      return MAPPER.writeValueAsBytes(record);
    } catch (IOException e) {
      throw new TwoPhaseException("cannot encode the state of coordinator " + record.coordinatorId(), e);
    }
  }

  /**
   * Decodes a state record.
   *
   * @param origin where the bytes came from, for the error message
   */
  public static CoordinatorRecord decode(byte[] bytes, String origin) {
    CoordinatorRecord record;
    try {
      record = MAPPER.readValue(bytes, CoordinatorRecord.class);
    } catch (IOException e) {
      throw new dev.twophase.FatalTwoPhaseException(
          "the coordinator state in " + origin + " is not readable; it was not written by twophase "
              + "or is damaged", e);
    }
    if (record.format() != FORMAT) {
      throw new dev.twophase.FatalTwoPhaseException(
          "the coordinator state in " + origin + " has format " + record.format()
              + " but this release reads format " + FORMAT + "; run the release that wrote it");
    }
    return record;
  }

  /** Pretty JSON for the CLI. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }
}
