package dev.twophase.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Java excerpts of writing-a-participant.md's walk-through are the tested code, verbatim: the
 * page cannot drift from what its conformance test and crash test run.
 */
class GuideSnippetsTest {

  private static final Path GUIDE = Path.of("writing-a-participant.md");
  private static final Path SOURCE = Path.of("src/test/java/dev/twophase/docs/StagedTableParticipant.java");

  @Test
  void everyExcerptOfTheWalkThroughIsInTheParticipantsSource() throws IOException {
    String guide = Files.readString(GUIDE, StandardCharsets.UTF_8);
    String walkThrough = guide.substring(guide.indexOf("## Walk-through"), guide.indexOf("## Testing"));
    String source = normalize(Files.readString(SOURCE, StandardCharsets.UTF_8));
    List<String> blocks = javaBlocks(walkThrough);
    assertTrue(blocks.size() >= 4, "the walk-through shows its code: " + blocks.size() + " excerpts");
    for (String block : blocks) {
      assertTrue(source.contains(normalize(block)),
          "this excerpt of " + GUIDE + " is not in " + SOURCE + " as it stands:\n" + block);
    }
  }

  private static List<String> javaBlocks(String markdown) {
    List<String> blocks = new ArrayList<>();
    int from = 0;
    while (true) {
      int start = markdown.indexOf("```java\n", from);
      if (start < 0) {
        return blocks;
      }
      int end = markdown.indexOf("```", start + 8);
      blocks.add(markdown.substring(start + 8, end));
      from = end + 3;
    }
  }

  /** Trailing spaces and the last newline do not count. */
  private static String normalize(String text) {
    return text.replaceAll("[ \\t]+\\n", "\n").strip();
  }
}
