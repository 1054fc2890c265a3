/**
 * twophase's JDBC participant: exactly-once rows in PostgreSQL, MariaDB, MySQL and H2 (prepared
 * transactions), or any database through XA. Only {@code dev.twophase.jdbc} is exported;
 * {@code dev.twophase.jdbc.internal} is not.
 */
module dev.twophase.jdbc {
  requires transitive dev.twophase.core;
  requires transitive java.sql;
  requires org.slf4j;

  exports dev.twophase.jdbc;
}
