package dev.twophase.demo;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The demo's command line: {@code java -jar demo/target/twophase-demo.jar [options]}. See
 * {@code docs/demo.md}.
 */
public final class DemoMain {

  static final String USAGE = """
      usage: java -jar demo/target/twophase-demo.jar [options]

      Runs a job that writes every input record to four sinks through one twophase coordinator (two
      file sinks, an embedded H2 table, a Kafka topic on a broker the demo starts in its own JVM), kills
      the job's JVM with SIGKILL at a protocol point, recovers it in a second JVM, and checks that every
      sink holds every record exactly once. Exit status 0 if they do, 1 if not, 2 on bad options.

        --dir PATH               work directory (default: twophase-demo-run next to the jar, else a
                                 temporary one); emptied first if it holds an earlier demo run
        --records N              input records (default 200000)
        --checkpoint-every K     records per checkpoint (default 10000)
        --part-records P         records per part file before a file sink rolls to a new one (default 5000)
        --crash-at SPEC          POINT or POINT:HIT, where the first JVM is killed (default AFTER_LOG_APPEND
                                 in the middle of the run); a comma list for one kill per JVM, e.g.
                                 AFTER_LOG_APPEND,DURING_RECOVERY_COMMIT:1; 'random'; or 'none'. Points:
                                 BEFORE_PRE_COMMIT BETWEEN_PRE_COMMITS AFTER_PRE_COMMITS DURING_LOG_APPEND
                                 AFTER_LOG_APPEND BETWEEN_COMMITS AFTER_COMMITS DURING_RECOVERY_COMMIT
                                 DURING_COMPACTION
        --seed S                 seed for --crash-at random (default: printed, from the clock)
        --child-timeout SECONDS  kill a child JVM that runs longer (default 600)
        --workers N              group mode: the orders in a topic of 6 partitions, read by N worker JVMs
                                 (2 to 6) of one consumer group that write them to files and a topic; one
                                 worker is killed with SIGKILL, the others take its tasks over
        --help                   this text\
      """;

  private DemoMain() {}

  public static void main(String[] args) throws Exception {
    Demo.Options options;
    try {
      options = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println();
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    if (options == null) {
      System.out.println(USAGE);
      return;
    }
    Demo.Result result;
    try {
      result = Demo.run(options, System.out);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    } catch (Demo.StoppedException e) {
      System.err.println(e.getMessage());
      return; // the JVM is exiting already
    } catch (Exception e) { // the broker did not start, the work directory cannot be written, ...
      System.err.println("exactly-once: not checked, the demo failed: " + e);
      e.printStackTrace();
      System.exit(1);
      return;
    }
    System.exit(result.ok() ? 0 : 1);
  }

  /** The options, or null for {@code --help}. */
  static Demo.Options parse(String[] args) {
    Demo.Options o = Demo.Options.defaults();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String value = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        value = arg.substring(eq + 1);
        arg = arg.substring(0, eq);
      }
      if (arg.equals("--help") || arg.equals("-h")) {
        return null;
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(arg.startsWith("--") ? arg + " needs a value" : "unknown argument " + arg);
        }
        value = args[++i];
      }
      switch (arg) {
        case "--dir" -> o = o.withDir(Path.of(value));
        case "--records" -> o = o.withRecords(number(arg, value));
        case "--checkpoint-every" -> o = o.withCheckpointEvery(intNumber(arg, value));
        case "--part-records" -> o = o.withPartRecords(intNumber(arg, value));
        case "--crash-at" -> o = o.withCrashAt(value);
        case "--seed" -> o = o.withSeed(number(arg, value));
        case "--child-timeout" -> o = o.withChildTimeout(Duration.ofSeconds(number(arg, value)));
        case "--workers" -> o = o.withWorkers(intNumber(arg, value));
        default -> throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    return o;
  }

  private static int intNumber(String option, String value) {
    long n = number(option, value);
    if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(option + " is out of range: " + value);
    }
    return (int) n;
  }

  private static long number(String option, String value) {
    try {
      return Long.parseLong(value.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a number, got '" + value + "'");
    }
  }
}
