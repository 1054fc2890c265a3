package dev.twophase.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The two file sinks: the orders as JSON lines and the ledger as CSV {@code id,amount} lines, each
 * a {@link FileParticipant}; and their check, which reads the files the way a downstream reader
 * would, independently of the library: only committed files ({@code part-*}) count, in-progress
 * ones ({@code .part-*.inprogress}, hidden) are listed separately.
 */
final class FileSinks {

  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final String IN_PROGRESS_SUFFIX = ".inprogress";

  private FileSinks() {}

  /** The orders sink: one JSON document per line, a new part file every {@code partRecords}. */
  static FileParticipant<Orders.Order> orders(Path dir, int partRecords) {
    return FileParticipant.builder(dir, RecordEncoders.<Orders.Order>jsonLines())
        .maxPartRecords(partRecords)
        .suffix(".jsonl")
        .build();
  }

  /** The ledger sink: one {@code id,amount} line per order. */
  static FileParticipant<CharSequence> ledger(Path dir, int partRecords) {
    return FileParticipant.builder(dir, RecordEncoders.lines())
        .maxPartRecords(partRecords)
        .suffix(".csv")
        .build();
  }

  /** What is on disk in one sink directory. */
  record Listing(List<Path> committed, long committedLines, List<Path> inProgress, long inProgressLines) {

    String describe() {
      String s = files(committed.size(), "committed part") + " (" + committedLines + " records)";
      if (!inProgress.isEmpty()) {
        s += ", " + files(inProgress.size(), "in-progress") + " (" + inProgressLines + " complete lines)";
      } else {
        s += ", no in-progress files";
      }
      return s;
    }
  }

  static String files(long count, String kind) {
    return count + " " + kind + (count == 1 ? " file" : " files");
  }

  static Listing list(Path sink) {
    List<Path> committed = new ArrayList<>();
    List<Path> inProgress = new ArrayList<>();
    if (Files.isDirectory(sink)) {
      try (Stream<Path> files = Files.walk(sink)) {
        files.filter(Files::isRegularFile).sorted().forEach(f -> {
          String name = f.getFileName().toString();
          if (name.startsWith("part-")) {
            committed.add(f);
          } else if (name.startsWith(".part-") && name.endsWith(IN_PROGRESS_SUFFIX)) {
            inProgress.add(f);
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new Listing(committed, countLines(committed), inProgress, countLines(inProgress));
  }

  /** The committed name an in-progress file gets when its transaction commits. */
  static Path committedName(Path inProgress) {
    String name = inProgress.getFileName().toString();
    return inProgress.resolveSibling(name.substring(1, name.length() - IN_PROGRESS_SUFFIX.length()));
  }

  private static long countLines(List<Path> files) {
    long lines = 0;
    for (Path f : files) {
      try {
        byte[] bytes = Files.readAllBytes(f);
        for (byte b : bytes) {
          if (b == '\n') {
            lines++;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return lines;
  }

  /**
   * Reads every committed line of a sink and checks it against the input: each record once.
   * Whatever in-progress files are left count as left unfinished.
   */
  static SinkCheck check(String sink, Path dir, long n, boolean json) {
    Listing listing = list(dir);
    SinkCheck.Tally tally = new SinkCheck.Tally(n);
    for (Path file : listing.committed()) {
      String where = dir.relativize(file).toString();
      try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        String line;
        while ((line = reader.readLine()) != null) {
          record(tally, where, line, json ? jsonId(line) : csvId(line));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return tally.result(sink, (json ? "files, JSON lines" : "files, CSV") + ", " + files(listing.committed().size(),
        "committed"), listing.inProgress().size(), "in-progress files");
  }

  /** No id could be read from the line. */
  private static final long NO_ID = Long.MIN_VALUE;

  /** The record's id if it equals the input's record; -1 - id if it differs; NO_ID if no id. */
  static long jsonId(String line) {
    long fast = exactJsonId(line);
    if (fast >= 0) {
      return fast;
    }
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (IOException e) {
      return NO_ID;
    }
    if (node == null || !node.path("id").canConvertToLong()) {
      return NO_ID;
    }
    long id = node.path("id").asLong();
    if (id < 0) {
      return NO_ID;
    }
    Orders.Order expected = Orders.order(id);
    boolean matches;
    try {
      matches = node.size() == 3
          && node.path("id").isIntegralNumber()
          && node.path("customer").asText().equals(expected.customer())
          && node.path("amount").isNumber()
          && node.path("amount").decimalValue().compareTo(expected.amount()) == 0;
    } catch (RuntimeException e) {
      matches = false;
    }
    return matches ? id : -1 - id;
  }

  /**
   * The id of a line that is exactly the job's JSON of an input record, -1 otherwise: most lines,
   * checked without parsing. {@link #jsonId} parses the others, which may hold the same values in
   * another form.
   */
  private static long exactJsonId(String line) {
    String prefix = "{\"id\":";
    if (!line.startsWith(prefix)) {
      return -1;
    }
    int end = prefix.length();
    while (end < line.length() && end < prefix.length() + 19 && Character.isDigit(line.charAt(end))) {
      end++;
    }
    if (end == prefix.length() || (line.charAt(prefix.length()) == '0' && end > prefix.length() + 1)) {
      return -1;
    }
    long id = Long.parseLong(line, prefix.length(), end, 10);
    return line.equals(Orders.json(Orders.order(id))) ? id : -1;
  }

  /** As {@link #jsonId}, for a ledger line {@code id,amount}. */
  private static long csvId(String line) {
    int comma = line.indexOf(',');
    long id;
    try {
      id = comma > 0 ? Long.parseLong(line.substring(0, comma)) : NO_ID;
    } catch (NumberFormatException e) {
      return NO_ID;
    }
    if (id < 0) {
      return NO_ID;
    }
    return line.equals(Orders.ledgerLine(Orders.order(id))) ? id : -1 - id;
  }

  /** Records a JSON order line (the orders sink's and the topic's format) in {@code tally}. */
  static void recordJson(SinkCheck.Tally tally, String where, String line) {
    record(tally, where, line, jsonId(line));
  }

  private static void record(SinkCheck.Tally tally, String where, String line, long code) {
    if (code == NO_ID) {
      tally.record(-1, false, where, line);
    } else {
      boolean matches = code >= 0;
      tally.record(matches ? code : -1 - code, matches, where, line);
    }
  }
}
