package dev.twophase.kafka.internal.statelog;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FencedException;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.StoredState;
import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * Claims a coordinator of a Kafka state log.
 *
 * <ol>
 *   <li>Unless the log takes coordinators over: read the coordinator's partition at {@code
 *       read_uncommitted} (which an open transaction does not hold back) and refuse the claim
 *       with {@link CoordinatorHeldException} if the last owner record says another owner holds
 *       it. Nothing was touched.
 *   <li>{@code initTransactions()} on the coordinator's transactional id: the broker completes or
 *       aborts the previous owner's transaction and fences its producer in every process.
 *   <li>Read the partition at {@code read_committed} to the end the broker reports now: what the
 *       previous owner committed is all there, and nothing more can come from it.
 *   <li>Unless the log takes coordinators over: refuse if the last committed owner record says
 *       another owner holds the coordinator. That happens only in a race (another process claimed
 *       it between step 1 and 2, or its release was aborted), and then this claim has fenced that
 *       holder already: {@code initTransactions()} cannot be undone. The message says so.
 *   <li>Put the last state together (damage is {@code StateLogCorruptedException}) and commit an
 *       owner record with the epoch one above the highest of the coordinator's records.
 * </ol>
 *
 * <p>Why the first look: {@code initTransactions()} fences whoever holds the id, so a claim that
 * is to be refused must find out before it. The look and the fencing are not atomic; the small
 * window between them is what step 4 reports. The refusal is an operational guard against
 * starting a coordinator twice; safety never rests on it, since every claim fences.
 */
@Internal
public final class Claim {

  private Claim() {}

  /**
   * Claims {@code coordinatorId}.
   *
   * @param onClose called when the view closes
   * @throws CoordinatorHeldException if another owner holds it and the log does not take over
   * @throws FencedException if another process claimed it at the same moment and fenced this one
   * @throws dev.twophase.StateLogCorruptedException if what the topic holds for it is damaged
   * @throws RetriableTwoPhaseException if the broker could not be read or written
   */
  public static CoordinatorView claim(LogContext ctx, String coordinatorId,
      Consumer<CoordinatorView> onClose) {
    TopicPartition tp = ctx.partitionOf(coordinatorId);
    String txId = ctx.transactionalId(coordinatorId);
    if (!ctx.takeOver) {
      CoordinatorRecords look = new CoordinatorRecords(ctx.topic, tp.partition(), coordinatorId,
          ctx.logId, false);
      try (PartitionReader r = PartitionReader.open(ctx.settings, ctx.admin, tp,
          IsolationLevel.READ_UNCOMMITTED, ctx.timeout)) {
        r.readToEnd(look::accept);
      }
      refuseIfHeld(ctx, coordinatorId, look.owner(), false);
    }
    CoordinatorRecords records = new CoordinatorRecords(ctx.topic, tp.partition(), coordinatorId,
        ctx.logId, true);
    KafkaProducer<byte[], byte[]> producer = ctx.newProducer(txId);
    boolean claimed = false;
    try (PartitionReader reader = PartitionReader.open(ctx.settings, ctx.admin, tp,
        IsolationLevel.READ_COMMITTED, ctx.timeout)) {
      producer.initTransactions();
      reader.readToEnd(records::accept);
      if (!ctx.takeOver) {
        refuseIfHeld(ctx, coordinatorId, records.owner(), true);
      }
      StoredState state = records.lastState();
      long epoch = records.maxEpoch() + 1;
      producer.beginTransaction();
      new Appender(producer, tp, coordinatorId, ctx.logId, epoch).owner(ctx.ownerName, false);
      producer.commitTransaction();
      CoordinatorView view = new CoordinatorView(ctx, coordinatorId, tp, txId, producer, epoch,
          state, records.lastCompletedCheckpointId(), onClose);
      claimed = true;
      return view;
    } catch (KafkaException e) {
      if (Failures.isFenced(e)) {
        throw new FencedException("coordinator '" + coordinatorId + "' on state log "
            + ctx.describe() + ": another process claimed it at the same moment and fenced this "
            + "claim (producer " + txId + "); two processes must not start one coordinator", e);
      }
      throw new RetriableTwoPhaseException("could not claim coordinator '" + coordinatorId
          + "' on state log " + ctx.describe() + " (producer " + txId + "): " + e + ". Nothing "
          + "was claimed (an earlier owner may have been fenced); open it again when the broker "
          + "answers", e);
    } finally {
      if (!claimed) {
        producer.close(Duration.ZERO);
      }
    }
  }

  private static void refuseIfHeld(LogContext ctx, String coordinatorId, OwnerRecord owner,
      boolean afterFencing) {
    if (owner == null || owner.released || owner.holder.equals(ctx.ownerName)) {
      return;
    }
    String message = "coordinator '" + coordinatorId + "' on state log " + ctx.describe()
        + " is held by '" + owner.holder + "' (epoch " + owner.epoch + "), which claimed it and "
        + "has not released it. If it runs, stop it or give this coordinator another id; if it is "
        + "gone, take the coordinator over (KafkaStateLog.Builder.takeOver(true)), which fences it "
        + "for good";
    if (afterFencing) {
      message += ". Note: '" + owner.holder + "' claimed it while this claim was under way, and "
          + "this claim has fenced it already (its next append fails): restart one of the two";
    }
    throw new CoordinatorHeldException(coordinatorId, owner.holder, owner.epoch, message);
  }
}
