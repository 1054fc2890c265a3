package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.Codec;
import dev.twophase.kafka.KafkaTransaction;
import java.nio.charset.StandardCharsets;

/**
 * Version 1 of the handle in the state log: one line of UTF-8,
 * {@code name;transactionalId;producerId;epoch;TV1|TV2;started|empty}. Names and ids contain no
 * {@code ;} (they are {@code [A-Za-z0-9._-]}). A version it does not know is refused, never guessed.
 */
@Internal
public final class KafkaTransactionCodec implements Codec<KafkaTransaction> {

  public static final KafkaTransactionCodec INSTANCE = new KafkaTransactionCodec();

  private KafkaTransactionCodec() {}

  @Override
  public int version() {
    return 1;
  }

  @Override
  public byte[] encode(KafkaTransaction t) {
    if (t.name().indexOf(';') >= 0 || t.transactionalId().indexOf(';') >= 0) {
      throw new IllegalArgumentException("';' in a transaction name or id: " + t);
    }
    String s = t.name() + ';' + t.transactionalId() + ';' + t.producerId() + ';' + t.epoch() + ';'
        + (t.transactionV2() ? "TV2" : "TV1") + ';' + (t.started() ? "started" : "empty");
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public KafkaTransaction decode(byte[] bytes, int version) {
    if (version != 1) {
      throw new IllegalArgumentException("Kafka transaction handle of version " + version
          + ": this release reads version 1 only; use the twophase-kafka release that wrote it");
    }
    String s = new String(bytes, StandardCharsets.UTF_8);
    String[] f = s.split(";", -1);
    if (f.length != 6 || !(f[4].equals("TV1") || f[4].equals("TV2")) || !(f[5].equals("started") || f[5].equals("empty"))) {
      throw new IllegalArgumentException("not a Kafka transaction handle of version 1: '" + s + "'");
    }
    return new KafkaTransaction(f[0], f[1], Long.parseLong(f[2]), Short.parseShort(f[3]), f[4].equals("TV2"),
        f[5].equals("started"));
  }
}
