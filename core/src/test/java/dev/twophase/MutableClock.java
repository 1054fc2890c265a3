package dev.twophase;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock, and a ticker, that the test moves by hand. */
final class MutableClock extends Clock implements Ticker {

  private final AtomicLong millis;

  MutableClock(long millis) {
    this.millis = new AtomicLong(millis);
  }

  void set(long millis) {
    this.millis.set(millis);
  }

  void advance(long delta) {
    millis.addAndGet(delta);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public long read() {
    return millis.get() * 1_000_000;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
