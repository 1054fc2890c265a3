package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.twophase.StateLog.CoordinatorLog;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

/**
 * The order of protocol calls across participants and the log (one checkpoint, all participants together), checked on mocks: pre-commit all, begin all, append, commit in
 * participant order, completion mark.
 */
class ProtocolOrderTest {

  private Participant<String, Void> a;
  private Participant<String, Void> b;

  @SuppressWarnings("unchecked")
  private static Participant<String, Void> participant(String prefix) throws Exception {
    Participant<String, Void> p = mock(Participant.class);
    when(p.transactionCodec()).thenReturn(Codecs.utf8());
    when(p.contextCodec()).thenReturn(Codecs.none());
    when(p.transactionTimeout()).thenReturn(Optional.empty());
    when(p.initializeUserContext(any())).thenReturn(Optional.empty());
    when(p.beginTransaction(any())).thenAnswer(inv -> {
      TransactionContext<?> ctx = inv.getArgument(0);
      return prefix + ctx.checkpointId();
    });
    when(p.preCommit(any())).thenAnswer(inv -> inv.getArgument(0));
    when(p.recoverAndAbort(any())).thenReturn(AbortOutcome.ABORTED);
    when(p.commit(any())).thenReturn(CommitOutcome.COMMITTED);
    when(p.recoverAndCommit(any())).thenReturn(CommitOutcome.COMMITTED);
    return p;
  }

  @BeforeEach
  void setUp() throws Exception {
    a = participant("a");
    b = participant("b");
  }

  @Test
  void selfDrivingCheckpointOrder() throws Exception {
    StateLog log = mock(StateLog.class);
    CoordinatorLog view = mock(CoordinatorLog.class);
    when(log.open("c")).thenReturn(view);
    when(view.ownerEpoch()).thenReturn(3L);
    when(view.logId()).thenReturn("log12345");
    Coordinator c = Coordinator.builder("c", log).participant("a", a).participant("b", b).build();
    c.checkpoint().awaitCommitted(Duration.ofSeconds(10));
    c.close();

    InOrder order = inOrder(a, b, view);
    order.verify(a).finishRecoveringContext(any());
    order.verify(b).finishRecoveringContext(any());
    order.verify(a).beginTransaction(any());
    order.verify(b).beginTransaction(any());
    order.verify(view).appendState(eq(0L), any()); // the initial record
    order.verify(a).preCommit("a1");
    order.verify(b).preCommit("b1");
    order.verify(a).beginTransaction(any());
    order.verify(b).beginTransaction(any());
    order.verify(view).appendState(eq(1L), any()); // the decision
    order.verify(a).commit("a1");
    order.verify(b).commit("b1");
    order.verify(view).appendCompletion(1L);
    order.verify(a).abort("a2"); // close: the open transactions were never decided
    order.verify(b).abort("b2");
    order.verify(a).close();
    order.verify(b).close();
    order.verify(view).close();
    verify(a, never()).recoverAndCommit(any());
  }

  @Test
  void embeddedCommitsOnlyOnNotificationInCreationOrder() throws Exception {
    EmbeddedCoordinator c = EmbeddedCoordinator.builder("c").participant("a", a).participant("b", b).build();
    c.snapshot(1);
    c.snapshot(2);
    verify(a, never()).commit(any());
    c.notifyCheckpointComplete(2);
    InOrder order = inOrder(a, b);
    order.verify(a).commit("a1");
    order.verify(b).commit("b1");
    order.verify(a).commit("a2");
    order.verify(b).commit("b2");
    c.close();
  }

  @Test
  void recoveryCommitsInCheckpointOrderThenAbortsThenFinishes() throws Exception {
    EmbeddedCoordinator first = EmbeddedCoordinator.builder("c").participant("a", a).participant("b", b).build();
    first.snapshot(1);
    byte[] state = first.snapshot(2); // pending: 1 and 2; open: a3, b3

    Participant<String, Void> a2 = participant("a");
    Participant<String, Void> b2 = participant("b");
    EmbeddedCoordinator second =
        EmbeddedCoordinator.builder("c").participant("a", a2).participant("b", b2).restoreFrom(state).build();
    InOrder order = inOrder(a2, b2);
    // every participant claims its names before recovery touches any handle
    order.verify(a2).startRecovery(argThat(ctx -> ctx.transactionNamePrefix().startsWith("c-a-")
        && ctx.ownerEpoch() == second.ownerEpoch()));
    order.verify(b2).startRecovery(any());
    order.verify(a2).recoverAndCommit("a1");
    order.verify(b2).recoverAndCommit("b1");
    order.verify(a2).recoverAndCommit("a2");
    order.verify(b2).recoverAndCommit("b2");
    order.verify(a2).recoverAndAbort("a3");
    order.verify(b2).recoverAndAbort("b3");
    order.verify(a2).finishRecoveringContext(any());
    order.verify(b2).finishRecoveringContext(any());
    order.verify(a2).beginTransaction(any());
    verify(a2, never()).initializeUserContext(any()); // a restored participant keeps its context
    assertEquals(2, second.lastCheckpointId());
    second.close();
  }
}
