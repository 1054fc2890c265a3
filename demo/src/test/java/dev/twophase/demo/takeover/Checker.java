package dev.twophase.demo.takeover;

import dev.twophase.demo.Orders;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;

/**
 * Reads what one case left in each participant, as their readers would and independently of the
 * library: the committed part files, the PostgreSQL table, the Kafka topic read_committed; and
 * what must not be left: in-progress files, prepared transactions, open Kafka transactions.
 * Every input record must be in each participant exactly once, as the input has it.
 */
final class Checker {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final long records;
  private final List<String> problems = new ArrayList<>();

  Checker(long records) {
    this.records = records;
  }

  List<String> problems() {
    return List.copyOf(problems);
  }

  /** Checks the participants {@code job} writes to, on {@code servers}. */
  static List<String> check(JobArgs job, Servers servers) throws IOException, SQLException {
    Checker c = new Checker(job.records());
    if (job.has(TakeoverJob.FILES)) {
      c.files(Path.of(job.output()));
    }
    if (job.has(TakeoverJob.PG)) {
      c.table(servers.pg(), job.table(), job.coordinator());
    }
    if (job.has(TakeoverJob.KAFKA)) {
      c.topic(servers.bootstrap(), job.topic(), job.idPrefix());
    }
    return c.problems();
  }

  Checker files(Path dir) throws IOException {
    List<String> lines = new ArrayList<>();
    List<Path> inProgress = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (Stream<Path> all = Files.walk(dir)) {
        for (Path f : all.filter(Files::isRegularFile).sorted().toList()) {
          String name = f.getFileName().toString();
          if (name.startsWith("part-")) {
            lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
          } else if (name.endsWith(".inprogress")) {
            inProgress.add(f);
          }
        }
      }
    }
    tally("files", lines);
    if (!inProgress.isEmpty()) {
      problems.add("files: in-progress files left: " + inProgress);
    }
    return this;
  }

  Checker table(DataSource ds, String table, String coordinator) throws SQLException {
    List<String> rows = new ArrayList<>();
    List<String> prepared = new ArrayList<>();
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT id, customer, amount FROM " + table)) {
        while (rs.next()) {
          rows.add(Orders.json(new Orders.Order(rs.getLong(1), rs.getString(2), rs.getBigDecimal(3))));
        }
      }
      try (PreparedStatement p = c.prepareStatement("SELECT gid FROM pg_prepared_xacts WHERE gid LIKE ?")) {
        p.setString(1, "%" + coordinator + "%");
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            prepared.add(rs.getString(1));
          }
        }
      }
    }
    tally("postgres", rows);
    if (!prepared.isEmpty()) {
      problems.add("postgres: prepared transactions left: " + prepared);
    }
    return this;
  }

  Checker topic(String bootstrap, String topic, String idPrefix) {
    List<String> open = openTransactions(bootstrap, idPrefix);
    if (!open.isEmpty()) {
      problems.add("kafka: transactions left open: " + open);
    }
    List<String> values;
    if (open.isEmpty()) {
      try {
        // Reads up to the log end offset: only possible if no transaction is open on the topic.
        values = ReadCommitted.values(bootstrap, topic, TIMEOUT);
      } catch (IllegalStateException e) {
        problems.add("kafka: " + e.getMessage());
        values = ReadCommitted.visibleNow(bootstrap, topic, TIMEOUT);
      }
    } else {
      values = ReadCommitted.visibleNow(bootstrap, topic, TIMEOUT);
    }
    tally("kafka", values);
    return this;
  }

  /** The job's transactional ids whose transactions the broker has not completed. */
  static List<String> openTransactions(String bootstrap, String idPrefix) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis()))) {
      return admin.listTransactions(new ListTransactionsOptions().filterStates(List.of(
              TransactionState.ONGOING, TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT,
              TransactionState.PREPARE_EPOCH_FENCE)))
          .all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).stream()
          .map(TransactionListing::transactionalId)
          .filter(id -> id.startsWith(idPrefix))
          .sorted()
          .toList();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("cannot list the broker's transactions: " + e, e);
    }
  }

  /** Each input record once, as the input has it (the JSON of {@link Orders#json}), nothing else. */
  private void tally(String sink, List<String> values) {
    int[] seen = new int[Math.toIntExact(records)];
    List<String> wrong = new ArrayList<>();
    for (String v : values) {
      long id = idOf(v);
      if (id < 0 || id >= records || !v.equals(Orders.json(Orders.order(id)))) {
        wrong.add(v);
      } else {
        seen[(int) id]++;
      }
    }
    List<Integer> lost = new ArrayList<>();
    List<Integer> twice = new ArrayList<>();
    for (int i = 0; i < seen.length; i++) {
      if (seen[i] == 0) {
        lost.add(i);
      } else if (seen[i] > 1) {
        twice.add(i);
      }
    }
    if (!lost.isEmpty() || !twice.isEmpty() || !wrong.isEmpty()) {
      problems.add(sink + ": " + values.size() + " records; lost " + lost + ", more than once " + twice
          + ", not in the input " + wrong.stream().limit(5).toList());
    }
  }

  private static long idOf(String json) {
    String prefix = "{\"id\":";
    if (!json.startsWith(prefix)) {
      return -1;
    }
    int end = prefix.length();
    while (end < json.length() && Character.isDigit(json.charAt(end))) {
      end++;
    }
    try {
      return Long.parseLong(json.substring(prefix.length(), end));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
