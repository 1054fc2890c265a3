package dev.twophase.file.claims;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.FileTransaction;
import dev.twophase.file.RecordEncoders;
import dev.twophase.testing.TestContexts;
import java.nio.file.Path;
import java.util.List;

/**
 * A process that claims a coordinator's transactions in a directory ({@code args[0]}) as owner
 * epoch {@code args[1]}, says so on standard output, and holds the claim until it is killed.
 */
public final class ClaimHolderChild {

  private ClaimHolderChild() {}

  public static void main(String[] args) throws Exception {
    FileParticipant<CharSequence> files = FileParticipant.builder(Path.of(args[0]), RecordEncoders.lines()).build();
    files.finishRecoveringContext(TestContexts.<FileTransaction, Void>recovery("orders", "files",
        Long.parseLong(args[1]), List.of(), 0));
    System.out.println("claimed");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
