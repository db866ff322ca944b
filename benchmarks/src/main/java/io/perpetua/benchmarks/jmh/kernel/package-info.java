/**
 * The model of the kernel benchmarks ({@code FaultInBenchmark}, {@code Oo1CommitBenchmark},
 * {@code CommitBenchmark}): OO1 parts, connections and a chunked index, a flat {@code Item}, and
 * {@code Graph}, the only code that touches their fields. Loaded only rewritten, by
 * {@code RewritingLoader} (see {@code KernelFixtures}).
 */
package io.perpetua.benchmarks.jmh.kernel;
