package dev.twophase.kafka.testbroker;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A {@link KafkaTestBroker} as a process of its own, for tests that kill the JVMs using it (a
 * broker inside the killed JVM would die with it) and for trying things by hand:
 *
 * <pre>
 * java -cp &lt;the module's class path&gt; dev.twophase.kafka.testbroker.KafkaTestBrokerMain \
 *     [--dir DIR] [--transaction-version 1|2] [--topic NAME[:PARTITIONS]]... [--set KEY=VALUE]...
 * </pre>
 *
 * <p>Once the broker answers and the topics exist, it prints the bootstrap address
 * ({@code 127.0.0.1:PORT}) on a line of its own to standard output, and nothing else there (logs
 * go through SLF4J). It runs until it is sent {@code SIGTERM} (or {@code SIGINT}) or its standard
 * input reaches its end (the parent closed the pipe, or Ctrl-D); then it stops the broker, deletes
 * the data directory and exits with status 0 (143 after a signal, as the JVM reports it). Without
 * {@code --dir} the data goes to a new temporary directory.
 *
 * <p>Bad arguments: a message on standard error and exit status 2; a broker that cannot start:
 * status 1.
 */
public final class KafkaTestBrokerMain {

  /** Exit status for arguments that cannot be used. */
  public static final int USAGE = 2;

  private static final String HELP = "usage: KafkaTestBrokerMain [--dir DIR] [--transaction-version 1|2]"
      + " [--topic NAME[:PARTITIONS]]... [--set KEY=VALUE]...";

  private KafkaTestBrokerMain() {}

  /** Runs the broker until SIGTERM or the end of standard input. */
  public static void main(String[] args) throws IOException, InterruptedException {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(HELP);
      System.exit(USAGE);
      return;
    }
    Path dir = options.dir != null ? options.dir : Files.createTempDirectory("kafka-test-broker");
    KafkaTestBroker broker;
    try {
      broker = KafkaTestBroker.start(dir, options.transactionVersion, options.settings);
    } catch (IllegalStateException e) {
      System.err.println(e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      broker.close();
      stopped.countDown();
    }, "kafka-test-broker-shutdown"));
    for (Map.Entry<String, Integer> topic : options.topics.entrySet()) {
      broker.createTopic(topic.getKey(), topic.getValue());
    }
    PrintStream out = System.out;
    out.println(broker.bootstrapServers());
    out.flush();
    Thread stdin = new Thread(() -> {
      drain(System.in);
      broker.close();
      stopped.countDown();
    }, "kafka-test-broker-stdin");
    stdin.setDaemon(true);
    stdin.start();
    stopped.await();
    System.exit(0); // a thread the broker left behind must not keep the process alive
  }

  /** Reads {@code in} to its end (or until it fails, which ends it as well). */
  private static void drain(InputStream in) {
    byte[] buffer = new byte[256];
    try {
      while (in.read(buffer) >= 0) {
        // keep reading: only the end of the input stops the broker
      }
    } catch (IOException e) {
      // a broken standard input stops the broker like its end
    }
  }

  /** The command line. */
  private static final class Options {
    Path dir;
    int transactionVersion = 2;
    final Map<String, Integer> topics = new LinkedHashMap<>();
    final Map<String, String> settings = new LinkedHashMap<>();

    static Options parse(String[] args) {
      Options o = new Options();
      List<String> rest = new ArrayList<>(List.of(args));
      while (!rest.isEmpty()) {
        String flag = rest.remove(0);
        if (rest.isEmpty()) {
          throw new IllegalArgumentException("'" + flag + "' needs a value, or is not an option");
        }
        String value = rest.remove(0);
        switch (flag) {
          case "--dir" -> o.dir = Path.of(value);
          case "--transaction-version" -> {
            if (!value.equals("1") && !value.equals("2")) {
              throw new IllegalArgumentException("--transaction-version is 1 or 2, not '" + value + "'");
            }
            o.transactionVersion = Integer.parseInt(value);
          }
          case "--topic" -> {
            int colon = value.lastIndexOf(':');
            String name = colon < 0 ? value : value.substring(0, colon);
            int partitions;
            try {
              partitions = colon < 0 ? 1 : Integer.parseInt(value.substring(colon + 1));
            } catch (NumberFormatException e) {
              partitions = 0;
            }
            if (name.isEmpty() || partitions < 1) {
              throw new IllegalArgumentException("--topic is NAME or NAME:PARTITIONS with PARTITIONS >= 1, not '" + value + "'");
            }
            o.topics.put(name, partitions);
          }
          case "--set" -> {
            int eq = value.indexOf('=');
            if (eq < 1) {
              throw new IllegalArgumentException("--set is KEY=VALUE (a broker setting), not '" + value + "'");
            }
            o.settings.put(value.substring(0, eq), value.substring(eq + 1));
          }
          default -> throw new IllegalArgumentException("unknown option '" + flag + "'");
        }
      }
      return o;
    }
  }
}
