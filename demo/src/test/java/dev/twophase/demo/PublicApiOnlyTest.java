package dev.twophase.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The demo is user code: its compiled classes refer to no engine package of twophase ({@code
 * dev.twophase.internal}, {@code dev.twophase.jdbc.internal}, ...), whether by import, fully
 * qualified name or signature.
 */
class PublicApiOnlyTest {

  private static final Pattern INTERNAL = Pattern.compile("dev/twophase/(?:[A-Za-z0-9_$]+/)*internal/[A-Za-z0-9_$/]+");

  @Test
  void theDemoUsesNoInternalType() throws IOException, URISyntaxException {
    Path classes = Path.of(Demo.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<Path> files;
    try (Stream<Path> all = Files.walk(classes)) {
      files = all.filter(p -> p.toString().endsWith(".class")).toList();
    }
    assertFalse(files.isEmpty(), "no classes under " + classes);
    List<String> found = new ArrayList<>();
    for (Path f : files) {
      // Class names in a class file's constant pool are plain (modified UTF-8) text.
      Matcher m = INTERNAL.matcher(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
      while (m.find()) {
        found.add(classes.relativize(f) + " -> " + m.group());
      }
    }
    assertEquals(List.of(), found);
  }
}
