package dev.twophase.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of the user docs is a region of a compiled test source, verbatim, so
 * that no page shows code that does not compile or that contradicts the API.
 *
 * <p>On the page, the line right before the block names its region: {@code <!-- snippet: NAME -->}.
 * In a Java file under {@code src/test/java}, the region is the lines between {@code // snippet:
 * NAME} and the next {@code // end snippet}; both sides are compared less their common indentation
 * (a block may sit in a list item), and without trailing spaces. The test class around
 * it gives the block a compiling home, and runs it where that is cheap. One region may be shown by
 * several pages; every region must be shown by one. A java block without its marker fails the
 * test, on every page of the docs and in the README.
 */
class DocSnippetsTest {

  private static final Path DOCS = Path.of(".");
  private static final Path README = Path.of("..", "README.md");
  private static final Path SOURCES = Path.of("src", "test", "java");

  /** A fence opening a java block, also indented (in a list item) or with more words after the language. */
  private static final Pattern JAVA_FENCE = Pattern.compile("^\\s*```\\s*java(\\s.*)?$", Pattern.CASE_INSENSITIVE);
  private static final Pattern MARKER = Pattern.compile("<!-- snippet: ([A-Za-z0-9._-]+) -->");
  private static final Pattern REGION_START = Pattern.compile("^\\s*// snippet: ([A-Za-z0-9._-]+)\\s*$");
  private static final Pattern REGION_END = Pattern.compile("^\\s*// end snippet\\s*$");

  /** A block of a page: its region's name (null if unmarked), its code and where it starts. */
  record Block(Path page, int line, String region, String code) {}

  @Test
  void everyJavaBlockOfEveryPageIsATestedRegion() throws IOException {
    Map<String, String> regions = regions();
    Set<String> shown = new TreeSet<>();
    List<String> problems = new ArrayList<>();
    for (Path page : pages()) {
      for (Block block : blocks(page)) {
        if (block.region() == null) {
          problems.add(page + ":" + block.line() + ": a java block without `<!-- snippet: NAME -->` on the"
              + " line before it; put its code in a region `// snippet: NAME` ... `// end snippet` of a test"
              + " under " + SOURCES);
          continue;
        }
        shown.add(block.region());
        String region = regions.get(block.region());
        if (region == null) {
          problems.add(page + ":" + block.line() + ": no region '" + block.region() + "' under " + SOURCES);
        } else if (!normalize(region).equals(normalize(block.code()))) {
          problems.add(page + ":" + block.line() + ": the block differs from region '" + block.region()
              + "'; the region is:\n" + region + "\nthe page shows:\n" + block.code());
        }
      }
    }
    Set<String> unshown = new TreeSet<>(regions.keySet());
    unshown.removeAll(shown);
    for (String region : unshown) {
      problems.add("region '" + region + "' is shown by no page");
    }
    assertEquals(List.of(), problems, String.join("\n\n", problems));
  }

  static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    try (Stream<Path> files = Files.list(DOCS)) {
      files.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    assertTrue(pages.size() >= 13, "run from the docs module directory: " + DOCS.toAbsolutePath());
    pages.add(README);
    return pages;
  }

  static List<Block> blocks(Path page) throws IOException {
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!JAVA_FENCE.matcher(lines.get(i)).matches()) {
        continue;
      }
      String region = null;
      if (i > 0) {
        Matcher m = MARKER.matcher(lines.get(i - 1).strip());
        if (m.matches()) {
          region = m.group(1);
        }
      }
      int end = i + 1;
      while (end < lines.size() && !lines.get(end).strip().startsWith("```")) {
        end++;
      }
      if (end == lines.size()) {
        fail(page + ":" + (i + 1) + ": a java block that never ends");
      }
      blocks.add(new Block(page, i + 1, region, dedent(lines.subList(i + 1, end))));
      i = end;
    }
    return blocks;
  }

  /** Every region of every test source, by name, less its common indentation. */
  static Map<String, String> regions() throws IOException {
    Map<String, String> regions = new LinkedHashMap<>();
    List<Path> sources;
    try (Stream<Path> files = Files.walk(SOURCES)) {
      sources = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
    for (Path source : sources) {
      List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        Matcher start = REGION_START.matcher(lines.get(i));
        if (!start.matches()) {
          continue;
        }
        int end = i + 1;
        while (end < lines.size() && !REGION_END.matcher(lines.get(end)).matches()) {
          if (REGION_START.matcher(lines.get(end)).matches()) {
            fail(source + ":" + (end + 1) + ": a region starts inside region '" + start.group(1) + "'");
          }
          end++;
        }
        if (end == lines.size()) {
          fail(source + ":" + (i + 1) + ": region '" + start.group(1) + "' has no `// end snippet`");
        }
        if (regions.put(start.group(1), dedent(lines.subList(i + 1, end))) != null) {
          fail(source + ":" + (i + 1) + ": a second region named '" + start.group(1) + "'");
        }
        i = end;
      }
    }
    return regions;
  }

  private static String dedent(List<String> lines) {
    int indent = lines.stream().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    StringBuilder text = new StringBuilder();
    for (String line : lines) {
      text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
    }
    return text.toString();
  }

  /** Trailing spaces and the last newline do not count. */
  private static String normalize(String text) {
    return text.replaceAll("[ \\t]+\\n", "\n").replaceAll("[ \\t]+$", "").strip();
  }
}
