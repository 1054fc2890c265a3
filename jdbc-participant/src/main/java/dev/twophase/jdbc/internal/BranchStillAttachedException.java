package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import java.sql.SQLTransientException;

/**
 * The database lists a prepared transaction but refuses to finish it from this session: another
 * session still holds it (MariaDB answers "unknown XID" until the session that prepared it ends).
 * Only a later attempt can decide; never read it as "not prepared".
 */
@Internal
public final class BranchStillAttachedException extends SQLTransientException {

  private static final long serialVersionUID = 1L;

  public BranchStillAttachedException(String message, Throwable cause) {
    super(message, cause);
  }
}
