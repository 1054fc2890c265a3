package dev.twophase.demo.takeover;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arguments of one {@link TakeoverJob} run, as {@code key=value} words on its command line.
 *
 * @param owner the process's owner name in a shared state log (A, B, ...)
 * @param coordinator the coordinator id
 * @param log the state log: {@code file:<dir>}, {@code jdbc:<url>|<table>} or {@code
 *     kafka:<bootstrap>|<topic>}
 * @param takeOver whether a shared log takes the coordinator over from a holder that did not release it
 * @param output the output directory of the file participant (shared: it survives the process)
 * @param local the process's own working directory (deleted after it was killed)
 * @param pgUrl the PostgreSQL JDBC URL
 * @param table the PostgreSQL table
 * @param bootstrap the Kafka bootstrap servers
 * @param topic the Kafka topic
 * @param idPrefix the Kafka transactional id prefix
 * @param records how many input records
 * @param every records per checkpoint
 * @param delayMillis pause after each record (to keep a job running while the parent acts)
 * @param crash {@code POINT:HIT} or {@code none}
 * @param participants which participants the coordinator has, of {@code files,pg,kafka}
 */
record JobArgs(String owner, String coordinator, String log, boolean takeOver, String output, String local,
    String pgUrl, String table, String bootstrap, String topic, String idPrefix, long records, int every,
    long delayMillis, String crash, String participants) {

  static final String ALL = TakeoverJob.FILES + "," + TakeoverJob.PG + "," + TakeoverJob.KAFKA;

  boolean has(String participant) {
    return java.util.Arrays.asList(participants.split(",")).contains(participant);
  }

  List<String> toArgs() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("owner", owner);
    m.put("coordinator", coordinator);
    m.put("log", log);
    m.put("takeOver", Boolean.toString(takeOver));
    m.put("output", output);
    m.put("local", local);
    m.put("pgUrl", pgUrl);
    m.put("table", table);
    m.put("bootstrap", bootstrap);
    m.put("topic", topic);
    m.put("idPrefix", idPrefix);
    m.put("records", Long.toString(records));
    m.put("every", Integer.toString(every));
    m.put("delayMillis", Long.toString(delayMillis));
    m.put("crash", crash);
    m.put("participants", participants);
    List<String> args = new ArrayList<>();
    m.forEach((k, v) -> args.add(k + "=" + v));
    return args;
  }

  static JobArgs parse(String[] args) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("argument '" + a + "': expected key=value");
      }
      m.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return new JobArgs(get(m, "owner"), get(m, "coordinator"), get(m, "log"), Boolean.parseBoolean(get(m, "takeOver")),
        get(m, "output"), get(m, "local"), get(m, "pgUrl"), get(m, "table"), get(m, "bootstrap"), get(m, "topic"),
        get(m, "idPrefix"), Long.parseLong(get(m, "records")), Integer.parseInt(get(m, "every")),
        Long.parseLong(get(m, "delayMillis")), get(m, "crash"), get(m, "participants"));
  }

  private static String get(Map<String, String> m, String key) {
    String v = m.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + key + "=...");
    }
    return v;
  }

  JobArgs withOwner(String newOwner, String newLocal, String newCrash, boolean newTakeOver, long newDelay) {
    return new JobArgs(newOwner, coordinator, log, newTakeOver, output, newLocal, pgUrl, table, bootstrap, topic,
        idPrefix, records, every, newDelay, newCrash, participants);
  }
}
