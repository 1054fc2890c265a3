/**
 * twophase's file participant: exactly-once part files in a directory, committed by rename. Only
 * {@code dev.twophase.file} is exported; {@code dev.twophase.file.internal} is not.
 */
module dev.twophase.file {
  requires transitive dev.twophase.core;
  requires org.slf4j;
  requires static com.google.errorprone.annotations; // @GuardedBy, for the compiler only
  requires com.fasterxml.jackson.databind;

  exports dev.twophase.file;
}
