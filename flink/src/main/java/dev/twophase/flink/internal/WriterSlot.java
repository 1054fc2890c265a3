package dev.twophase.flink.internal;

import dev.twophase.Codec;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.TransactionNames;
import dev.twophase.Writable;
import dev.twophase.flink.InputMapper;
import java.io.IOException;
import java.util.Optional;

/**
 * One participant inside a writer subtask: the participant, its codecs and mapper, its context,
 * and its current transaction with that transaction's record writer. Task thread only.
 */
final class WriterSlot {

  final String name;
  final Participant<Object, Object> participant;
  final Codec<Object> transactionCodec;
  final Codec<Object> contextCodec;
  /** {@code <sinkId>-<name>-<lineage>-} for the lineage this writer continues. */
  final String prefix;
  private final Writable<Object, Object> writable;
  private final InputMapper<Object, Object> mapper;

  Optional<Object> context = Optional.empty();
  /** The open transaction's handle (from beginTransaction), or null. */
  Object current;
  long currentBegunAt;
  private RecordWriter<Object> writer;

  @SuppressWarnings("unchecked")
  WriterSlot(ParticipantSpec spec, Participant<?, ?> participant, String sinkId, String lineage) {
    if (!(participant instanceof Writable<?, ?>)) {
      throw new FatalTwoPhaseException("the factory of participant '" + spec.name() + "' created "
          + participant.getClass().getName() + ", which is not Writable: a sink's participants take "
          + "its records through Writable.writerFor");
    }
    this.name = spec.name();
    this.participant = (Participant<Object, Object>) participant;
    this.writable = (Writable<Object, Object>) participant;
    this.mapper = (InputMapper<Object, Object>) spec.mapper();
    this.transactionCodec = nonNull(this.participant.transactionCodec(), "transactionCodec()");
    this.contextCodec = nonNull(this.participant.contextCodec(), "contextCodec()");
    this.prefix = TransactionNames.prefix(sinkId, name, lineage);
  }

  private <T> T nonNull(T value, String what) {
    if (value == null) {
      throw new FatalTwoPhaseException("participant '" + name + "' returned null from " + what);
    }
    return value;
  }

  /** The participant's transaction timeout, else the sink's, or null if none applies. */
  java.time.Duration transactionTimeout(SinkSpec spec) {
    return participant.transactionTimeout().orElse(spec.transactionTimeout());
  }

  /** Begins the slot's next transaction and asks for its writer. */
  void begin(Contexts.Transaction<Object> context) throws Exception {
    Object handle = participant.beginTransaction(context);
    if (handle == null) {
      throw new FatalTwoPhaseException("participant '" + name + "' returned null from beginTransaction");
    }
    current = handle;
    currentBegunAt = System.currentTimeMillis();
    writer = null;
    RecordWriter<Object> w = writable.writerFor(handle);
    if (w == null) {
      throw new FatalTwoPhaseException("participant '" + name + "' returned null from writerFor(" + handle + ")");
    }
    writer = w;
  }

  /** Maps {@code record} and writes it into the current transaction, unless the mapper skips it. */
  void write(Object record) throws IOException {
    Object out;
    try {
      out = mapper.map(record);
      if (out == null) {
        return;
      }
      writer.write(out);
    } catch (IOException | RuntimeException e) {
      throw new IOException("participant '" + name + "' could not take a record into transaction "
          + current + ": " + e.getMessage(), e);
    } catch (Exception e) {
      throw new IOException("participant '" + name + "' could not take a record into transaction "
          + current + ": " + e, e);
    }
  }

  /** The open transaction is over (pre-committed or aborted): no writer, no handle. */
  void clearCurrent() {
    current = null;
    writer = null;
  }

  /** Encodes a handle with the participant's codec. */
  EncodedHandle encode(Object handle, long begunAt) throws Exception {
    byte[] bytes = transactionCodec.encode(handle);
    if (bytes == null) {
      throw new FatalTwoPhaseException("the transaction codec of participant '" + name + "' encoded "
          + handle + " as null");
    }
    return new EncodedHandle(name, transactionCodec.version(), begunAt, bytes);
  }

  /** Decodes a handle this participant's codec (this or an older version) wrote. */
  Object decode(EncodedHandle h) {
    try {
      Object handle = transactionCodec.decode(h.bytes(), h.codecVersion());
      if (handle == null) {
        throw new IllegalArgumentException("the codec returned null");
      }
      return handle;
    } catch (Exception e) {
      throw new FatalTwoPhaseException("participant '" + name + "' cannot decode a transaction handle "
          + "of codec version " + h.codecVersion() + " from the restored state: " + e.getMessage()
          + "; a release of the participant that reads it is needed", e, -1, name);
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
