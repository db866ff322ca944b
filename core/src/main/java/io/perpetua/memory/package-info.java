/**
 * The in-memory backend, {@code memory:}: a store in the Java heap with the full backend
 * contract (atomic commits, names, class descriptors, ids never reused) but no durability
 * beyond the JVM. See {@link io.perpetua.memory.MemoryBackend}.
 */
package io.perpetua.memory;
