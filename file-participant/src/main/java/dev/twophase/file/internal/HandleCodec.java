package dev.twophase.file.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.twophase.Codec;
import dev.twophase.file.FileTransaction;
import dev.twophase.file.FileTransaction.Part;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link FileTransaction} is stored in the state log: JSON,
 * {@code {"name":..., "begunAt":..., "parts":[{"bucket":..., "index":...}]}}, version 1.
 */
public final class HandleCodec implements Codec<FileTransaction> {

  private static final ObjectMapper MAPPER = JsonMapper.builder().build();

  @Override
  public int version() {
    return 1;
  }

  @Override
  public byte[] encode(FileTransaction t) throws IOException {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("name", t.name());
    node.put("begunAt", t.begunAtMillis());
    ArrayNode parts = node.putArray("parts");
    for (Part p : t.parts()) {
      parts.addObject().put("bucket", p.bucket()).put("index", p.index());
    }
    return MAPPER.writeValueAsBytes(node);
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
