package dev.twophase.benchmarks.jdbc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The coordinator's own cost against Narayana's, without databases (the benchmark Narayana
 * publishes for itself): two no-op resources per transaction, at 1, 16 and 64 threads, twophase
 * (one checkpoint per transaction, waited for until committed; per thread a coordinator, all on
 * one FileStateLog) against Narayana's TransactionManager on each of its durable stores: its
 * default file store, its journal store with its defaults, and the journal store with its flush
 * rate tuned, with and without synced deletes (see {@link TransactionManagerVariant}).
 *
 * <p>Every variant runs in a JVM of its own ({@link TransactionManagerVariant}: Narayana's store is
 * one per JVM), all started at once and kept for the whole run. Each variant first runs an untimed
 * turn at the largest thread count (for the JIT), then per thread count another untimed turn; then
 * the variants take turns, one at a time, for several rounds, the order rotating from round to
 * round. The summary gives per thread count each variant's median rate
 * (range) and process CPU per transaction, and twophase against the best Narayana variant of that
 * thread count (the highest median): the ratio of the medians and the median (range) of the
 * per-round ratios.
 *
 * <p>Syncs per transaction are counted outside, with {@code strace -f -c -e trace=fsync,fdatasync}
 * on a run of one variant ({@code -Dbench.variants=narayana-journal}), divided by the transactions
 * it prints.
 *
 * <p>Options: {@code -Dbench.rounds=7 -Dbench.turnMillis=3000 -Dbench.warmupMillis=5000
 * -Dbench.threads=1,16,64 -Dbench.variants=twophase,narayana-file,...} (all by default) and
 * {@code -Dbench.journalFlushes} (the tuned variants' flush rate).
 */
public final class CoordinatorVsNarayanaBenchmark {

  private static final int ROUNDS = Integer.getInteger("bench.rounds", 7);
  private static final long TURN_MILLIS = Long.getLong("bench.turnMillis", 3000);
  private static final long WARMUP_MILLIS = Long.getLong("bench.warmupMillis", 5000);

  private CoordinatorVsNarayanaBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target"), "tm-bench").toAbsolutePath();
    List<Integer> threadCounts = new ArrayList<>();
    for (String t : System.getProperty("bench.threads", "1,16,64").split(",")) {
      threadCounts.add(Integer.parseInt(t.trim()));
    }
    List<String> names = List.of(System.getProperty("bench.variants",
        String.join(",", TransactionManagerVariant.VARIANTS)).split(","));
    Map<String, Variant> variants = new LinkedHashMap<>();
    for (String name : names) {
      variants.put(name, new Variant(name, dir.resolve(name)));
    }
    for (Variant v : variants.values()) {
      System.out.println("[tm] " + v.name + ": " + v.awaitReady());
    }
    Map<String, List<double[]>> results = new LinkedHashMap<>(); // "name xN" -> {tx/s, CPU us/tx} per round
    long totalTx = 0;
    // the JIT's warm-up, at the largest thread count, where transactions come fastest
    for (Variant v : variants.values()) {
      totalTx += v.turn(Collections.max(threadCounts), WARMUP_MILLIS)[0];
    }
    for (int threads : threadCounts) {
      for (Variant v : variants.values()) {
        totalTx += v.turn(threads, WARMUP_MILLIS)[0];
      }
      for (int round = 0; round < ROUNDS; round++) {
        List<String> order = new ArrayList<>(names);
        Collections.rotate(order, -(round % names.size()));
        for (String name : order) {
          long[] r = variants.get(name).turn(threads, TURN_MILLIS);
          totalTx += r[0];
          double tps = r[0] * 1e9 / r[1];
          double cpu = r[0] == 0 ? Double.NaN : r[2] / 1e3 / r[0];
          results.computeIfAbsent(name + " x" + threads, k -> new ArrayList<>()).add(new double[] {tps, cpu});
          System.out.printf(Locale.ROOT, "[tm] %-46s threads=%2d round %d: %8.0f tx/s, %6.1f us CPU/tx%n",
              name, threads, round + 1, tps, cpu);
        }
      }
    }
    for (Variant v : variants.values()) {
      v.close();
    }
    System.out.println();
    System.out.println("[tm] summary, median of " + ROUNDS + " interleaved rounds of " + TURN_MILLIS + " ms (range), "
        + "process CPU per transaction; " + totalTx + " transactions in all (for syncs per transaction under strace)");
    for (int threads : threadCounts) {
      String best = null;
      for (String name : names) {
        List<Double> rs = column(results.get(name + " x" + threads), 0);
        double m = JdbcRowsBenchmark.median(rs);
        System.out.printf(Locale.ROOT, "  threads=%2d %-46s %8.0f tx/s (%.0f..%.0f), %6.1f us CPU/tx%n", threads, name,
            m, Collections.min(rs), Collections.max(rs),
            JdbcRowsBenchmark.median(column(results.get(name + " x" + threads), 1)));
        if (name.startsWith("narayana") && (best == null
            || m > JdbcRowsBenchmark.median(column(results.get(best + " x" + threads), 0)))) {
          best = name;
        }
      }
      if (best != null && names.contains("twophase")) {
        List<Double> tp = column(results.get("twophase x" + threads), 0);
        List<Double> nb = column(results.get(best + " x" + threads), 0);
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < tp.size(); i++) {
          ratios.add(tp.get(i) / nb.get(i));
        }
        System.out.printf(Locale.ROOT,
            "  threads=%2d twophase / best Narayana (%s): %.2fx (ratio of the medians); per round %.2fx (%.2f..%.2f)%n",
            threads, best, JdbcRowsBenchmark.median(tp) / JdbcRowsBenchmark.median(nb), JdbcRowsBenchmark.median(ratios),
            Collections.min(ratios), Collections.max(ratios));
      }
    }
    System.exit(0);
  }

  private static List<Double> column(List<double[]> rows, int i) {
    List<Double> c = new ArrayList<>();
    for (double[] r : rows) {
      c.add(r[i]);
    }
    return c;
  }

  /** A variant's JVM, driven over its standard input and output. */
  private static final class Variant {
    final String name;
    private final Process process;
    private final Writer commands;
    private final BufferedReader replies;

    Variant(String name, Path dir) throws IOException {
      this.name = name;
      List<String> cmd = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
          "-cp", System.getProperty("java.class.path")));
      if (System.getProperty("bench.journalFlushes") != null) {
        cmd.add("-Dbench.journalFlushes=" + System.getProperty("bench.journalFlushes"));
      }
      cmd.addAll(List.of(TransactionManagerVariant.class.getName(), name, dir.toString()));
      process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    String awaitReady() throws Exception {
      return reply("@@ready ");
    }

    /** One turn: {transactions, elapsed nanos, process CPU nanos}. */
    long[] turn(int threads, long millis) throws Exception {
      commands.write("turn " + threads + " " + millis + "\n");
      commands.flush();
      String[] r = reply("@@done ").split(" ");
      return new long[] {Long.parseLong(r[0]), Long.parseLong(r[1]), Long.parseLong(r[2])};
    }

    private String reply(String prefix) throws Exception {
      for (String line; (line = replies.readLine()) != null; ) {
        if (line.startsWith(prefix)) {
          return line.substring(prefix.length());
        }
        System.out.println("[tm] " + name + " says: " + line);
      }
      throw new IllegalStateException("variant " + name + " ended (exit code " + process.waitFor()
          + ") before it answered; its errors are above");
    }

    void close() throws Exception {
      commands.close();
      process.waitFor();
    }
  }
}
