package dev.twophase.file.claims;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.FileTransaction;
import dev.twophase.file.RecordEncoders;
import dev.twophase.testing.TestContexts;
import java.nio.file.Path;
import java.util.List;

/**
 * A process that claims a coordinator's transactions in a directory ({@code args[0]}) as owner
 * epoch {@code args[1]} (of a coordinator on a shared state log if {@code args[2]} is
 * {@code shared}), says so on standard output, and holds the claim until it is killed.
 */
public final class ClaimHolderChild {

  private ClaimHolderChild() {}

  public static void main(String[] args) throws Exception {
    FileParticipant<CharSequence> files = FileParticipant.builder(Path.of(args[0]), RecordEncoders.lines()).build();
    boolean shared = args.length > 2 && args[2].equals("shared");
    files.finishRecoveringContext(TestContexts.<FileTransaction, Void>recovery("orders", "files", TestContexts.LOG_ID,
        Long.parseLong(args[1]), shared, List.of(), null, 0));
    System.out.println("claimed");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
