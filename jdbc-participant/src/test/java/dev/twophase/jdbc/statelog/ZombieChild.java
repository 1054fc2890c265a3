package dev.twophase.jdbc.statelog;

import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.TwoPhaseException;
import dev.twophase.jdbc.JdbcStateLog;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The child JVM of {@link JdbcStateLogZombieIT}: claims {@code p0} as owner {@code zombie} on the
 * table of its arguments (a JDBC URL with its user, a table), appends checkpoint 1, answers
 * {@code claimed}, then appends the checkpoint of each line it reads and answers {@code ok},
 * {@code fenced <message>} or {@code failed <message>}. It never closes its log: it is killed.
 */
public final class ZombieChild {

  private ZombieChild() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    JdbcStateLog log = JdbcStateLog.builder(JdbcStateLogFactory.dataSource(args[0]))
        .table(args[1]).ownerName("zombie").build();
    StateLog.CoordinatorLog view = log.open("p0");
    view.appendState(1, new byte[] {1});
    out.println("claimed " + view.ownerEpoch());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      long checkpoint = Long.parseLong(line.trim());
      try {
        view.appendState(checkpoint, new byte[] {(byte) checkpoint});
        out.println("ok");
      } catch (FencedException e) {
        out.println("fenced " + e.getMessage());
      } catch (TwoPhaseException e) {
        out.println("failed " + e.getMessage());
      }
    }
  }
}
