package dev.twophase.demo;

import java.math.BigDecimal;

/**
 * The demo's input: a deterministic stream of orders, read by position, so that a restarted job
 * can seek to the position stored in the last decided checkpoint and read the same records again,
 * and the verifier can tell what every record must look like.
 */
public final class Orders {

  /** One input record. Written to the orders sink as one JSON line. */
  public record Order(long id, String customer, BigDecimal amount) {}

  private final long size;
  private long position;

  public Orders(long size) {
    this.size = size;
  }

  /** Record {@code i} of the stream (0-based): its content depends on {@code i} alone. */
  public static Order order(long i) {
    long cents = 100 + Math.floorMod(i * 7_919L, 99_901L); // 1.00 .. 1000.00
    return new Order(i, "c-" + (i % 97), BigDecimal.valueOf(cents, 2));
  }

  /**
   * An order as JSON, {@code {"id":...,"customer":"...","amount":...}}: what Jackson writes for the
   * record, written by hand for the Kafka topic's values and for the checks' fast path.
   */
  public static String json(Order order) {
    return "{\"id\":" + order.id() + ",\"customer\":\"" + order.customer() + "\",\"amount\":"
        + order.amount().toPlainString() + "}";
  }

  /** The ledger sink's CSV line for an order: {@code id,amount}. */
  public static String ledgerLine(Order order) {
    return order.id() + "," + order.amount().toPlainString();
  }

  public long size() {
    return size;
  }

  /** The position of the next record to read: the number of records read so far. */
  public long position() {
    return position;
  }

  /** Continues reading at {@code newPosition}. */
  public void seek(long newPosition) {
    if (newPosition < 0 || newPosition > size) {
      throw new IllegalArgumentException("position " + newPosition + " outside [0, " + size + "]");
    }
    position = newPosition;
  }

  public boolean hasNext() {
    return position < size;
  }

  public Order next() {
    return order(position++);
  }
}
