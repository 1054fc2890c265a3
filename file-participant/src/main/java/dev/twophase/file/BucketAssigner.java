package dev.twophase.file;

import dev.twophase.annotation.PublicEvolving;

/**
 * Chooses the sub-directory of the base directory a record goes to (its bucket), for example a date
 * ({@code "2026-11-29"}) or a key. Return {@code ""} for the base directory itself.
 *
 * <p>The result is a relative path of one or more names separated by {@code /}; an absolute path,
 * a {@code ..} segment, or anything else that would leave the base directory is refused with an
 * {@link IllegalArgumentException}, and the record is not written. So is a bucket whose directory,
 * or a directory above it under the base, is a symbolic link: no link below the base directory is
 * followed.
 *
 * @param <IN> record type
 */
@FunctionalInterface
@PublicEvolving
public interface BucketAssigner<IN> {

  String bucket(IN record);

  /** Every record into the base directory. */
  static <IN> BucketAssigner<IN> none() {
    return record -> "";
  }
}
