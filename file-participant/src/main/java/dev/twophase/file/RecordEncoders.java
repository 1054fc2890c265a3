package dev.twophase.file;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.twophase.annotation.PublicEvolving;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Ready-made {@link RecordEncoder}s. */
@PublicEvolving
public final class RecordEncoders {

  private RecordEncoders() {}

  /** Raw bytes, written as they are (no framing). */
  public static RecordEncoder<byte[]> bytes() {
    return (record, out) -> out.write(record);
  }

  /**
   * One line of UTF-8 text per record, ended by {@code \n}. A record that contains a line break is
   * refused: it would read back as two records.
   */
  public static RecordEncoder<CharSequence> lines() {
    return RecordEncoders::writeLine;
  }

  /**
   * One JSON document per line (JSON Lines), through Jackson. A record Jackson cannot serialise is
   * refused with Jackson's reason.
   */
  public static <T> RecordEncoder<T> jsonLines() {
    return new JsonLines<>(JsonMapper.builder().build());
  }

  private static void writeLine(CharSequence record, OutputStream out) throws IOException {
    String s = record.toString();
    if (s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
      throw new IllegalArgumentException(
          "a line record must not contain a line break: "
              + (s.length() > 80 ? s.substring(0, 80) + "..." : s).replace("\n", "\\n").replace("\r", "\\r"));
    }
    out.write(s.getBytes(StandardCharsets.UTF_8));
    out.write('\n');
  }

  private static final class JsonLines<T> implements RecordEncoder<T> {
    private final ObjectMapper mapper;

    JsonLines(ObjectMapper mapper) {
      this.mapper = mapper;
    }

    @Override
    public void encode(T record, OutputStream out) throws IOException {
      byte[] json;
      try {
        json = mapper.writeValueAsBytes(record);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException(
            "record of " + record.getClass().getName() + " cannot be written as JSON: " + e.getOriginalMessage(), e);
      }
      out.write(json); // Jackson escapes line breaks inside strings: one document, one line
      out.write('\n');
    }
  }
}
