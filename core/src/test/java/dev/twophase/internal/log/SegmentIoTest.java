package dev.twophase.internal.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SegmentIoTest {

  private static final long MIB = 1024 * 1024;

  @Test
  void zerosAheadReachTheNextChunkWhenTheyFit() {
    assertEquals(MIB - 100, SegmentIo.zerosAhead(100, MIB, 100 * MIB));
    assertEquals(MIB, SegmentIo.zerosAhead(MIB, MIB, 100 * MIB));
    assertEquals(MIB - 100, SegmentIo.zerosAhead(100, MIB, -1), "free space unknown");
  }

  @Test
  void zerosAheadTakeAtMostHalfOfTheFreeSpaceIn4KiBSteps() {
    assertEquals(300 * 1024, SegmentIo.zerosAhead(100, MIB, 600 * 1024));
    assertEquals(4096, SegmentIo.zerosAhead(100, MIB, 3 * 4096));
    assertEquals(0, SegmentIo.zerosAhead(100, MIB, 8191));
    assertEquals(0, SegmentIo.zerosAhead(100, MIB, 0));
  }
}
