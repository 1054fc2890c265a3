package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Codecs#json}: what it encodes it decodes, also past Jackson's default read limits on
 * names (50,000 characters) and numbers (1,000 digits), which its writer does not have; a handle
 * or context that decoded at its checkpoint but not at recovery would make the checkpoint
 * unrecoverable.
 */
class JsonCodecReadLimitsTest {

  record Handle(Map<String, Integer> names, BigInteger number) {}

  @Test
  void longNamesAndNumbersRoundTrip() throws Exception {
    Codec<Handle> codec = Codecs.json(Handle.class);
    Handle handle = new Handle(Map.of("n".repeat(60_000), 1), BigInteger.TEN.pow(2_000));
    assertEquals(handle, codec.decode(codec.encode(handle), codec.version()));
  }
}
