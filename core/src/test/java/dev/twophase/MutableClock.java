package dev.twophase;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock, and a ticker, that the test moves by hand. */
final class MutableClock extends Clock implements Ticker {

  private volatile long millis;

  MutableClock(long millis) {
    this.millis = millis;
  }

  void set(long millis) {
    this.millis = millis;
  }

  void advance(long delta) {
    this.millis += delta;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public long read() {
    return millis * 1_000_000;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
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
