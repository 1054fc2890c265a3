package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.jdbc.JdbcTransaction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The handle in the state log. Version 2, written: JSON, {@code {"name":"...","empty":false}}, so
 * that the state-log CLI shows it as it shows other participants' handles. Version 1, still read:
 * one flag byte (1 = empty) followed by the name in UTF-8. No Java serialization, no class names.
 */
@Internal
public final class TransactionCodec implements Codec<JdbcTransaction> {

  public static final TransactionCodec INSTANCE = new TransactionCodec();

  private static final int VERSION = 2;
  private static final Codec<JdbcTransaction> JSON = Codecs.json(JdbcTransaction.class, VERSION);

  private TransactionCodec() {}

  @Override
  public int version() {
    return VERSION;
  }

  @Override
  public byte[] encode(JdbcTransaction t) throws Exception {
    return JSON.encode(t);
  }

  @Override
  public JdbcTransaction decode(byte[] bytes, int version) throws Exception {
    return switch (version) {
      case 1 -> decodeVersion1(bytes);
      case VERSION -> {
        JdbcTransaction t = JSON.decode(bytes, version);
        if (t == null || t.name() == null || t.name().isEmpty()) {
          throw new IllegalArgumentException("not a JDBC participant handle of version 2: "
              + new String(bytes, StandardCharsets.UTF_8));
        }
        yield t;
      }
      default -> throw new IllegalArgumentException("the JDBC participant reads handle versions 1 and 2, the "
          + "log holds version " + version + ": it was written by a newer release; start that release");
    };
  }

  private static JdbcTransaction decodeVersion1(byte[] bytes) {
    if (bytes.length < 2 || (bytes[0] != 0 && bytes[0] != 1)) {
      throw new IllegalArgumentException("not a JDBC participant handle of version 1: " + Arrays.toString(bytes));
    }
    String name = new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
    return new JdbcTransaction(name, bytes[0] == 1);
  }

  @Override
  public String toString() {
    return "jdbc-transaction v2";
  }
}
