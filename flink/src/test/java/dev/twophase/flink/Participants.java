package dev.twophase.flink;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import java.nio.file.Path;

/** Factories of the real participants the tests run (static, so that they capture only a String). */
final class Participants {

  private Participants() {}

  /** A file participant writing lines under {@code dir}. */
  static ParticipantFactory<FileParticipant<CharSequence>> files(String dir) {
    return () -> FileParticipant.builder(Path.of(dir), RecordEncoders.lines()).build();
  }
}
