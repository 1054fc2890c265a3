package dev.twophase;

/** {@link Ticker#system()}. */
enum SystemTicker implements Ticker {
  INSTANCE;

  @Override
  public long read() {
    return System.nanoTime();
  }

  @Override
  public String toString() {
    return "Ticker.system()";
  }
}
