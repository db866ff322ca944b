package io.perpetua.kernel;

import io.perpetua.modelcheck.FlakyBackendProvider;
import io.perpetua.modelcheck.RandomProgram;
import io.perpetua.testmodel.Holder;
import io.perpetua.testmodel.Leaf;
import io.perpetua.testmodel.Memo;
import io.perpetua.testmodel.Node;
import io.perpetua.testmodel.Tag;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * Random programs ({@link RandomProgram}) over the hand-written test model, on the in-memory
 * store, checked against a plain-Java model after every commit, abort and reopen. The seeds are
 * fixed; {@code -Dperpetua.random.seeds=N} and {@code -Dperpetua.random.operations=N} run more,
 * {@code -Dperpetua.random.first=F} starts elsewhere, {@code -Dperpetua.random.seed=S} replays one, {@code -Dperpetua.random.paranoid=true} compares
 * after every operation and {@code -Dperpetua.random.log=N} lists more operations on failure. The
 * agent module runs the same programs on classes the real agent rewrote, on disk
 * ({@code RandomProgramsIT}).
 */
class RandomOperationsTest {
    private static final int SEEDS = Integer.getInteger("perpetua.random.seeds", 24);
    private static final int OPERATIONS = Integer.getInteger("perpetua.random.operations", 400);
    /** The first seed; the programs with faults start 1,000 above it. */
    private static final long FIRST = Long.getLong("perpetua.random.first", 1);

    @TestFactory
    Stream<DynamicTest> randomProgramsLeaveTheStoreAsTheModelSays() {
        return programs(FIRST, SEEDS, null);
    }

    /**
     * The same programs on a backend that fails reads and commits at random points
     * ({@code flaky:}): each failure is reported, loses nothing, and leaves nothing half read or
     * half written.
     */
    @TestFactory
    Stream<DynamicTest> randomProgramsGoOnAfterFailedReadsAndCommits() {
        return programs(FIRST + 1000, SEEDS / 2, FlakyBackendProvider.FAULTS);
    }

    /** @return {@code count} programs from seed {@code first}, or the one {@code -Dperpetua.random.seed} names */
    private static Stream<DynamicTest> programs(long first, int count, RandomProgram.Faults faults) {
        long only = Long.getLong("perpetua.random.seed", 0);
        return (only > 0 ? LongStream.of(only) : LongStream.range(first, first + count))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> new RandomProgram(seed,
                        new TestModel(), TestStores::newUri, Boolean.getBoolean("perpetua.random.paranoid"),
                        Integer.getInteger("perpetua.random.log", 30), faults).run(OPERATIONS)));
    }

    /** The hand-written test model, reached through its checked accessors. */
    private static final class TestModel implements RandomProgram.Classes {
        @Override
        public Class<?> node() {
            return Node.class;
        }

        @Override
        public Class<?> leaf() {
            return Leaf.class;
        }

        @Override
        public Class<?> memo() {
            return Memo.class;
        }

        @Override
        public Class<?> holder() {
            return Holder.class;
        }

        @Override
        public Class<?> record() {
            return Tag.class;
        }

        @Override
        public Object newRecord(String label, Object node) {
            return new Tag(label, (Node) node);
        }

        @Override
        public Object newNode(String name, int value) {
            return new Node(name, value);
        }

        @Override
        public Object newLeaf(String label, int weight) {
            return new Leaf(label, weight);
        }

        @Override
        public Object newMemo(String body, long when) {
            return new Memo(body, when);
        }

        @Override
        public Object newHolder(String label, Object leaves) {
            return new Holder(label, (Leaf[]) leaves);
        }

        @Override
        public Object newHolder(String label, Object nodes, int[] numbers, String[] labels) {
            return new Holder(label, (Node[]) nodes, numbers, labels);
        }

        @Override
        public Object read(Object object, String field) {
            if (object instanceof Node n) {
                return switch (field) {
                    case "any" -> n.any();
                    case "children" -> n.children();
                    case "name" -> n.name();
                    case "next" -> n.next();
                    case "value" -> n.value();
                    default -> throw new IllegalArgumentException(field);
                };
            }
            if (object instanceof Leaf l) {
                return switch (field) {
                    case "label" -> l.label();
                    case "peer" -> l.peer();
                    case "weight" -> l.weight();
                    default -> throw new IllegalArgumentException(field);
                };
            }
            if (object instanceof Memo m) {
                return switch (field) {
                    case "body" -> m.body();
                    case "count" -> m.count();
                    case "when" -> m.when();
                    default -> throw new IllegalArgumentException(field);
                };
            }
            if (object instanceof Tag t) {
                return switch (field) {
                    case "label" -> t.label();
                    case "node" -> t.node();
                    default -> throw new IllegalArgumentException(field);
                };
            }
            Holder h = (Holder) object;
            return switch (field) {
                case "label" -> h.label();
                case "labels" -> h.labels();
                case "leaves" -> h.leaves();
                case "nodes" -> h.nodes();
                case "numbers" -> h.numbers();
                default -> throw new IllegalArgumentException(field);
            };
        }

        @Override
        @SuppressWarnings("unchecked")
        public void write(Object object, String field, Object value) {
            if (object instanceof Node n) {
                switch (field) {
                    case "any" -> n.any(value);
                    case "children" -> n.children((List<Node>) value);
                    case "name" -> n.name((String) value);
                    case "next" -> n.next((Node) value);
                    case "value" -> n.value((Integer) value);
                    default -> throw new IllegalArgumentException(field);
                }
            } else if (object instanceof Leaf l) {
                switch (field) {
                    case "peer" -> l.peer((Node) value);
                    case "weight" -> l.weight((Integer) value);
                    default -> throw new IllegalArgumentException(field);
                }
            } else if (object instanceof Memo m) {
                if (!field.equals("count")) {
                    throw new IllegalArgumentException(field);
                }
                m.count((Integer) value);
            } else {
                Holder h = (Holder) object;
                switch (field) {
                    case "label" -> h.label((String) value);
                    case "labels" -> h.labels((String[]) value);
                    case "leaves" -> h.leaves((Leaf[]) value);
                    case "nodes" -> h.nodes((Node[]) value);
                    case "numbers" -> h.numbers((int[]) value);
                    default -> throw new IllegalArgumentException(field);
                }
            }
        }
    }
}
