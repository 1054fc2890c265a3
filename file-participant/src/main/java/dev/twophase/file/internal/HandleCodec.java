package dev.twophase.file.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.twophase.Codec;
import dev.twophase.annotation.Internal;
import dev.twophase.file.FileTransaction;
import dev.twophase.file.FileTransaction.Part;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link FileTransaction} is stored in the state log: JSON,
 * {@code {"name":..., "begunAt":..., "parts":[{"bucket":..., "index":...}]}}, version 1.
 */
@Internal
public final class HandleCodec implements Codec<FileTransaction> {

  private static final ObjectMapper MAPPER = JsonMapper.builder().build();

  @Override
  public int version() {
    return 1;
  }

  @Override
  public byte[] encode(FileTransaction t) throws IOException {
    // Streamed, not built as a tree: this runs for every checkpoint (the begun and the prepared
    // handle go into each state record).
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 32 * t.parts().size());
    try (JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("name", t.name());
      g.writeNumberField("begunAt", t.begunAtMillis());
      g.writeArrayFieldStart("parts");
      for (Part p : t.parts()) {
        g.writeStartObject();
        g.writeStringField("bucket", p.bucket());
        g.writeNumberField("index", p.index());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    return out.toByteArray();
  }

  @Override
  public FileTransaction decode(byte[] bytes, int version) throws IOException {
    if (version != 1) {
      throw new IOException("file transaction handles of version " + version + " are unknown to "
          + "this release, which reads version 1");
    }
    JsonNode node = MAPPER.readTree(bytes);
    JsonNode name = node.get("name");
    if (name == null || !name.isTextual()) {
      throw new IOException("not a file transaction handle: " + node);
    }
    List<Part> parts = new ArrayList<>();
    for (JsonNode p : node.path("parts")) {
      parts.add(new Part(p.path("bucket").asText(), p.path("index").asInt()));
    }
    return new FileTransaction(name.asText(), node.path("begunAt").asLong(), parts);
  }
}
