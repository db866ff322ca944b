/**
 * The {@code file:} backend: a pure-Java store in one directory, with no native code.
 * {@link io.perpetua.store.file.FileBackendProvider} opens it and documents its options;
 * {@link io.perpetua.store.file.FileBackend} describes its files, durability, concurrency and
 * failure behaviour. Everything else here is internal.
 */
package io.perpetua.store.file;
