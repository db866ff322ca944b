package io.perpetua.benchmarks.oo1;

import io.perpetua.benchmarks.oo1.impl.TransientJava;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Traversal visits 3,280 parts; reverse traversal visits what the incoming lists say. */
class TraversalTest {

    @Test
    void traversalVisitsExactly3280PartsAndReverseMatchesTheIncomingLists() throws Exception {
        Oo1Data data = Oo1Data.generate(Size.TINY.parts, Oo1.DEFAULT_SEED);
        List<List<Integer>> sources = new ArrayList<>();
        for (int i = 0; i < data.parts; i++) {
            sources.add(new ArrayList<>());
        }
        for (int c = 0; c < data.to.length; c++) {
            sources.get(data.to[c] - 1).add(c / 3 + 1);
        }
        TransientJava impl = new TransientJava();
        impl.create(null);
        impl.makeDatabasePersistent(data);
        for (int root : new int[] {1, 2, 999, 1500, data.parts}) {
            NullProcedure.reset();
            impl.traverse(root, Operation.HOPS);
            assertEquals(3280, NullProcedure.answer().visits(), "from part " + root);
            assertEquals(forwardSum(data, root, Operation.HOPS), NullProcedure.answer().sum());
            NullProcedure.reset();
            impl.reverseTraverse(root, Operation.HOPS);
            assertEquals(reverseVisits(sources, root, Operation.HOPS), NullProcedure.answer().visits(),
                    "reverse from part " + root);
        }
    }

    private static long forwardSum(Oo1Data d, int id, int hops) {
        long s = d.x[id - 1] + d.y[id - 1];
        if (hops > 0) {
            for (int k = 0; k < 3; k++) {
                s += forwardSum(d, d.to[(id - 1) * 3 + k], hops - 1);
            }
        }
        return s;
    }

    private static long reverseVisits(List<List<Integer>> sources, int id, int hops) {
        long v = 1;
        if (hops > 0) {
            for (int s : sources.get(id - 1)) {
                v += reverseVisits(sources, s, hops - 1);
            }
        }
        return v;
    }
}
