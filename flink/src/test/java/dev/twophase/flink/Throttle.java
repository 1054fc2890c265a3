package dev.twophase.flink;

import org.apache.flink.api.common.functions.MapFunction;

/** Passes records through, sleeping a millisecond every {@code every} records (0: never). */
final class Throttle implements MapFunction<String, String> {

  private static final long serialVersionUID = 1L;
  private final int every;
  private transient long seen;

  Throttle(int every) {
    this.every = every;
  }

  @Override
  public String map(String value) throws InterruptedException {
    if (every > 0 && ++seen % every == 0) {
      Thread.sleep(1);
    }
    return value;
  }
}
