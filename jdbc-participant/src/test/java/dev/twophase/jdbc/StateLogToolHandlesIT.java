package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state-log CLI shows a JDBC participant's handles as text, as it shows the others'. */
class StateLogToolHandlesIT {

  @TempDir
  Path tmp;

  @Test
  void jdbcHandlesAreShownReadably() throws Exception {
    TestDatabase db = TestDatabase.h2Dialect();
    JdbcParticipant<Object> participant = db.builder().get().build();
    String current;
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"));
        Coordinator coordinator = Coordinator.builder("cli-handles", log).participant("db", participant).build()) {
      coordinator.checkpoint();
      current = coordinator.currentTransaction(participant).name();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    // dev.twophase.cli is not exported from the core module (users run it as a program), so it is
    // called the way a launcher would
    int status = (int) Class.forName("dev.twophase.cli.StateLogTool")
        .getMethod("run", String[].class, PrintStream.class, PrintStream.class, Clock.class)
        .invoke(null, new String[] {tmp.resolve("log").toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
            Clock.systemUTC());
    String shown = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
    assertTrue(shown.contains("{\"name\":\"" + current + "\",\"empty\":false}"), shown);
    assertFalse(shown.contains("base64:"), shown);
  }
}
