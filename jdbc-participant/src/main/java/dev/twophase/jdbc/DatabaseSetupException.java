package dev.twophase.jdbc;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.annotation.PublicEvolving;

/**
 * The database cannot keep the participant's promises as it is set up: prepared transactions
 * disabled ({@code max_prepared_transactions = 0}), a privilege missing ({@code XA_RECOVER_ADMIN}),
 * an H2 database that delays or loses its commits, a connection in auto-commit mode. The message
 * names the setting and the fix. Retrying does not help: change the setting, then start again.
 */
@PublicEvolving
public class DatabaseSetupException extends FatalTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public DatabaseSetupException(String message) {
    super(message);
  }

  public DatabaseSetupException(String message, Throwable cause) {
    super(message, cause);
  }
}
