package dev.twophase.kafka.internal.group;

import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.annotation.Internal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a task's checkpoint stores of the application: the group and input partition it belongs to
 * and the next input offset to process. Stored as JSON, so that the state-log CLI shows it:
 * {@code {"group":"orders-app","topic":"orders","partition":3,"next":1200}}.
 */
@Internal
public record TaskPosition(String group, String topic, int partition, long next) {

  /** The codec of positions in the state log (version 1). */
  public static Codec<TaskPosition> codec() {
    @SuppressWarnings({"unchecked", "rawtypes"})
    Codec<Map<String, Object>> json = (Codec) Codecs.json(Map.class);
    return new Codec<>() {
      @Override
      public int version() {
        return 1;
      }

      @Override
      public byte[] encode(TaskPosition p) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("group", p.group());
        m.put("topic", p.topic());
        m.put("partition", p.partition());
        m.put("next", p.next());
        return json.encode(m);
      }

      @Override
      public TaskPosition decode(byte[] bytes, int version) throws Exception {
        if (version != 1) {
          throw new IllegalArgumentException("unknown task position version " + version
              + " (this release reads version 1): use a release of twophase-kafka that reads it");
        }
        Map<String, Object> m = json.decode(bytes, json.version());
        if (!(m.get("group") instanceof String group) || !(m.get("topic") instanceof String topic)
            || !(m.get("partition") instanceof Number partition) || !(m.get("next") instanceof Number next)) {
          throw new IllegalArgumentException("a task position needs group, topic, partition and next: " + m);
        }
        return new TaskPosition(group, topic, partition.intValue(), next.longValue());
      }
    };
  }
}
