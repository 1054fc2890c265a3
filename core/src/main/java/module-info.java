/**
 * twophase core: the coordinators, the participant SPI, the durable state log and the test doubles.
 * Only the API packages are exported; the engine ({@code dev.twophase.internal} and below) is not,
 * but for its per-participant steps, exported to the Flink adapter alone.
 */
module dev.twophase.core {
  requires org.slf4j;
  requires static com.google.errorprone.annotations; // @GuardedBy, for the compiler only
  requires com.fasterxml.jackson.databind;

  exports dev.twophase;
  exports dev.twophase.annotation;
  exports dev.twophase.testing;
  // The engine's per-participant steps, for the front-end of another module: the Flink adapter
  // drives participants through them, as the coordinators do.
  exports dev.twophase.internal.engine to dev.twophase.flink;

  // The state record and the in-memory handles are (de)serialized by Jackson.
  opens dev.twophase.internal to com.fasterxml.jackson.databind;
  opens dev.twophase.testing to com.fasterxml.jackson.databind;
}
