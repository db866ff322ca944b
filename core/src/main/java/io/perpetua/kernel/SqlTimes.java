package io.perpetua.kernel;

import java.sql.Time;
import java.sql.Timestamp;
import java.util.Date;

/**
 * The three {@code java.util.Date} subclasses of {@code java.sql}, stored as holders like a
 * {@code Date}: {@code Timestamp} (milliseconds, then nanoseconds, which it keeps apart),
 * {@code java.sql.Date} and {@code Time} (milliseconds). A class of its own, reached only once
 * a class name is one of {@link Containers#SQL_TIMES}, so that {@code java.sql} is loaded, and
 * needed, only by a program that stores one (a runtime image may leave the module out): loading
 * this class loads {@code Timestamp}, so nothing else may live here. Stateless.
 */
final class SqlTimes {
    private SqlTimes() {
    }

    static void write(Date d, ByteOut out) {
        out.writeSignedVarLong(d.getTime());
        if (d instanceof Timestamp t) {
            out.writeVarInt(t.getNanos());
        }
    }

    /** Gives a {@code Timestamp} the nanoseconds of another, after {@code setTime}; nothing for the other two. */
    static void copyNanos(Date from, Date to) {
        if (to instanceof Timestamp t) {
            t.setNanos(((Timestamp) from).getNanos());
        }
    }

    /** Reads what {@link #write} wrote for {@code type}, one of the three. */
    static Date read(Class<?> type, ByteIn in) {
        long millis = in.readSignedVarLong();
        if (type == Timestamp.class) {
            Timestamp t = new Timestamp(millis);
            int nanos = in.readVarInt();
            if (nanos < 0 || nanos > 999_999_999) {
                throw new ByteIn.MalformedRecord("a stored java.sql.Timestamp has " + nanos + " nanoseconds");
            }
            t.setNanos(nanos);
            return t;
        }
        return type == Time.class ? new Time(millis) : new java.sql.Date(millis);
    }
}
