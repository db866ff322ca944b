package io.perpetua.testmodel;

import io.perpetua.runtime.ObjectHandle;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import io.perpetua.runtime.RecordReader;
import io.perpetua.runtime.RecordWriter;
import io.perpetua.runtime.Residency;

/**
 * The top-most class of a hand-written hierarchy that implements the persistence protocol
 * exactly as the agent generates it (see {@code io.perpetua.runtime}): it carries the
 * per-object state. Kernel tests use these classes because core cannot depend on the agent.
 */
public abstract class Base implements Persistent {
    public transient byte $perpetua$state;
    public transient ObjectHandle $perpetua$handle;

    @Override
    public byte $perpetua$state() {
        return $perpetua$state;
    }

    @Override
    public void $perpetua$state(byte state) {
        $perpetua$state = state;
    }

    @Override
    public ObjectHandle $perpetua$handle() {
        return $perpetua$handle;
    }

    @Override
    public void $perpetua$handle(ObjectHandle handle) {
        $perpetua$handle = handle;
    }

    @Override
    public void $perpetua$write(RecordWriter out) {
    }

    @Override
    public void $perpetua$read(RecordReader in) {
    }

    /** The read check the agent inlines before a field read. */
    protected final void readCheck() {
        if ($perpetua$state == ObjectState.HOLLOW) {
            Residency.load(this);
        }
    }

    /** The write check the agent inlines before a field write. */
    protected final void writeCheck() {
        if ($perpetua$state < 0) {
            Residency.beforeWrite(this);
        }
    }
}
