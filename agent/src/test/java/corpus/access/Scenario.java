package corpus.access;

import java.util.ArrayList;
import java.util.List;

public final class Scenario {
    private Scenario() {
    }

    public static String run() {
        StringBuilder out = new StringBuilder();
        Outer o = new Outer(5, "L");
        Outer.Inner in = o.new Inner();
        out.append(in.peek()).append(' ');
        in.poke(6);
        out.append(o.secret()).append(' ').append(o.count(0)).append(' ');
        Outer.Nested n = new Outer.Nested(o);
        n.write("M");
        out.append(n.read()).append(' ').append(o.count(1)).append(' ');
        out.append(o.anonymous().getAsInt()).append(' ').append(o.lambda().getAsInt()).append(' ')
                .append(Outer.staticLambda(o).getAsInt()).append(' ').append(o.local(3)).append(' ');
        out.append(o.sameAs(new Outer(6, "M"))).append(' ').append(o.pick(new Outer(9, "z"), false)).append('\n');

        IntBox ib = new IntBox(4);
        Box<Integer> b = ib;
        b.set(2);
        out.append(b.get()).append(' ').append(ib.compareTo(new IntBox(3))).append('\n');
        List<Box<String>> boxes = new ArrayList<>(List.of(new Box<>("b"), new Box<>("a")));
        boxes.sort(null);
        out.append(boxes.get(0).get()).append('\n');

        Counter c = new Counter();
        out.append(c.apply("plus", 3)).append(c.apply("times", 4)).append(' ').append(c.lastOp).append(' ');
        out.append(c.guarded(2)).append(' ').append(c.lastOp).append(' ');
        try {
            c.guarded(-1);
        } catch (IllegalStateException e) {
            out.append(e.getMessage()).append(' ').append(c.lastOp).append(' ');
        }
        out.append(c.sum(1, 2, 3)).append(' ').append(c.lastOp).append(' ').append(Op.TIMES.symbol()).append('\n');

        Pair p = new Pair(c, new Counter());
        p.bump();
        out.append(p.total()).append(' ').append(p.right().lastOp).append('\n');

        Frozen f = Frozen.cycle();
        out.append(f.walk()).append(' ').append(f.cache).append('\n');

        out.append("constants ").append(Constants.TOTAL).append('\n');
        Ring ring = new Ring("ring", 12, 2.0, 1.0);
        ring.widen(0.5);
        out.append(ring.describe()).append(' ').append(ring.name()).append('\n');
        try {
            out.append(new Compressor("persist me, persist me, persist me").roundTrip()).append('\n');
        } catch (java.util.zip.DataFormatException e) {
            out.append(e).append('\n');
        }
        return out.toString();
    }
}
