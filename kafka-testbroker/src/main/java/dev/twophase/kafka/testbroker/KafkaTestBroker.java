package dev.twophase.kafka.testbroker;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache Kafka broker inside this JVM, for tests and demos: one KRaft node that is both
 * broker and controller ({@code kafka.server.KafkaRaftServer}, no ZooKeeper), over storage
 * formatted with the production feature levels (and the chosen {@code transaction.version}), on
 * free ports of the loopback interface, with its data under a directory of the caller's choice.
 * Internal topics have one replica and one partition, so that it starts in a few seconds.
 *
 * <pre>{@code
 * try (KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("kafka"), 2, Map.of())) {
 *   broker.createTopic("orders", 1);
 *   ... // producers and consumers on broker.bootstrapServers()
 *   List<String> committed = ReadCommitted.values(broker.bootstrapServers(), "orders", Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>{@link #close()} stops the broker's and controller's threads and deletes the data directory.
 * A test suite that wants one broker per JVM uses {@link #shared()}, which a shutdown hook stops.
 * Kafka's metrics library keeps two daemon threads ({@code metrics-meter-tick-thread-*}) per JVM,
 * shared by every broker started in it; they end with the JVM.
 *
 * <p>It is a test broker: one replica of everything, and the log is not flushed per message (the
 * page cache is enough while the broker's JVM lives). Processes that connect to it, such as a
 * child JVM killed in a crash test, do not take it down; stopping the JVM that runs it does.
 *
 * <p>Needs {@code org.apache.kafka:kafka_2.13} of the same 4.x line as the client, which this
 * module ({@code twophase-kafka-testbroker}) brings; take it in {@code test} scope.
 */
public final class KafkaTestBroker implements AutoCloseable {

  /** System property: 1 or 2, the broker's {@code transaction.version} for {@link #shared()}. */
  public static final String TRANSACTION_VERSION_PROPERTY = "twophase.kafka.transactionVersion";
  /** System property: the data directory of {@link #shared()}; default under {@code target/}. */
  public static final String DIRECTORY_PROPERTY = "twophase.kafka.brokerDir";

  private static final Logger LOG = LoggerFactory.getLogger(KafkaTestBroker.class);
  private static final Object SHARED_LOCK = new Object();
  private static KafkaTestBroker shared;

  private final Path directory;
  private final int transactionVersion;
  private final String bootstrapServers;
  private final KafkaRaftServer server;
  private boolean closed;

  private KafkaTestBroker(Path directory, int transactionVersion, String bootstrapServers, KafkaRaftServer server) {
    this.directory = directory;
    this.transactionVersion = transactionVersion;
    this.bootstrapServers = bootstrapServers;
    this.server = server;
  }

  /**
   * The broker of this JVM, started on first use with the {@code transaction.version} of
   * {@value #TRANSACTION_VERSION_PROPERTY} (default 2) under {@value #DIRECTORY_PROPERTY} (default
   * {@code target/kafka-broker}), and stopped by a shutdown hook.
   */
  public static KafkaTestBroker shared() {
    synchronized (SHARED_LOCK) {
      if (shared == null) {
        int tv = Integer.parseInt(System.getProperty(TRANSACTION_VERSION_PROPERTY, "2"));
        Path dir = Path.of(System.getProperty(DIRECTORY_PROPERTY, "target/kafka-broker"));
        KafkaTestBroker broker = start(dir, tv, Map.of());
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "kafka-test-broker-shutdown"));
        shared = broker;
      }
      return shared;
    }
  }

  /**
   * Formats {@code directory} (deleting what it held) and starts a broker on it.
   *
   * @param transactionVersion 1 or 2: the broker's {@code transaction.version} feature level
   * @param overrides broker settings that replace the defaults (e.g. {@code
   *     transaction.max.timeout.ms})
   * @throws IllegalStateException if it cannot start; nothing is left running then
   */
  public static KafkaTestBroker start(Path directory, int transactionVersion, Map<String, String> overrides) {
    if (transactionVersion != 1 && transactionVersion != 2) {
      throw new IllegalArgumentException("transactionVersion must be 1 or 2, not " + transactionVersion);
    }
    long startedAt = System.nanoTime();
    Path dir = directory.toAbsolutePath();
    KafkaRaftServer server = null;
    try {
      deleteRecursively(dir);
      Path logDir = Files.createDirectories(dir.resolve("data"));
      int brokerPort = freePort();
      int controllerPort = freePort();
      while (controllerPort == brokerPort) {
        controllerPort = freePort();
      }
      String clusterId = Uuid.randomUuid().toString();

      Properties props = new Properties();
      props.put("process.roles", "broker,controller");
      props.put("node.id", "1");
      props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
      props.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
      props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
      props.put("controller.listener.names", "CONTROLLER");
      props.put("inter.broker.listener.name", "PLAINTEXT");
      props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
      props.put("log.dirs", logDir.toString());
      props.put("metadata.log.dir", logDir.toString());
      props.put("num.partitions", "1");
      props.put("default.replication.factor", "1");
      props.put("min.insync.replicas", "1");
      props.put("offsets.topic.replication.factor", "1");
      props.put("offsets.topic.num.partitions", "1");
      props.put("transaction.state.log.replication.factor", "1");
      props.put("transaction.state.log.min.isr", "1");
      props.put("transaction.state.log.num.partitions", "1");
      props.put("share.coordinator.state.topic.replication.factor", "1");
      props.put("share.coordinator.state.topic.min.isr", "1");
      props.put("group.initial.rebalance.delay.ms", "0");
      props.put("auto.create.topics.enable", "false");
      // Quick detection of an expired transaction (the broker checks every 10 s by default).
      props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "500");
      props.put("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
      overrides.forEach(props::put);

      KafkaConfig config = KafkaConfig.fromProps(props, false);
      new Formatter()
          .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
          .setClusterId(clusterId)
          .setNodeId(1)
          .setControllerListenerName("CONTROLLER")
          .setMetadataLogDirectory(logDir.toString())
          .setDirectories(List.of(logDir.toString()))
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setFeatureLevel(Feature.TRANSACTION_VERSION.featureName(), (short) transactionVersion)
          .run();

      server = new KafkaRaftServer(config, Time.SYSTEM);
      server.startup();
      String bootstrap = "127.0.0.1:" + brokerPort;
      KafkaTestBroker broker = new KafkaTestBroker(dir, transactionVersion, bootstrap, server);
      broker.awaitReady(Duration.ofSeconds(60));
      LOG.info("Kafka test broker at {} (transaction.version {}) started in {} ms, data in {}",
          bootstrap, transactionVersion, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt), dir);
      return broker;
    } catch (Exception | Error e) {
      if (server != null) {
        try {
          server.shutdown();
          server.awaitShutdown();
        } catch (RuntimeException | Error suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw new IllegalStateException("could not start the Kafka test broker in " + dir + ": " + e, e);
    }
  }

  /** {@code host:port} of the broker's listener. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** The {@code transaction.version} the storage was formatted with. */
  public int transactionVersion() {
    return transactionVersion;
  }

  /** The data directory (absolute), deleted by {@link #close()}. */
  public Path directory() {
    return directory;
  }

  /** A new admin client of this broker; the caller closes it. */
  public Admin admin() {
    return Admin.create(Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
  }

  /**
   * Creates a topic (one replica) if it does not exist.
   *
   * @throws IllegalStateException if the broker refuses it or does not answer within 30 s
   */
  public void createTopic(String name, int partitions) {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("could not create topic " + name + ": " + e.getCause(), e.getCause());
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("could not create topic " + name + ": " + e, e);
    }
  }

  /** Stops the broker and deletes its data. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.shutdown();
    server.awaitShutdown();
    try {
      deleteRecursively(directory);
    } catch (IOException e) {
      LOG.warn("could not delete the test broker's data in {}", directory, e);
    }
  }

  /** Waits until the broker answers and reports the transaction.version it was formatted with. */
  private void awaitReady(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    try (Admin admin = admin()) {
      while (System.nanoTime() < deadline) {
        try {
          FeatureMetadata features = admin.describeFeatures().featureMetadata().get(10, TimeUnit.SECONDS);
          FinalizedVersionRange tv = features.finalizedFeatures().get(Feature.TRANSACTION_VERSION.featureName());
          int level = tv == null ? 0 : tv.maxVersionLevel();
          if (level != transactionVersion) {
            throw new IllegalStateException("broker reports transaction.version " + level + ", expected " + transactionVersion);
          }
          admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException e) {
          last = e;
          Thread.sleep(100);
        }
      }
    }
    throw new IllegalStateException("broker at " + bootstrapServers + " not ready after " + timeout, last);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
