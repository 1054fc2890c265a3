package dev.twophase.testkit.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/testing-a-participant.md quotes the classes of this package in full, in {@code package
 * example}: each quoted class must be exactly the one this build compiles and runs.
 */
class DocumentationExamplesTest {

  private static final Path PAGE = Path.of("..", "docs", "testing-a-participant.md");
  private static final Path SOURCES = Path.of("src", "test", "java", "dev", "twophase", "testkit", "example");
  private static final Pattern BLOCK = Pattern.compile("```java\n(package example;\n.*?)```", Pattern.DOTALL);
  private static final Pattern TYPE = Pattern.compile("^(?:public )?(?:final )?(?:class|interface|record) (\\w+)", Pattern.MULTILINE);

  @Test
  void theQuotedExamplesAreTheTestedOnes() throws Exception {
    assertTrue(Files.exists(PAGE), "run from the testkit module directory: " + PAGE.toAbsolutePath());
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    Matcher block = BLOCK.matcher(page);
    List<String> quoted = new ArrayList<>();
    while (block.find()) {
      String code = block.group(1);
      Matcher type = TYPE.matcher(code);
      assertTrue(type.find(), "a quoted example without a top-level type:\n" + code);
      String name = type.group(1);
      String source = Files.readString(SOURCES.resolve(name + ".java"), StandardCharsets.UTF_8)
          .replace("package dev.twophase.testkit.example;", "package example;");
      assertEquals(source, code, "docs/testing-a-participant.md quotes " + name + " differently from "
          + SOURCES.resolve(name + ".java"));
      quoted.add(name);
    }
    assertEquals(List.of("LineFileParticipantConformanceTest", "LineFileRecoveryTest", "LineFileCrashSubject",
        "LineFileParticipantCrashIT", "LineFileParticipant"), quoted);
  }
}
