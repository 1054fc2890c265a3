package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.FencedException;
import dev.twophase.RecordWriter;
import dev.twophase.kafka.KafkaTransaction;
import dev.twophase.kafka.RecordMapper;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.header.Header;

/**
 * The writer of one transaction: maps each record and sends it on the transaction's producer. A
 * record that cannot be mapped, or that is larger than the producer's {@code max.request.size},
 * fails alone, before anything is sent, and the transaction stays usable; a send that fails at the
 * broker fails the transaction's pre-commit. Application thread only.
 */
@Internal
public final class RecordSender<IN> implements RecordWriter<IN> {

  /** A bound on a record's framing in a batch (Kafka's record and batch headers). */
  private static final int OVERHEAD = 128;

  private final String participant;
  private final KafkaTransaction transaction;
  private final TransactionalProducer producer;
  private final RecordMapper<IN> mapper;
  private final int maxRequestSize;

  public RecordSender(String participant, KafkaTransaction transaction, TransactionalProducer producer,
      RecordMapper<IN> mapper, int maxRequestSize) {
    this.participant = participant;
    this.transaction = transaction;
    this.producer = producer;
    this.mapper = mapper;
    this.maxRequestSize = maxRequestSize;
  }

  @Override
  public void write(IN record) {
    ProducerRecord<byte[], byte[]> r;
    try {
      r = mapper.toRecord(record);
    } catch (Exception e) {
      throw new IllegalArgumentException(participant + ": the RecordMapper failed (" + e + "); the record was not "
          + "written and " + transaction.name() + " goes on without it. Fix the mapper or the input", e);
    }
    if (r == null) {
      throw new IllegalArgumentException(participant + ": the RecordMapper returned null; the record was not written");
    }
    long size = OVERHEAD + (long) length(r.key()) + length(r.value());
    for (Header h : r.headers()) {
      size += h.key().length() + length(h.value());
    }
    if (size > maxRequestSize) {
      throw new IllegalArgumentException(participant + ": a record of about " + size + " bytes for " + r.topic()
          + " exceeds max.request.size=" + maxRequestSize + "; it was not written and " + transaction.name()
          + " goes on without it. Split the record, or raise max.request.size (and the topic's max.message.bytes)");
    }
    try {
      producer.send(r);
    } catch (ProducerFencedException e) {
      throw new FencedException(participant + ": fenced while writing to " + transaction + ": another producer "
          + "registered the same transactional id. Stop this one", e);
    }
  }

  private static int length(byte[] b) {
    return b == null ? 0 : b.length;
  }
}
