package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the project publishes, checked from the build's own files: every sealed module exports only its API
 * packages, every public type of a published API package says how stable it is, and the BOM
 * lists this project's artifacts and nothing else. Reads the sibling modules' sources, so it runs
 * from the reactor (the working directory is {@code core/}).
 */
class PublishedApiTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** The modules whose main code users compile against. */
  private static final List<String> PUBLISHED =
      List.of("core", "testkit", "file-participant", "jdbc-participant", "kafka-participant", "flink");

  private static final Pattern PUBLIC_TYPE = Pattern.compile(
      "^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|enum|record|@interface) (\\w+)",
      Pattern.MULTILINE);
  private static final Pattern STABILITY =
      Pattern.compile("^@(?:Public|PublicEvolving|Experimental|Internal)\\b", Pattern.MULTILINE);

  @Test
  void coreExportsOnlyItsApiPackages() throws IOException {
    ModuleDescriptor module;
    try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
      module = ModuleDescriptor.read(in);
    }
    Set<String> exported = new TreeSet<>();
    Set<String> qualified = new TreeSet<>();
    for (ModuleDescriptor.Exports e : module.exports()) {
      (e.isQualified() ? qualified : exported).add(e.isQualified() ? e.source() + " to " + e.targets() : e.source());
    }
    assertEquals(Set.of("dev.twophase", "dev.twophase.annotation", "dev.twophase.testing"), exported);
    assertEquals(Set.of(ENGINE + " to [dev.twophase.flink]"), qualified,
        "only the engine's per-participant steps are exported, and only to the Flink adapter");
    assertTrue(module.opens().stream().allMatch(ModuleDescriptor.Opens::isQualified),
        "only the internal packages Jackson reads may be opened, and only to Jackson: " + module.opens());
  }

  @Test
  void everyPublicTypeOfAnApiPackageSaysHowStableItIs() throws IOException {
    List<String> unmarked = new ArrayList<>();
    int checked = 0;
    for (String module : PUBLISHED) {
      Path sources = ROOT.resolve(module).resolve("src/main/java");
      List<Path> files;
      try (Stream<Path> walk = Files.walk(sources)) {
        files = walk.filter(p -> p.toString().endsWith(".java"))
            .filter(p -> !p.toString().contains("/internal/"))
            .filter(p -> !p.getFileName().toString().contains("-info"))
            .filter(p -> !sources.relativize(p).startsWith(Path.of("dev", "twophase", "annotation")))
            .sorted()
            .collect(Collectors.toList());
      }
      for (Path file : files) {
        String source = Files.readString(file);
        Matcher type = PUBLIC_TYPE.matcher(source);
        if (!type.find()) {
          continue; // package-private: not part of the API
        }
        checked++;
        if (!STABILITY.matcher(source.substring(0, type.start())).find()) {
          unmarked.add(ROOT.relativize(file).toString());
        }
      }
    }
    assertTrue(checked > 60, "found only " + checked + " public types: is the working directory core/?");
    assertEquals(List.of(), unmarked,
        "public types without @Public, @PublicEvolving, @Experimental or @Internal");
  }

  /**
   * The published modules with a module descriptor, and each one's internal package. Flink's
   * adapter has none: Flink's jars split packages between flink-core and flink-runtime, so no
   * named module can read both; it is an automatic module ({@code Automatic-Module-Name}).
   */
  private static final Map<String, String> SEALED = Map.of(
      "core", "dev.twophase.internal",
      "testkit", "",
      "file-participant", "dev.twophase.file.internal",
      "jdbc-participant", "dev.twophase.jdbc.internal",
      "kafka-participant", "dev.twophase.kafka.internal");

  /** Every module's internal package (the adapter's too), whose types no other module may use. */
  private static final Map<String, String> INTERNALS = Map.of(
      "core", "dev.twophase.internal",
      "file-participant", "dev.twophase.file.internal",
      "jdbc-participant", "dev.twophase.jdbc.internal",
      "kafka-participant", "dev.twophase.kafka.internal",
      "flink", "dev.twophase.flink.internal");

  /** The one internal package core exports, to the Flink adapter (a qualified export). */
  private static final String ENGINE = "dev.twophase.internal.engine";

  private static final Pattern EXPORTS = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
  private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(dev\\.twophase\\.[\\w.]+);", Pattern.MULTILINE);

  @Test
  void everySealedModuleExportsNoInternalPackage() throws IOException {
    for (Map.Entry<String, String> m : SEALED.entrySet()) {
      String descriptor = Files.readString(ROOT.resolve(m.getKey()).resolve("src/main/java/module-info.java"));
      Matcher exports = EXPORTS.matcher(descriptor);
      List<String> exported = new ArrayList<>();
      while (exports.find()) {
        exported.add(exports.group(1));
      }
      assertFalse(exported.isEmpty(), m.getKey() + " exports nothing");
      assertTrue(exported.stream().noneMatch(e -> e.contains(".internal")), m.getKey() + " exports " + exported);
    }
  }

  @Test
  void everyPublicTypeOfAnInternalPackageIsMarkedInternal() throws IOException {
    List<String> unmarked = new ArrayList<>();
    int checked = 0;
    for (String module : INTERNALS.keySet()) {
      for (Path file : sources(ROOT.resolve(module).resolve("src/main/java"))) {
        if (!file.toString().contains("/internal/")) {
          continue;
        }
        String source = Files.readString(file);
        Matcher type = PUBLIC_TYPE.matcher(source);
        if (type.find()) {
          checked++;
          if (!source.substring(0, type.start()).contains("@Internal")) {
            unmarked.add(ROOT.relativize(file).toString());
          }
        }
      }
    }
    assertTrue(checked > 50, "found only " + checked + " public internal types: is the working directory core/?");
    assertEquals(List.of(), unmarked, "public types of internal packages without @Internal");
  }

  @Test
  void noModuleUsesAnotherModulesInternals() throws IOException {
    List<String> found = new ArrayList<>();
    int scanned = 0;
    List<String> modules = List.of("core", "testkit", "file-participant", "jdbc-participant", "kafka-participant",
        "kafka-testbroker", "flink", "demo", "benchmarks", "docs");
    for (String module : modules) {
      for (String tree : List.of("src/main/java", "src/test/java")) {
        Path root = ROOT.resolve(module).resolve(tree);
        if (!Files.isDirectory(root)) {
          continue;
        }
        for (Path file : sources(root)) {
          scanned++;
          Matcher imports = IMPORT.matcher(Files.readString(file));
          while (imports.find()) {
            String imported = imports.group(1);
            for (Map.Entry<String, String> internal : INTERNALS.entrySet()) {
              boolean exportedToIt = module.equals("flink") && imported.startsWith(ENGINE + ".");
              if (!internal.getKey().equals(module) && imported.startsWith(internal.getValue() + ".") && !exportedToIt) {
                found.add(ROOT.relativize(file) + " imports " + imported);
              }
            }
          }
        }
      }
    }
    assertTrue(scanned > 300, "scanned only " + scanned + " sources: is the working directory core/?");
    assertEquals(List.of(), found, "one module's internals used by another");
  }

  private static List<Path> sources(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void theBomListsOnlyThisProjectsArtifactsAndHasNoParent() throws IOException {
    String bom = Files.readString(ROOT.resolve("bom/pom.xml"));
    assertFalse(bom.contains("<parent>"), "a parent would import the build's own dependency versions");
    String managed = bom.substring(bom.indexOf("<dependencyManagement>"), bom.indexOf("</dependencyManagement>"));
    Matcher groups = Pattern.compile("<groupId>([^<]+)</groupId>").matcher(managed);
    Set<String> groupIds = new TreeSet<>();
    int dependencies = 0;
    while (groups.find()) {
      groupIds.add(groups.group(1));
      dependencies++;
    }
    assertEquals(Set.of("dev.twophase"), groupIds);
    assertEquals(7, dependencies, "core, testkit, file, jdbc, kafka, kafka-testbroker, flink");
  }
}
