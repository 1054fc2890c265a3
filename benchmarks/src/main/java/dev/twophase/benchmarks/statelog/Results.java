package dev.twophase.benchmarks.statelog;

import dev.twophase.benchmarks.statelog.TimedCrew.Turn;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one run: per row (a variant at a thread count) each round's rate and CPU time
 * per operation, and the latencies of every timed operation; the summary table, the per-round
 * ratios and the target lines.
 */
final class Results {

  private static final class Row {
    final String variant;
    final int threads;
    final Map<Integer, Double> rates = new LinkedHashMap<>();
    final List<Double> cpu = new ArrayList<>();
    final Latencies latencies = new Latencies();
    String failure;

    Row(String variant, int threads) {
      this.variant = variant;
      this.threads = threads;
    }
  }

  private final Map<String, Row> rows = new LinkedHashMap<>();
  private final int rounds;

  Results(int rounds) {
    this.rounds = rounds;
  }

  private Row row(String variant, int threads) {
    return rows.computeIfAbsent(variant + " x" + threads, k -> new Row(variant, threads));
  }

  void add(String variant, int threads, int round, Turn turn) {
    Row r = row(variant, threads);
    r.rates.put(round, turn.rate());
    r.cpu.add(turn.cpuMicrosPerOp());
    r.latencies.addAll(turn.latencies());
  }

  void fail(String variant, int threads, String why) {
    Row r = row(variant, threads);
    if (r.failure == null) {
      r.failure = why;
    }
  }

  /** The median rate of a row, NaN if it has none. */
  double medianRate(String variant, int threads) {
    Row r = rows.get(variant + " x" + threads);
    return r == null ? Double.NaN : median(new ArrayList<>(r.rates.values()));
  }

  /** {@code a / b} per round in which both ran: the median and range, or null. */
  double[] roundRatios(String a, int threadsA, String b, int threadsB) {
    Row ra = rows.get(a + " x" + threadsA);
    Row rb = rows.get(b + " x" + threadsB);
    if (ra == null || rb == null) {
      return null;
    }
    List<Double> ratios = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      Double x = ra.rates.get(round);
      Double y = rb.rates.get(round);
      if (x != null && y != null && y > 0) {
        ratios.add(x / y);
      }
    }
    if (ratios.isEmpty()) {
      return null;
    }
    return new double[] {median(ratios), min(ratios), max(ratios), ratios.size()};
  }

  /** The summary table: one line per row, in the order the rows first appeared. */
  void printTable() {
    System.out.printf(Locale.ROOT, "| %-20s | %4s | %-28s | %9s | %9s | %9s |%n",
        "variant", "thr", "ops/s, median (range)", "p50 us", "p99 us", "CPU us/op");
    System.out.printf(Locale.ROOT, "| %-20s | %4s | %-28s | %9s | %9s | %9s |%n",
        "---", "---:", "---:", "---:", "---:", "---:");
    for (Row r : rows.values()) {
      if (r.rates.isEmpty()) {
        System.out.printf(Locale.ROOT, "| %-20s | %4d | %-28s | %9s | %9s | %9s |%n",
            r.variant, r.threads, "failed", "", "", "");
        continue;
      }
      List<Double> rates = new ArrayList<>(r.rates.values());
      String rate = String.format(Locale.ROOT, "%,.0f (%,.0f-%,.0f)", median(rates), min(rates), max(rates));
      System.out.printf(Locale.ROOT, "| %-20s | %4d | %-28s | %9.0f | %9.0f | %9.1f |%n",
          r.variant, r.threads, rate, r.latencies.percentileMicros(50), r.latencies.percentileMicros(99),
          median(r.cpu));
    }
    for (Row r : rows.values()) {
      if (r.failure != null) {
        System.out.printf(Locale.ROOT, "  %s x%d failed%s: %s%n", r.variant, r.threads,
            r.rates.isEmpty() ? "" : " (after " + r.rates.size() + " rounds)", r.failure);
      }
    }
  }

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  private static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }
}
