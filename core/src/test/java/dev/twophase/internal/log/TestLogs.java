package dev.twophase.internal.log;

import dev.twophase.FileStateLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/** File helpers for state log tests. */
public final class TestLogs {

  private TestLogs() {}

  /**
   * Opens a log that writes no zeros ahead of its appends, so that a segment's length is the end
   * of its records: for tests that find records by the file's length.
   */
  public static FileStateLog openExact(Path dir) {
    return FileStateLog.builder(dir).preallocateBytes(0).build();
  }

  /**
   * Where the records of the last segment of {@code dir} end: its length without a torn tail or
   * the zeros a log writes ahead of its appends.
   */
  public static long recordsEnd(Path dir) {
    try {
      List<LogReader.ScannedSegment> s = LogReader.scan(dir, new LogIndex()).segments();
      return s.get(s.size() - 1).validEnd();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Appends {@code count} zero bytes to {@code file}, as a log's preallocation leaves them. */
  public static void appendZeros(Path file, int count) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer zeros = ByteBuffer.allocate(count);
      while (zeros.hasRemaining()) {
        ch.write(zeros);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The segment files of {@code dir} in sequence order. */
  public static List<Path> segments(Path dir) {
    try {
      List<Path> out = new ArrayList<>();
      for (LogReader.SegmentFile f : LogReader.listSegments(dir)) {
        out.add(f.file());
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The names of the files in {@code dir}, sorted. */
  public static List<String> fileNames(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Path lastSegment(Path dir) {
    List<Path> s = segments(dir);
    if (s.isEmpty()) {
      throw new AssertionError("no segments in " + dir);
    }
    return s.get(s.size() - 1);
  }

  public static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static long totalSize(Path dir) {
    long total = 0;
    for (Path p : segments(dir)) {
      total += size(p);
    }
    return total;
  }

  /** Copies the files of {@code from} (flat) into a new directory {@code to}. */
  public static Path copyDir(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Files.copy(p, to.resolve(p.getFileName()));
      }
    }
    return to;
  }

  public static void truncate(Path file, long size) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(size);
    }
  }

  /** Writes zeros over {@code [from, to)} of {@code file}. */
  public static void zero(Path file, long from, long to) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer zeros = ByteBuffer.allocate((int) (to - from));
      for (long at = from; zeros.hasRemaining(); ) {
        at += ch.write(zeros, at);
      }
    }
  }

  public static void append(Path file, byte[] bytes) throws IOException {
    Files.write(file, bytes, StandardOpenOption.APPEND);
  }

  public static void flipBit(Path file, long offset, int bit) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, offset);
      b.flip();
      byte v = (byte) (b.get(0) ^ (1 << bit));
      ch.write(ByteBuffer.wrap(new byte[] {v}), offset);
    }
  }

  public static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** A valid segment header for {@code sequence} of the log {@code logId}. */
  public static byte[] segmentHeader(long sequence, String logId) {
    ByteBuffer b = ByteBuffer.allocate(LogFormat.SEGMENT_HEADER_SIZE);
    LogFormat.putSegmentHeader(b, new CRC32C(), sequence, logId);
    return b.array();
  }

  /** The log id in the segment headers of {@code dir}. */
  public static String logId(Path dir) {
    try {
      return LogReader.scan(dir, new LogIndex()).logId();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A record frame around {@code body} as given (with no end marker added), with valid checksums:
   * for records a faulty writer might write.
   */
  public static byte[] frame(byte[] body) {
    CRC32C crc = new CRC32C();
    ByteBuffer b = ByteBuffer.allocate(LogFormat.RECORD_HEADER_SIZE + body.length);
    b.putInt(body.length);
    b.putInt(LogFormat.lengthCrc(crc, body.length));
    crc.update(body);
    b.putInt((int) crc.getValue());
    b.put(body);
    return b.array();
  }

  /** The result of a child JVM. */
  public record ChildResult(int exitCode, String output) {}

  /**
   * Runs {@code main} in a new JVM with the test class path, the given system properties
   * ({@code -D...} arguments) and program arguments, and waits for it.
   */
  public static ChildResult runChild(Class<?> main, List<String> jvmArgs, String... args)
      throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path");
    if (cp == null || cp.isBlank()) {
      cp = System.getProperty("java.class.path");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xshare:auto");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(cp);
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("child JVM did not finish: " + new String(out, StandardCharsets.UTF_8));
    }
    return new ChildResult(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
