/**
 * The state log conformance suite: {@link dev.twophase.testkit.statelog.StateLogConformanceSuite}
 * checks a {@link dev.twophase.StateLog} implementation against its contract (durable on return,
 * claims atomic with their read, owners fenced across JVMs, rising epochs, damage reported, compaction, a stable log id,
 * concurrent appends, release on close) on a real store, opened through a {@link
 * dev.twophase.testkit.statelog.StateLogFactory}.
 */
package dev.twophase.testkit.statelog;
