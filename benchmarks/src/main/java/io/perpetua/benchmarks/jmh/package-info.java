/**
 * JMH micro-benchmarks of the agent's rewriting: the cost of the residency checks on resident
 * objects, rewritten against plain, in the same run (see {@link io.perpetua.benchmarks.jmh.AccessBenchmark}).
 * {@code model} holds the benchmarked code, loaded both plain and rewritten.
 */
package io.perpetua.benchmarks.jmh;
