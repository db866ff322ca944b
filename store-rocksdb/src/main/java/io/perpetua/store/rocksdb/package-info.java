/**
 * The embedded default backend of Perpetua, on RocksDB. A bare path given to
 * {@link io.perpetua.PersistentStore#open(java.nio.file.Path)} opens a store of this kind; so
 * does a {@code rocksdb:} URI, with the options listed in {@link
 * io.perpetua.store.rocksdb.RocksDbBackendProvider}.
 *
 * <p>The only public type is the provider, found by {@link java.util.ServiceLoader}; no
 * {@code org.rocksdb} type appears in any public signature, so rocksdbjni stays an
 * implementation detail.
 */
package io.perpetua.store.rocksdb;
