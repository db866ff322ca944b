package io.perpetua.store.rocksdb;

/**
 * The RocksDB settings that were chosen by measurement. Package private: users do not tune
 * them; {@code RocksDbMeasure} (in this module's test sources, a plain {@code main}, not a test)
 * opens backends with other values to compare them, and its figures are quoted at
 * {@link #DEFAULT}.
 *
 * @param bloomBitsPerKey bits per key of the Bloom filters, or 0 for none
 * @param blockCacheBytes the size of the block cache shared by all column families
 * @param lz4 whether record blocks are compressed with LZ4 (otherwise they are stored plain)
 * @param blockSize the data block size of the records' SST files, in bytes
 */
record RocksDbTuning(double bloomBitsPerKey, long blockCacheBytes, boolean lz4, long blockSize) {

    /*
     * RocksDbMeasure, 2026-11, on the build machine (2 cores shared with other jobs, load
     * average 5-7; rocksdbjni 11.0.4, JDK 17): 200,000 OO1 parts of 100 bytes on every other
     * id, loaded in commits of 1,000, compacted, 10% overwritten and flushed (an L0 file over
     * the bottom level); then the store reopened (empty block cache, warm OS page cache) and
     * 200,000 random reads of present ids ("hit"), of absent ids inside the key range ("miss"),
     * and the hits again ("warm"). Lookups in CPU time of the reader, median of 3 rounds,
     * ns per read; disk = SST and WAL bytes. Ratios are to this default:
     *
     *   variant          cold hit  cold miss  warm hit   disk bytes
     *   default              4175        862      3763   14,393,370
     *   no Bloom filter      1.11       5.71      1.23         0.98
     *   no compression       0.89       1.31      0.93         1.75
     *   cache 8 MiB          1.65       1.04      1.64         1.00
     *   cache 128 MiB        0.84       0.87      1.00         1.00
     *   block 16 KiB         0.90       1.02      1.02         0.93
     *
     * An earlier run (wall time, same load) agreed on every decision: no Bloom filter 7.1x on
     * misses, no compression 1.75x the disk, 8 MiB cache 2.1x on hits, 16 KiB blocks 1.36x on
     * cold hits.
     */
    static final RocksDbTuning DEFAULT = new RocksDbTuning(
            // Bloom filter, 10 bits per key (about 1% false positives): a read of an absent id
            // costs 5.7x more without it (every level's index and a data block are searched
            // instead of a filter probe), present ids 1.1x to 1.2x; it costs 2% of the disk.
            // The kernel reads absent ids rarely, but the commit's exact counting and name
            // lookups ask "is it there?" all the time.
            10,
            // 32 MiB block cache: 8 MiB makes hits 1.65x dearer once the working set (14 MB of
            // compressed blocks here) no longer fits; 128 MiB gains nothing measurable over 32
            // for this size. A modest default for an embedded store; the OS page cache backs it.
            32L << 20,
            // LZ4: the store is 1.75x larger without compression; in exchange a warm hit costs
            // about 10% more CPU (decompression) while everything fits in memory. Smaller files
            // mean more of the store in the caches once it does not fit, so LZ4 wins.
            true,
            // 4 KiB blocks (RocksDB's default): 16 KiB blocks save 7% of the disk but a cold
            // hit reads and checksums four times the bytes (0.9x to 1.36x in the two runs): no
            // gain worth the variance for 100-byte records.
            4096);
}
