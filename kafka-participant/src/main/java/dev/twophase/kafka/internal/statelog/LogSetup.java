package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;

/** The steps of opening a Kafka state log, and the checks of its arguments. */
@Internal
public final class LogSetup {

  private static final AtomicInteger LOGS_BUILT = new AtomicInteger();

  private LogSetup() {}

  /** {@code <pid>@<host>/<n>}, {@code n} counting the logs built in this JVM. */
  public static String defaultOwnerName() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException | SecurityException e) {
      host = "unknown-host";
    }
    return ProcessHandle.current().pid() + "@" + host + "/" + LOGS_BUILT.incrementAndGet();
  }

  /** The log's admin client; the caller closes it. */
  public static Admin admin(ClientSettings settings, String topic) {
    return Admin.create(settings.admin(topic));
  }

  /**
   * Checks the topic (creating it if {@code createPartitions > 0}) and reads or creates the log
   * id; see {@link TopicChecks} and {@link LogIdStore} for what is refused.
   */
  public static LogContext open(ClientSettings settings, Admin admin, String topic,
      String ownerName, boolean takeOver, String prefix, int createPartitions,
      short createReplicationFactor, Duration timeout) {
    int partitions = TopicChecks.check(admin, topic, createPartitions, createReplicationFactor,
        timeout);
    String logId = LogIdStore.readOrCreate(settings, admin, topic, prefix, partitions, timeout);
    return new LogContext(topic, partitions, logId, ownerName, takeOver, prefix, settings, admin,
        timeout);
  }

  /** Closes the admin client; a failure is added to {@code failure} if there is one. */
  public static void closeQuietly(Admin admin, Throwable failure) {
    try {
      admin.close(Duration.ofSeconds(5));
    } catch (RuntimeException e) {
      if (failure != null) {
        failure.addSuppressed(e);
      }
    }
  }

  /**
   * @throws IllegalArgumentException if the id is empty, longer than 255 UTF-8 bytes or not
   *     valid Unicode text
   */
  public static void validateCoordinatorId(String coordinatorId) {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    if (coordinatorId.isEmpty()) {
      throw new IllegalArgumentException("coordinatorId must not be empty");
    }
    ByteBuffer utf8;
    try {
      utf8 = StandardCharsets.UTF_8.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(coordinatorId));
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "coordinatorId must be valid Unicode text (it has an unpaired surrogate): "
              + coordinatorId, e);
    }
    if (utf8.remaining() > 255) {
      throw new IllegalArgumentException(
          "coordinatorId must be at most 255 UTF-8 bytes, was " + utf8.remaining());
    }
  }
}
