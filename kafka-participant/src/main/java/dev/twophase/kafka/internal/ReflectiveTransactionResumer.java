package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.kafka.IncompatibleKafkaClientException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The one place that touches {@code kafka-clients} internals: the producer's
 * {@code TransactionManager}. Everything is looked up once, in {@link #load()}, which fails with
 * {@link IncompatibleKafkaClientException} naming the client version and the missing member if the
 * client on the class path does not have it, so that an incompatible upgrade fails at start-up
 * rather than when a crash has to be recovered.
 *
 * <p>What it touches, in the transaction manager of {@code KafkaProducer}: the fields
 * {@code producerIdAndEpoch}, {@code isTransactionV2Enabled}, {@code transactionStarted} and
 * {@code currentState}, the private method {@code transitionTo(State)}, and the constructor of
 * {@code ProducerIdAndEpoch(long, short)} (its package moved in 4.4; it is found through the
 * field's type). Resuming moves a fresh, uninitialized transaction manager through
 * {@code INITIALIZING -> READY -> IN_TRANSACTION}, the transitions {@code initTransactions()} and
 * {@code beginTransaction()} would make, with the crashed producer's id, epoch and
 * transaction-version-2 flag in place of new ones, and marks the transaction started so that the
 * commit sends its {@code EndTxn} request to the broker. Verified against kafka-clients 4.4 and
 * brokers at transaction.version 1 and 2 by {@code ResumeTransactionVersionIT}.
 *
 * <p>Thread-safe: state is read and written holding the transaction manager's monitor, the lock
 * its own synchronized methods take.
 */
@Internal
public final class ReflectiveTransactionResumer implements TransactionResumer {

  private static final String TM = "org.apache.kafka.clients.producer.internals.TransactionManager";

  private final Field transactionManager;
  private final Field producerIdAndEpoch;
  private final Field producerId;
  private final Field epoch;
  private final Constructor<?> newProducerIdAndEpoch;
  private final Field transactionV2;
  private final Field transactionStarted;
  private final Field currentState;
  private final Method transitionTo;
  private final Object uninitialized;
  private final Object initializing;
  private final Object ready;
  private final Object inTransaction;

  private ReflectiveTransactionResumer(Class<?> producerClass) throws ReflectiveOperationException {
    transactionManager = field(producerClass, "transactionManager");
    Class<?> tm = transactionManager.getType();
    if (!tm.getName().equals(TM)) {
      throw new NoSuchFieldException("KafkaProducer.transactionManager is a " + tm.getName() + ", not " + TM);
    }
    producerIdAndEpoch = field(tm, "producerIdAndEpoch");
    Class<?> pidAndEpoch = producerIdAndEpoch.getType();
    producerId = typed(field(pidAndEpoch, "producerId"), long.class);
    epoch = typed(field(pidAndEpoch, "epoch"), short.class);
    newProducerIdAndEpoch = pidAndEpoch.getDeclaredConstructor(long.class, short.class);
    newProducerIdAndEpoch.setAccessible(true);
    transactionV2 = typed(field(tm, "isTransactionV2Enabled"), boolean.class);
    transactionStarted = typed(field(tm, "transactionStarted"), boolean.class);
    currentState = field(tm, "currentState");
    Class<?> state = currentState.getType();
    if (!state.isEnum()) {
      throw new NoSuchFieldException(TM + ".currentState is not an enum");
    }
    transitionTo = tm.getDeclaredMethod("transitionTo", state);
    transitionTo.setAccessible(true);
    uninitialized = constant(state, "UNINITIALIZED");
    initializing = constant(state, "INITIALIZING");
    ready = constant(state, "READY");
    inTransaction = constant(state, "IN_TRANSACTION");
  }

  /**
   * Looks up every internal member this class needs.
   *
   * @throws IncompatibleKafkaClientException if the client on the class path lacks one
   */
  public static ReflectiveTransactionResumer load() {
    return load(KafkaProducer.class);
  }

  /** {@link #load()} on another producer class: how the check reports a client that lacks a member. */
  static ReflectiveTransactionResumer load(Class<?> producerClass) {
    try {
      return new ReflectiveTransactionResumer(producerClass);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      throw new IncompatibleKafkaClientException(
          "kafka-clients " + clientVersion() + " on the class path cannot resume a pre-committed transaction in a new "
              + "process: " + e + ". The Kafka participant needs the producer internals of kafka-clients 4.x as of "
              + "4.4.0 (the version it is built and tested with); put that version on the class path", e);
    }
  }

  /**
   * The version of {@code kafka-clients} on the class path, from the resource
   * {@code kafka/kafka-version.properties} its jar carries (read directly: the class that reports it
   * moved between 4.x releases too).
   */
  public static String clientVersion() {
    try (InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      if (in == null) {
        return "(unknown version)";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "(unknown version)").trim();
    } catch (IOException | RuntimeException e) {
      return "(unknown version)";
    }
  }

  @Override
  public ProducerState capture(KafkaProducer<?, ?> producer) {
    Object tm = manager(producer);
    try {
      synchronized (tm) {
        Object ids = producerIdAndEpoch.get(tm);
        return new ProducerState(
            producerId.getLong(ids), epoch.getShort(ids), transactionV2.getBoolean(tm), transactionStarted.getBoolean(tm));
      }
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read the producer's transaction state", e);
    }
  }

  @Override
  public void resume(KafkaProducer<?, ?> fresh, ProducerState state) {
    Objects.requireNonNull(state, "state");
    if (!state.started()) {
      throw new IllegalArgumentException("an empty transaction was never started on the broker; nothing to resume: " + state);
    }
    Object tm = manager(fresh);
    try {
      synchronized (tm) {
        Object now = currentState.get(tm);
        if (now != uninitialized) {
          throw new IllegalStateException(
              "resume needs a producer on which initTransactions() was not called; its transaction state is " + now);
        }
        transitionTo.invoke(tm, initializing);
        producerIdAndEpoch.set(tm, newProducerIdAndEpoch.newInstance(state.producerId(), state.epoch()));
        transactionV2.setBoolean(tm, state.transactionV2());
        transitionTo.invoke(tm, ready);
        transitionTo.invoke(tm, inTransaction);
        transactionStarted.setBoolean(tm, true);
      }
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("the producer refused to resume " + state + ": " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot resume " + state, e);
    }
  }

  private Object manager(KafkaProducer<?, ?> producer) {
    try {
      Object tm = transactionManager.get(Objects.requireNonNull(producer, "producer"));
      if (tm == null) {
        throw new IllegalArgumentException("the producer is not transactional (no transactional.id)");
      }
      return tm;
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read the producer's transaction manager", e);
    }
  }

  private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
    Field f = owner.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }

  private static Field typed(Field f, Class<?> type) throws NoSuchFieldException {
    if (f.getType() != type) {
      throw new NoSuchFieldException(f.getDeclaringClass().getName() + "." + f.getName() + " is a " + f.getType()
          + ", not a " + type);
    }
    return f;
  }

  private static Object constant(Class<?> enumType, String name) throws NoSuchFieldException {
    for (Object c : enumType.getEnumConstants()) {
      if (((Enum<?>) c).name().equals(name)) {
        return c;
      }
    }
    throw new NoSuchFieldException(enumType.getName() + "." + name);
  }
}
