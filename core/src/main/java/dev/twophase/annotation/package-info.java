/**
 * The stability of twophase's public API, in the manner of Apache Flink's annotations: every
 * public type of an exported package carries one of {@link dev.twophase.annotation.Public},
 * {@link dev.twophase.annotation.PublicEvolving} or {@link dev.twophase.annotation.Experimental};
 * public types of the engine carry {@link dev.twophase.annotation.Internal}.
 */
package dev.twophase.annotation;
