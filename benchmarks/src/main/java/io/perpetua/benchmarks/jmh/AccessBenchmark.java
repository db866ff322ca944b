package io.perpetua.benchmarks.jmh;

import io.perpetua.benchmarks.jmh.model.Model;
import io.perpetua.runtime.ObjectState;
import io.perpetua.runtime.Persistent;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The cost of the residency checks on resident objects: the same code ({@link Model}) run plain
 * and rewritten in the same run ({@code variant}). Rewritten objects are put in the state a
 * committed resident object has: {@code CLEAN} for reads (the read check passes), {@code DIRTY}
 * for writes (the write check passes; a {@code CLEAN} object takes the slow path once, on its
 * first write, and is {@code DIRTY} from then on). A third copy, {@code padded}, is the control:
 * the plain code whose top-most classes only gained two fields of the rewritten classes' types
 * ({@link RewritingLoader#padding}), so its objects are laid out as the rewritten ones and run no
 * check. rewritten / padded is then the checks' own cost, padded / plain the larger objects'.
 *
 * <ul>
 *   <li>{@code fieldRead}: one int field of each of 1,024 objects, read from another class;</li>
 *   <li>{@code fieldWrite}: the same field written;</li>
 *   <li>{@code arrayWrite}: each element of one {@code int[1024]} written (rewritten: through
 *       the array write barrier, which logs the array once);</li>
 *   <li>{@code arraysWrite}: two elements of each of 1,024 parts' arrays of connections swapped
 *       (the barrier logs each array as the loop moves to it);</li>
 *   <li>{@code oo1Traversal}: OO1's traversal (7 hops, 3,280 visits) over 20,000 parts with the
 *       OO1 locality rule, a new random root each call.</li>
 * </ul>
 * Each (benchmark, variant) pair runs in its own forked JVM, so the JIT profiles of the two
 * copies never mix. Target: rewritten / plain &le; 1.10.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar AccessBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class AccessBenchmark {

    /** The model, plain or rewritten, with its objects in a given state. */
    public abstract static class Models {
        Workload workload;
        int root = 17;
        int value;

        void setUp(String variant, byte state) throws Exception {
            Class<?> type = switch (variant) {
                case "plain" -> Model.class;
                case "rewritten" -> Class.forName(Model.class.getName(), true,
                        new RewritingLoader(Models.class.getClassLoader(), Model.class.getPackageName() + "."));
                case "padded" -> Class.forName(Model.class.getName(), true,
                        RewritingLoader.padding(Models.class.getClassLoader(), Model.class.getPackageName() + "."));
                default -> throw new IllegalArgumentException(variant);
            };
            workload = (Workload) type.getConstructor(int.class, int.class, long.class).newInstance(1024, 20_000, 1992L);
            Object[] objects = workload.objects();
            int rewritten = 0;
            for (Object o : objects) {
                if (o instanceof Persistent p) {
                    p.$perpetua$state(state);
                    rewritten++;
                }
            }
            if (rewritten != (variant.equals("rewritten") ? objects.length : 0)) {
                throw new IllegalStateException(variant + ": " + rewritten + " of " + objects.length + " rewritten");
            }
        }

        int nextRoot() {
            root = root * 1_103_515_245 + 12_345;
            return root >>> 1;
        }
    }

    @State(Scope.Benchmark)
    public static class Clean extends Models {
        @Param({"plain", "padded", "rewritten"})
        public String variant;

        @Setup
        public void setUp() throws Exception {
            setUp(variant, ObjectState.CLEAN);
        }
    }

    @State(Scope.Benchmark)
    public static class Dirty extends Models {
        @Param({"plain", "padded", "rewritten"})
        public String variant;

        @Setup
        public void setUp() throws Exception {
            setUp(variant, ObjectState.DIRTY);
        }
    }

    @Benchmark
    public long fieldRead(Clean m) {
        return m.workload.readFields();
    }

    @Benchmark
    public void fieldWrite(Dirty m) {
        m.workload.writeFields(m.value++);
    }

    @Benchmark
    public void arrayWrite(Clean m) {
        m.workload.writeArray(m.value++);
    }

    @Benchmark
    public void arraysWrite(Clean m) {
        m.workload.writeArrays();
    }

    @Benchmark
    public long oo1Traversal(Clean m) {
        return m.workload.traverse(m.nextRoot());
    }
}
