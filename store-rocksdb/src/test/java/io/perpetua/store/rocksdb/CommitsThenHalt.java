package io.perpetua.store.rocksdb;

import io.perpetua.spi.Backend;
import io.perpetua.spi.Backends;
import io.perpetua.spi.WriteSet;

import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * Child process main of {@link RocksDbWalDamageTest}: opens the store named by {@code args[0]}
 * and makes {@code args[1]} commits, each of {@link #RECORDS} records and the name
 * {@code list<n>} bound to the first of them. It prints {@code ACKNOWLEDGED <n>} after each
 * commit returns (synced: the default), then dies without closing the store, as under
 * {@code kill -9}.
 */
public final class CommitsThenHalt {
    static final int RECORDS = 200;

    private CommitsThenHalt() {
    }

    public static void main(String[] args) {
        Backend backend = Backends.open(URI.create(args[0]));
        int commits = Integer.parseInt(args[1]);
        for (int n = 0; n < commits; n++) {
            long first = backend.allocateIds(RECORDS);
            WriteSet writes = new WriteSet();
            for (int i = 0; i < RECORDS; i++) {
                writes.put(first + i, record(n, i));
            }
            backend.commit(writes.bind("list" + n, first));
            System.out.println("ACKNOWLEDGED " + n);
            System.out.flush();
        }
        Runtime.getRuntime().halt(0);
    }

    static byte[] record(int commit, int i) {
        return ("p".repeat(50) + commit + "/" + i).getBytes(StandardCharsets.UTF_8);
    }
}
