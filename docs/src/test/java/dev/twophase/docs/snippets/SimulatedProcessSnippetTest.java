package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testkit.SimulatedProcess;
import java.lang.reflect.Proxy;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * testing-a-participant.md's three {@code process.track} lines, run: a file channel, a connection
 * and a producer (which connects to nothing until it sends), each released when the process is
 * killed. The connection is a stand-in that records its abort: H2's {@code abort} does nothing,
 * and the line is for servers whose {@code abort} drops the session.
 */
class SimulatedProcessSnippetTest {

  @TempDir Path tmp;

  @Test
  void whatAProcessTracksIsReleasedWhenItIsKilled() throws Exception {
    SimulatedProcess process = new SimulatedProcess("process 1");
    Path file = tmp.resolve("t.inprogress");
    OpenOption[] options = {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE};
    List<String> calls = new ArrayList<>();
    Connection recording = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
          calls.add(method.getName());
          return null;
        });
    DataSource dataSource = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, (proxy, method, args) -> recording);
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());

    Tracked tracked = track(process, file, options, dataSource, properties);
    assertTrue(tracked.channel().isOpen());
    assertSame(recording, tracked.connection());
    assertEquals(List.of(), calls);

    process.kill();
    assertFalse(tracked.channel().isOpen(), "the kill closed the file");
    assertEquals(List.of("abort"), calls, "the kill aborted the connection");
    assertThrows(IllegalStateException.class,
        () -> tracked.producer().send(new ProducerRecord<>("t", "v")), "the kill closed the producer");
  }

  /** What the block made. */
  record Tracked(FileChannel channel, Connection connection, KafkaProducer<String, String> producer) {}

  private static Tracked track(SimulatedProcess process, Path file, OpenOption[] options,
      DataSource dataSource, Properties properties) throws Exception {
    // snippet: testing-track
    // files: the operating system closes them
    FileChannel channel = process.track(FileChannel.open(file, options), FileChannel::close);
    // JDBC: the connection drops; the server rolls back what the connection had open
    Connection connection = process.track(dataSource.getConnection(), c -> c.abort(Runnable::run));
    // Kafka: the producer goes away without aborting its transaction
    KafkaProducer<String, String> producer =
        process.track(new KafkaProducer<>(properties), p -> p.close(Duration.ZERO));
    // end snippet
    return new Tracked(channel, connection, producer);
  }
}
