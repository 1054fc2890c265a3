package dev.twophase.docs.snippets.codec;

import java.util.List;

/**
 * The handle of writing-a-participant.md's codec example, at version 2: the transaction's name and
 * the files it wrote (version 1 held only the name).
 */
public record Handle(String name, List<String> files) {}
