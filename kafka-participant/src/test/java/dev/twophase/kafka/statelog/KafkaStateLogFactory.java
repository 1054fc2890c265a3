package dev.twophase.kafka.statelog;

import dev.twophase.StateLog;
import dev.twophase.kafka.KafkaStateLog;
import dev.twophase.testkit.statelog.StateLogFactory;
import java.util.Map;

/**
 * Opens a {@link KafkaStateLog} for the state log conformance suite, in the test's JVM or a child
 * JVM, from {@link KafkaStateLogConformanceIT#storeSettings()}: the broker, the topic and its
 * partition count. Each log gets the default owner name ({@code <pid>@<host>/<n>}), so that two
 * logs are two owners also within one JVM.
 */
public class KafkaStateLogFactory implements StateLogFactory {

  // Keys of a length divisible by 3: StateLogChild passes each setting to a child JVM as
  // base64(key)=base64(value) and splits at the first '=', so a key whose base64 is padded
  // ("topic" is "dG9waWM=") would be cut there.
  static final String BOOTSTRAP = "bootstrap";
  static final String TOPIC = "topicname";
  static final String PARTITIONS = "partcount";

  public KafkaStateLogFactory() {}

  @Override
  public StateLog open(Map<String, String> settings, boolean takeOver) {
    return KafkaStateLog.builder(Map.of("bootstrap.servers", settings.get(BOOTSTRAP)),
            settings.get(TOPIC))
        .createTopic(Integer.parseInt(settings.get(PARTITIONS)), (short) 1)
        .takeOver(takeOver)
        .build();
  }
}
