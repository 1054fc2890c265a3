package dev.twophase.testkit.disk;

import dev.twophase.Participant;
import dev.twophase.TransactionContext;
import dev.twophase.testkit.ParticipantConformanceSuite;
import dev.twophase.testkit.SimulatedProcess;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite on the {@link DiskParticipant} that the crash harness's tests use, so that
 * those tests run a participant that is known to be right in one JVM. Its file channels come from
 * a factory that registers them with the simulated process: killing the process closes them, as
 * the operating system would.
 */
class DiskParticipantConformanceTest extends ParticipantConformanceSuite<DiskParticipant.Txn, Void, String> {

  @TempDir Path dir;

  /** Names of the transactions in the order their commit made them visible. */
  private final List<String> commitOrder = new CopyOnWriteArrayList<>();

  @Override
  protected Participant<DiskParticipant.Txn, Void> newParticipant(SimulatedProcess process) throws IOException {
    return DiskParticipant.builder(dir)
        .channels((file, options) -> process.track(FileChannel.open(file, options), FileChannel::close))
        .onPublished(commitOrder::add)
        .build();
  }

  /** The committed files in the order commits published them (a rename leaves no order to read). */
  @Override
  protected List<String> committedRecords() throws IOException {
    List<String> records = new ArrayList<>();
    for (String name : commitOrder) {
      records.addAll(Files.readAllLines(dir.resolve(name + DiskParticipant.COMMITTED)));
    }
    if (DiskParticipant.committedRecords(dir).size() != records.size()) {
      throw new AssertionError("committed files that no commit published: " + DiskParticipant.committedRecords(dir));
    }
    return records;
  }

  @Override
  protected String record(int i) {
    return "record-" + i;
  }

  @Override
  protected boolean lostTransactionSupported() {
    return true;
  }

  @Override
  protected void makeLost(DiskParticipant.Txn transaction) throws IOException {
    Files.delete(dir.resolve(transaction.name() + DiskParticipant.PREPARED));
  }

  @Override
  protected boolean inProgressCheckSupported() {
    return true;
  }

  @Override
  protected boolean isInProgress(DiskParticipant.Txn transaction) throws IOException {
    return DiskParticipant.inProgress(dir).contains(transaction.name());
  }

  @Override
  protected Optional<DiskParticipant.Txn> handleNeverBegun(TransactionContext<Void> context) {
    return Optional.of(new DiskParticipant.Txn(context.transactionName()));
  }
}
