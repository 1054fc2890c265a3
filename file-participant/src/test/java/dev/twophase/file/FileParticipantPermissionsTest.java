package dev.twophase.file;

import static dev.twophase.file.FileParticipantTest.context;
import static dev.twophase.file.FileParticipantTest.txnName;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Owner-only permissions on POSIX file systems: part files rw-------, every directory the
 * participant creates (the base directory and bucket directories) rwx------, before and after
 * commit; with {@code ownerOnlyPermissions(false)} the process's umask decides, exactly as for any
 * other file the process creates.
 */
class FileParticipantPermissionsTest {

  @TempDir Path tmp;

  @BeforeEach
  void posixOnly() {
    Assumptions.assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"),
        "permissions are POSIX only");
  }

  /** Runs one transaction with a record in the base and one in bucket x/y, up to pre-commit. */
  static FileTransaction preCommitted(FileParticipant<CharSequence> p) throws Exception {
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "base");
    W.write(p, t, "bucket");
    t = p.preCommit(t);
    return t;
  }

  static FileParticipant.Builder<CharSequence> builder(Path base) {
    return FileParticipant.builder(base, RecordEncoders.lines())
        .bucketAssigner(r -> r.toString().equals("bucket") ? "x/y" : "");
  }

  @Test
  void filesAndCreatedDirectoriesAreOwnerOnly() throws Exception {
    Path base = tmp.resolve("new/out"); // both levels created by build()
    FileParticipant<CharSequence> p = builder(base).build();
    FileTransaction t = preCommitted(p);
    Set<PosixFilePermission> file = Dirs.perms("rw-------");
    Set<PosixFilePermission> dir = Dirs.perms("rwx------");
    String n = txnName(0);
    assertEquals(file, Dirs.perms(base.resolve(".part-" + n + "-0.inprogress")));
    assertEquals(file, Dirs.perms(base.resolve("x/y/.part-" + n + "-1.inprogress")));
    assertEquals(dir, Dirs.perms(base.resolve("x")), "bucket directory x");
    assertEquals(dir, Dirs.perms(base.resolve("x/y")), "bucket directory x/y");
    assertEquals(dir, Dirs.perms(base), "the base directory build() created");
    assertEquals(dir, Dirs.perms(tmp.resolve("new")), "the base's parent build() created");
    p.commit(t);
    assertEquals(file, Dirs.perms(base.resolve("part-" + n + "-0")));
    assertEquals(file, Dirs.perms(base.resolve("x/y/part-" + n + "-1")));
  }

  @Test
  void anExistingBaseDirectoryKeepsItsPermissions() throws Exception {
    Path base = Files.createDirectory(tmp.resolve("out"));
    Files.setPosixFilePermissions(base, Dirs.perms("rwxr-x---"));
    FileParticipant<CharSequence> p = builder(base).build();
    preCommitted(p);
    assertEquals(Dirs.perms("rwxr-x---"), Dirs.perms(base));
    assertEquals(Dirs.perms("rwx------"), Dirs.perms(base.resolve("x")));
  }

  @Test
  void withoutOwnerOnlyTheUmaskDecides() throws Exception {
    Path referenceFile = Files.createFile(tmp.resolve("reference-file"));
    Path referenceDir = Files.createDirectory(tmp.resolve("reference-dir"));
    Assumptions.assumeFalse(Dirs.perms(referenceFile).equals(Dirs.perms("rw-------")),
        "the umask already makes files owner-only; the test could not tell the settings apart");
    Path base = tmp.resolve("new/out");
    FileParticipant<CharSequence> p = builder(base).ownerOnlyPermissions(false).build();
    FileTransaction t = preCommitted(p);
    String n = txnName(0);
    assertEquals(Dirs.perms(referenceFile), Dirs.perms(base.resolve(".part-" + n + "-0.inprogress")));
    assertEquals(Dirs.perms(referenceDir), Dirs.perms(base.resolve("x")));
    assertEquals(Dirs.perms(referenceDir), Dirs.perms(base.resolve("x/y")));
    assertEquals(Dirs.perms(referenceDir), Dirs.perms(base));
    p.commit(t);
    assertEquals(Dirs.perms(referenceFile), Dirs.perms(base.resolve("x/y/part-" + n + "-1")));
  }
}
