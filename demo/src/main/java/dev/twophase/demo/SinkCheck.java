package dev.twophase.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * The verdict on one sink, read the way its downstream readers read it: how many records it
 * holds, how many input records it holds twice or not at all, how many records it holds that are
 * not in the input (or differ from it), and how much the protocol left unfinished there (in-progress
 * files, prepared database transactions, open Kafka transactions).
 *
 * @param sink the participant's name in the job
 * @param kind what the sink is, e.g. {@code "files, JSON lines"}
 * @param records the records a reader sees
 * @param distinct how many different input records among them
 * @param duplicates records seen again after their first time
 * @param lost input records not seen
 * @param unexpected records that are not input records, or differ from the input record of their id
 * @param left what is left unfinished in the sink
 * @param leftKind what {@code left} counts, e.g. {@code "in-progress files"}
 * @param examples a few of the problems found, for the report
 * @param sample one record as a reader sees it, or null
 */
public record SinkCheck(
    String sink, String kind, long records, long distinct, long duplicates, long lost, long unexpected,
    long left, String leftKind, List<String> examples, String sample) {

  /** Every input record exactly once, nothing else, nothing left unfinished. */
  public boolean ok() {
    return records == distinct && duplicates == 0 && lost == 0 && unexpected == 0 && left == 0;
  }

  /** One line for the list of problems. */
  String problem() {
    return sink + " (" + kind + "): " + records + " records, " + distinct + " distinct, duplicates " + duplicates
        + ", lost " + lost + ", unexpected " + unexpected + ", " + left + " " + leftKind + " left"
        + (examples.isEmpty() ? "" : "; e.g. " + examples);
  }

  /** Counts the records of one sink against the input ids 0..n-1. Not thread-safe. */
  static final class Tally {
    private final byte[] seen;
    private final List<String> examples = new ArrayList<>();
    private long records;
    private long duplicates;
    private long unexpected;
    private String sample;

    Tally(long n) {
      seen = new byte[Math.toIntExact(n)];
    }

    /**
     * One record a reader sees: {@code id} is its input id, or -1 if it has none that is in the
     * input; {@code matches} says whether its content is the input record's.
     */
    void record(long id, boolean matches, String where, String text) {
      records++;
      if (sample == null) {
        sample = where + ": " + text;
      }
      if (id < 0 || id >= seen.length) {
        unexpected++;
        example("unexpected record (" + where + "): " + text);
        return;
      }
      int i = (int) id;
      if (seen[i] > 0) {
        duplicates++;
        example("duplicate of record " + id + " (" + where + ")");
      } else if (!matches) {
        unexpected++;
        example("record " + id + " differs from the input (" + where + "): " + text);
      }
      if (seen[i] < Byte.MAX_VALUE) {
        seen[i]++;
      }
    }

    void example(String text) {
      if (examples.size() < 5) {
        examples.add(text);
      }
    }

    SinkCheck result(String sink, String kind, long left, String leftKind) {
      long distinct = 0;
      long lost = 0;
      for (int i = 0; i < seen.length; i++) {
        if (seen[i] > 0) {
          distinct++;
        } else {
          lost++;
          example("record " + i + " is missing");
        }
      }
      return new SinkCheck(sink, kind, records, distinct, duplicates, lost, unexpected, left, leftKind,
          List.copyOf(examples), sample);
    }
  }
}
