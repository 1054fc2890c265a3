package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import java.sql.SQLException;

/** Describes an SQL error with its SQLSTATE and vendor code, as the docs' troubleshooting names them. */
@Internal
public final class SqlErrors {

  private SqlErrors() {}

  public static String describe(SQLException e) {
    StringBuilder b = new StringBuilder();
    if (e.getSQLState() != null) {
      b.append("SQLSTATE ").append(e.getSQLState());
    }
    if (e.getErrorCode() != 0) {
      b.append(b.length() > 0 ? ", " : "").append("error ").append(e.getErrorCode());
    }
    if (b.length() > 0) {
      b.append(": ");
    }
    return b.append(e.getMessage()).toString();
  }
}
