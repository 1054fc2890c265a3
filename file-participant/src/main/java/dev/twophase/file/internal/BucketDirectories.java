package dev.twophase.file.internal;

import dev.twophase.annotation.Internal;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Path safety: every directory the participant touches is its base directory or a directory below
 * it, reached without following a symbolic link.
 *
 * <ul>
 *   <li>A bucket name is checked once, as text: a relative path of names separated by {@code /},
 *       without empty, {@code .} or {@code ..} segments, backslashes, drive letters or NULs.
 *   <li>Right before a directory below the base is used to create, rename or delete a file, each
 *       directory between the base and it is looked at without following links
 *       ({@link LinkOption#NOFOLLOW_LINKS}); a link, wherever it points, is refused with a
 *       {@link LinkRefusedException}. Missing directories are created one at a time, each checked
 *       again after its creation (another process may have made it, or a link, meanwhile).
 *   <li>The base directory itself is resolved to its real path once, when the participant is built.
 * </ul>
 *
 * <p>What this does not stop: the file system offers no way to create or rename a file by a path
 * whose directories are guaranteed not to change between the check and the use. A process that
 * can write into the base directory or a bucket directory, and swaps a directory for a link in
 * the microseconds between a check and the operation that follows it, can still redirect that one
 * operation (a part file created, renamed or deleted in the directory the link points to, under
 * the participant's own file names). Directories the participant creates are owner-only; keep the
 * base directory writable by its owner only, and such a process cannot exist.
 *
 * <p>Thread-safe: the application thread (writes) and the committer thread (commits) both use it.
 */
@Internal
public final class BucketDirectories {

  private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  /** At most this many bucket names are remembered as checked (memory bound). */
  private static final int MAX_REMEMBERED = 10_000;

  private final Path base;
  private final FileAttribute<?>[] directoryAttributes;
  /** Buckets whose names were checked, with their directories. */
  private final Map<String, Path> checked = new ConcurrentHashMap<>();

  /** {@code base} must be absolute and real (no link in it). */
  public BucketDirectories(Path base, boolean ownerOnly) {
    this.base = base;
    this.directoryAttributes = directoryAttributes(ownerOnly);
  }

  /** Permissions for a directory the participant creates: rwx------ if owner-only on POSIX. */
  public static FileAttribute<?>[] directoryAttributes(boolean ownerOnly) {
    return ownerOnly && POSIX
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
        : new FileAttribute<?>[0];
  }

  public Path base() {
    return base;
  }

  /**
   * The directory of {@code bucket}, after checking its name.
   *
   * @throws IllegalArgumentException if the name would leave the base directory
   */
  public Path resolve(String bucket) {
    if (bucket == null) {
      throw new IllegalArgumentException("the bucket assigner returned null; return \"\" for the base directory");
    }
    Path dir = checked.get(bucket);
    if (dir == null) {
      dir = check(base, bucket);
      if (checked.size() < MAX_REMEMBERED) {
        checked.put(bucket, dir);
      }
    }
    return dir;
  }

  private static Path check(Path base, String bucket) {
    if (bucket.isEmpty()) {
      return base;
    }
    if (bucket.startsWith("/") || bucket.indexOf('\\') >= 0 || bucket.indexOf('\0') >= 0
        || (bucket.length() > 1 && bucket.charAt(1) == ':')) {
      throw new IllegalArgumentException("bucket '" + bucket + "' is not a relative path of names "
          + "separated by '/'; it must stay inside " + base);
    }
    for (String segment : bucket.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException("bucket '" + bucket + "' has an empty, '.' or '..' "
            + "segment; buckets must stay inside " + base);
      }
    }
    Path dir = base.resolve(bucket).normalize();
    if (!dir.startsWith(base) || dir.equals(base)) {
      throw new IllegalArgumentException("bucket '" + bucket + "' leaves " + base);
    }
    return dir;
  }

  /**
   * Checks that no directory from below the base down to {@code dir} is a symbolic link. A missing
   * directory ends the check: nothing below it exists.
   *
   * @throws LinkRefusedException if one is a link
   * @throws IOException if one cannot be looked at, or is not a directory
   */
  public void checkNoLinks(Path dir) throws IOException {
    for (Path p : below(dir)) {
      BasicFileAttributes attributes;
      try {
        attributes = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException missing) {
        return;
      }
      requireDirectory(p, attributes);
    }
  }

  /**
   * Creates the missing directories from below the base down to {@code dir}, refusing links on the
   * way, and returns the ones it created, outermost first (their parents gained an entry).
   *
   * @throws LinkRefusedException if a directory on the way is a link
   * @throws IOException if one cannot be created, or something that is not a directory is in the way
   */
  public List<Path> createDirectories(Path dir) throws IOException {
    List<Path> created = List.of();
    for (Path p : below(dir)) {
      BasicFileAttributes attributes = attributesOrNull(p);
      if (attributes == null) {
        try {
          Files.createDirectory(p, directoryAttributes);
          if (created.isEmpty()) {
            created = new ArrayList<>();
          }
          created.add(p);
        } catch (FileAlreadyExistsException raced) {
          // made meanwhile (another participant sharing the base, or something else): check it
        }
        attributes = attributesOrNull(p);
        if (attributes == null) {
          throw new NoSuchFileException(p.toString(), null, "created, then gone at once");
        }
      }
      requireDirectory(p, attributes);
    }
    return created;
  }

  private static BasicFileAttributes attributesOrNull(Path p) throws IOException {
    try {
      return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException missing) {
      return null;
    }
  }

  private void requireDirectory(Path p, BasicFileAttributes attributes) throws IOException {
    if (attributes.isSymbolicLink()) {
      throw new LinkRefusedException(p, base);
    }
    if (!attributes.isDirectory()) {
      throw new NotDirectoryException(p.toString());
    }
  }

  /** The directories from the base's child down to {@code dir}, outermost first. */
  private List<Path> below(Path dir) {
    if (!dir.startsWith(base)) {
      throw new IllegalArgumentException(dir + " is not below " + base);
    }
    int depth = dir.getNameCount() - base.getNameCount();
    if (depth == 0) {
      return List.of();
    }
    List<Path> out = new ArrayList<>(depth);
    Path p = base;
    for (Path name : base.relativize(dir)) {
      p = p.resolve(name);
      out.add(p);
    }
    return out;
  }

  /** A directory below the base directory is a symbolic link: it is never followed. */
  public static final class LinkRefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final Path link;

    LinkRefusedException(Path link, Path base) {
      super(link + " is a symbolic link" + target(link) + "; the file participant follows no "
          + "symbolic links below its base directory " + base + ": replace the link with a directory");
      this.link = link;
    }

    public Path link() {
      return link;
    }

    private static String target(Path link) {
      try {
        return " (to " + Files.readSymbolicLink(link) + ")";
      } catch (IOException | UnsupportedOperationException e) {
        return "";
      }
    }
  }
}
