package dev.twophase.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
 * Reads the sinks' files the way a downstream reader would, independently of the library: only
 * committed files ({@code part-*}) count; in-progress ones ({@code .part-*.inprogress}, hidden)
 * are listed separately.
 */
final class Sinks {

  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final String IN_PROGRESS_SUFFIX = ".inprogress";

  private Sinks() {}

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

  /** The exactly-once check of one sink. */
  record Check(
      String sink, long files, long records, long distinct, long duplicates, long lost,
      long unexpected, List<String> examples, String sample) {

    boolean ok() {
      return records == distinct && duplicates == 0 && lost == 0 && unexpected == 0;
    }
  }

  /** Reads every committed line of a sink and checks it against the input: each record once. */
  static Check check(String sink, Path dir, long n, boolean json) {
    Listing listing = list(dir);
    byte[] seen = new byte[Math.toIntExact(n)];
    long records = 0;
    long duplicates = 0;
    long unexpected = 0;
    List<String> examples = new ArrayList<>();
    String sample = null;
    for (Path file : listing.committed()) {
      try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        String line;
        while ((line = reader.readLine()) != null) {
          records++;
          if (sample == null) {
            sample = dir.relativize(file) + ": " + line;
          }
          long code = json ? jsonId(line) : csvId(line);
          boolean matches = code >= 0;
          long id = matches ? code : -1 - code; // a known id whose content differs from the input
          if (code == NO_ID || id >= n) {
            unexpected++;
            example(examples, "unexpected record in " + file.getFileName() + ": " + line);
            continue;
          }
          if (seen[(int) id] > 0) {
            duplicates++;
            example(examples, "duplicate of record " + id + " in " + file.getFileName());
          } else if (!matches) {
            unexpected++;
            example(examples, "record " + id + " differs from the input in " + file.getFileName() + ": " + line);
          }
          if (seen[(int) id] < Byte.MAX_VALUE) {
            seen[(int) id]++;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    long distinct = 0;
    long lost = 0;
    for (int i = 0; i < seen.length; i++) {
      if (seen[i] > 0) {
        distinct++;
      } else {
        lost++;
        example(examples, "record " + i + " is missing");
      }
    }
    return new Check(sink, listing.committed().size(), records, distinct, duplicates, lost, unexpected, examples,
        sample);
  }

  private static void example(List<String> examples, String s) {
    if (examples.size() < 5) {
      examples.add(s);
    }
  }

  /** No id could be read from the line. */
  private static final long NO_ID = Long.MIN_VALUE;

  /** The record's id if it equals the input's record; -1 - id if it differs; NO_ID if no id. */
  private static long jsonId(String line) {
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
}
