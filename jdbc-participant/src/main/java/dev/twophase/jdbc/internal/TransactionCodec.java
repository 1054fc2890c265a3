package dev.twophase.jdbc.internal;

import dev.twophase.Codec;
import dev.twophase.jdbc.JdbcTransaction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Version 1 of the handle in the state log: one flag byte (1 = empty) followed by the name in
 * UTF-8. No Java serialization, no class names.
 */
public final class TransactionCodec implements Codec<JdbcTransaction> {

  public static final TransactionCodec INSTANCE = new TransactionCodec();

  private TransactionCodec() {}

  @Override
  public int version() {
    return 1;
  }

  @Override
  public byte[] encode(JdbcTransaction t) {
    byte[] name = t.name().getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[name.length + 1];
    out[0] = (byte) (t.empty() ? 1 : 0);
    System.arraycopy(name, 0, out, 1, name.length);
    return out;
  }

  @Override
  public JdbcTransaction decode(byte[] bytes, int version) {
    if (version != 1) {
      throw new IllegalArgumentException("the JDBC participant reads handle version 1, the log holds "
          + "version " + version + ": it was written by a newer release; start that release");
    }
    if (bytes.length < 2 || (bytes[0] != 0 && bytes[0] != 1)) {
      throw new IllegalArgumentException("not a JDBC participant handle: " + Arrays.toString(bytes));
    }
    String name = new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
    return new JdbcTransaction(name, bytes[0] == 1);
  }

  @Override
  public String toString() {
    return "jdbc-transaction v1";
  }
}
