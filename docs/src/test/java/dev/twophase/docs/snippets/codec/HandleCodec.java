package dev.twophase.docs.snippets.codec;

import dev.twophase.Codec;
import dev.twophase.Codecs;
import java.nio.charset.StandardCharsets;
import java.util.List;

// snippet: handle-codec
/** Writes version 2 (JSON); still reads version 1, a bare transaction name in UTF-8. */
final class HandleCodec implements Codec<Handle> {
  private final Codec<Handle> json = Codecs.json(Handle.class, 2);

  @Override
  public int version() {
    return 2;
  }

  @Override
  public byte[] encode(Handle handle) throws Exception {
    return json.encode(handle);
  }

  @Override
  public Handle decode(byte[] bytes, int version) throws Exception {
    return switch (version) {
      case 1 -> new Handle(new String(bytes, StandardCharsets.UTF_8), List.of());
      case 2 -> json.decode(bytes, 2);
      // a newer release wrote it: refuse rather than guess
      default -> throw new IllegalArgumentException("handle version " + version + " is newer than 2");
    };
  }
}
// end snippet
