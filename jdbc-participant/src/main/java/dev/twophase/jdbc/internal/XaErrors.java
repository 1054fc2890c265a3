package dev.twophase.jdbc.internal;

import java.sql.SQLException;
import java.sql.SQLTransientException;
import javax.transaction.xa.XAException;

/** Names XA error codes and turns an {@link XAException} into an {@link SQLException}. */
final class XaErrors {

  private XaErrors() {}

  static String describe(XAException e) {
    String code = switch (e.errorCode) {
      case XAException.XAER_NOTA -> "XAER_NOTA (unknown xid)";
      case XAException.XAER_RMFAIL -> "XAER_RMFAIL (resource manager unavailable)";
      case XAException.XAER_RMERR -> "XAER_RMERR (resource manager error)";
      case XAException.XAER_PROTO -> "XAER_PROTO (call out of sequence)";
      case XAException.XAER_INVAL -> "XAER_INVAL (invalid arguments)";
      case XAException.XAER_DUPID -> "XAER_DUPID (xid already exists)";
      case XAException.XAER_OUTSIDE -> "XAER_OUTSIDE (work outside the global transaction)";
      case XAException.XA_HEURCOM -> "XA_HEURCOM (heuristically committed)";
      case XAException.XA_HEURRB -> "XA_HEURRB (heuristically rolled back)";
      case XAException.XA_HEURMIX -> "XA_HEURMIX (heuristically mixed)";
      case XAException.XA_RETRY -> "XA_RETRY";
      default -> e.errorCode >= XAException.XA_RBBASE && e.errorCode <= XAException.XA_RBEND
          ? "XA_RB* " + e.errorCode + " (rolled back)" : "XA error " + e.errorCode;
    };
    return e.getMessage() == null ? code : code + ": " + e.getMessage();
  }

  static SQLException toSql(String what, XAException e) {
    String message = what + " failed: " + describe(e);
    SQLException sql = e.errorCode == XAException.XAER_RMFAIL || e.errorCode == XAException.XA_RETRY
        ? new SQLTransientException(message, e)
        : new SQLException(message, e);
    return sql;
  }
}
