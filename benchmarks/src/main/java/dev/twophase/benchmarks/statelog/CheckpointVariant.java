package dev.twophase.benchmarks.statelog;

import dev.twophase.Checkpoint;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.benchmarks.statelog.TimedCrew.Probe;
import dev.twophase.benchmarks.statelog.TimedCrew.Variant;
import dev.twophase.benchmarks.statelog.TimedCrew.Worker;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.kafka.KafkaParticipant;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Checkpoints of real coordinators on one log: per thread a {@link Coordinator} {@code
 * <prefix>-<thread>} with a file participant (its own directory) and a Kafka participant (its own
 * transactional ids, one shared topic); per operation one 100-byte record to each and {@code
 * checkpoint()}, which returns once the decision is durable in the log. The commits run on the
 * coordinator's committer thread, at most two checkpoints pending ({@code maxPendingCheckpoints(2,
 * BLOCK)}: a checkpoint waits for the commit two before it); each turn ends by waiting for the last
 * commit. The latency is {@code checkpoint()}'s.
 */
final class CheckpointVariant implements Variant {

  private static final Duration COMMIT_TIMEOUT = Duration.ofMinutes(1);
  private static final byte[] RECORD = new byte[100];
  private static final String LINE;

  static {
    Arrays.fill(RECORD, (byte) 'x');
    LINE = "x".repeat(99);
  }

  private final StateLog log;
  private final String prefix;
  private final Path outputDir;
  private final String bootstrapServers;
  private final String topic;
  private final Probe probe;

  CheckpointVariant(StateLog log, String prefix, Path outputDir, String bootstrapServers, String topic) {
    this.log = log;
    this.prefix = prefix;
    this.outputDir = outputDir;
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
    this.probe = SharedLogs.probe(log);
  }

  @Override
  public Probe probe() {
    return probe;
  }

  @Override
  public Worker worker(int thread) {
    String id = prefix + "-" + thread;
    FileParticipant<CharSequence> files =
        FileParticipant.builder(outputDir.resolve(id), RecordEncoders.lines()).build();
    KafkaParticipant<byte[]> kafka = KafkaParticipant.<byte[]>builder(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ProducerConfig.LINGER_MS_CONFIG, 5))
        .records(value -> new ProducerRecord<>(topic, value))
        .transactionalIdPrefix("cp-" + id)
        .build();
    Coordinator coordinator;
    try {
      coordinator = Coordinator.builder(id, log)
          .participant("files", files)
          .participant("kafka", kafka)
          .config(CoordinatorConfig.custom()
              .maxPendingCheckpoints(2, CoordinatorConfig.WhenPendingFull.BLOCK).build())
          .build();
    } catch (RuntimeException | Error e) {
      try {
        files.close();
      } finally {
        kafka.close();
      }
      throw e;
    }
    Output<CharSequence> fileOut = coordinator.output(files);
    Output<byte[]> kafkaOut = coordinator.output(kafka);
    return new Worker() {
      private Checkpoint last;

      @Override
      public void op() {
        fileOut.write(LINE);
        kafkaOut.write(RECORD);
        last = coordinator.checkpoint();
      }

      @Override
      public void endTurn() {
        if (last != null) {
          last.awaitCommitted(COMMIT_TIMEOUT);
        }
      }

      @Override
      public void close() {
        coordinator.close(); // closes the participants, releases the coordinator in the log
      }
    };
  }
}
