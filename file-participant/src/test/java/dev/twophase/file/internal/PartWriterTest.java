package dev.twophase.file.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One part file and its buffer, on a real file: records are encoded into the buffer and rewound,
 * a record larger than the buffer grows it and the memory is given back after it is written, and
 * a finished or discarded part returns its buffer to the pool for the next part.
 */
class PartWriterTest {

  @TempDir Path tmp;

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void rewoundBytesNeverReachTheFile() throws Exception {
    PartWriter part = new PartWriter("", tmp, new BufferPool(512, 4));
    part.write(bytes("kept\n"));
    part.recordWritten(5);
    part.create(tmp.resolve("p"), 0, true);
    int mark = part.position();
    part.write(bytes("dropped"));
    part.rewind(mark);
    part.write(bytes("kept too\n"));
    part.recordWritten(9);
    part.finish();
    assertEquals("kept\nkept too\n", Files.readString(tmp.resolve("p")));
    assertEquals(2, part.records());
    assertEquals(14, part.bytes());
    assertFalse(part.isOpen());
  }

  @Test
  void aRecordLargerThanTheBufferGrowsItAndIsWrittenWhole() throws Exception {
    BufferPool pool = new BufferPool(512, 4);
    PartWriter part = new PartWriter("", tmp, pool);
    part.create(tmp.resolve("p"), 0, true);
    byte[] big = new byte[5000];
    java.util.Arrays.fill(big, (byte) 'x');
    part.write(big);
    part.recordWritten(big.length);
    part.drainIfFull(big.length);
    part.write(bytes("after"));
    part.recordWritten(5);
    part.finish();
    byte[] expected = new byte[5005];
    System.arraycopy(big, 0, expected, 0, 5000);
    System.arraycopy(bytes("after"), 0, expected, 5000, 5);
    assertArrayEquals(expected, Files.readAllBytes(tmp.resolve("p")));
  }

  @Test
  void finishedAndDiscardedPartsGiveTheirBufferToTheNextPart() throws Exception {
    BufferPool pool = new BufferPool(512, 4);
    byte[] first = pool.take();
    pool.give(first);
    PartWriter a = new PartWriter("", tmp, pool); // takes `first` back
    a.create(tmp.resolve("a"), 0, true);
    a.write(bytes("a"));
    a.recordWritten(1);
    a.finish();
    assertSame(first, pool.take(), "the finished part's buffer was not given back");
    pool.give(first);

    PartWriter b = new PartWriter("", tmp, pool);
    b.discard(); // never created
    b.discard(); // again: given back once
    assertSame(first, pool.take());
    assertTrue(pool.take() != first, "a buffer was given back twice");
    pool.give(new byte[100]); // another size: dropped
    assertEquals(512, pool.take().length);
  }
}
