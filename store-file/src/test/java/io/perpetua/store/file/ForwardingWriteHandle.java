package io.perpetua.store.file;

import java.io.IOException;

/** A write handle that passes every call to another: test file layers override what they inject. */
class ForwardingWriteHandle implements FileIO.WriteHandle {
    final FileIO.WriteHandle real;

    ForwardingWriteHandle(FileIO.WriteHandle real) {
        this.real = real;
    }

    @Override
    public void write(long position, byte[] b, int off, int len) throws IOException {
        real.write(position, b, off, len);
    }

    @Override
    public void sync() throws IOException {
        real.sync();
    }

    @Override
    public void truncate(long size) throws IOException {
        real.truncate(size);
    }

    @Override
    public long size() throws IOException {
        return real.size();
    }

    @Override
    public void close() throws IOException {
        real.close();
    }
}
