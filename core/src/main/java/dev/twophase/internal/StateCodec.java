package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.TwoPhaseException;
import java.io.IOException;
import java.util.List;

/**
 * The coordinator's state record: what {@code appendState} stores and {@code snapshot(id)} returns.
 *
 * <p>JSON, so that an operator can read it with the CLI or {@code jq}; handles, contexts and the
 * application snapshot are the participants' own encodings, stored as base64 next to the version
 * of the codec that wrote them. {@link #FORMAT} is read first: a record of another format is
 * refused, with a message that says which, rather than half-understood.
 */
@Internal
public final class StateCodec {

  /** Version of this record layout. 2 added the log id. */
  public static final int FORMAT = 2;

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(JsonReadLimits.factory())
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  private StateCodec() {}

  /** One coordinator's state as of a checkpoint. */
  public record CoordinatorRecord(
      int format,
      String coordinatorId,
      String logId,
      long checkpointId,
      long ownerEpoch,
      long writtenAtMillis,
      boolean finished,
      List<ParticipantRecord> participants,
      VersionedBytes application) {}

  /** One participant's part of it. */
  public record ParticipantRecord(
      String name,
      int transactionCodecVersion,
      VersionedBytes context,
      List<HandleRecord> pending,
      HandleRecord current) {}

  /**
   * A transaction handle. For a pending one, {@code checkpointId} is the checkpoint that decided
   * it; for the current one, the checkpoint it was begun for.
   */
  public record HandleRecord(long checkpointId, long begunAtMillis, byte[] handle) {}

  /** An encoded value and the codec version that wrote it. */
  public record VersionedBytes(int version, byte[] bytes) {}

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
   * @throws FatalTwoPhaseException if the bytes are not a state record, or one of another format
   */
  public static CoordinatorRecord decode(byte[] bytes, String origin) {
    JsonNode tree;
    try {
      tree = MAPPER.readTree(bytes);
    } catch (IOException e) {
      throw notReadable(origin, e);
    }
    JsonNode format = tree == null ? null : tree.get("format");
    if (format == null || !format.canConvertToInt()) {
      throw notReadable(origin, null);
    }
    int f = format.asInt();
    if (f > FORMAT) {
      throw new FatalTwoPhaseException("the coordinator state in " + origin + " has format " + f
          + ": it was written by a newer version of twophase, and this release reads format "
          + FORMAT + ". Run the newer release (recovery needs what it wrote)");
    }
    if (f < FORMAT) {
      throw new FatalTwoPhaseException("the coordinator state in " + origin + " has format " + f
          + ", written by an older version of twophase that this release no longer reads (it "
          + "reads format " + FORMAT + "). Finish its pending checkpoints with the older release "
          + "(start and close the coordinator once), then upgrade");
    }
    try {
      return MAPPER.treeToValue(tree, CoordinatorRecord.class);
    } catch (IOException e) {
      throw notReadable(origin, e);
    }
  }

  private static FatalTwoPhaseException notReadable(String origin, Exception cause) {
    return new FatalTwoPhaseException("the coordinator state in " + origin + " is not readable: it "
        + "was not written by twophase, or it is damaged"
        + (cause == null ? "" : " (" + cause.getMessage() + ")"), cause);
  }

  /** The mapper, for the CLI's pretty printing. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }
}
