/**
 * twophase core: the coordinators, the participant SPI, the durable state log and the test doubles.
 * Only the API packages are exported; the engine ({@code dev.twophase.internal} and below) is not.
 */
module dev.twophase.core {
  requires org.slf4j;
  requires static com.google.errorprone.annotations; // @GuardedBy, for the compiler only
  requires com.fasterxml.jackson.databind;

  exports dev.twophase;
  exports dev.twophase.annotation;
  exports dev.twophase.testing;

  // The state record and the in-memory handles are (de)serialized by Jackson.
  opens dev.twophase.internal to com.fasterxml.jackson.databind;
  opens dev.twophase.testing to com.fasterxml.jackson.databind;
}
