package randomapp;

import java.util.Date;

/**
 * A satellite whose fields hold JDK holders, which the program changes in place (appends to the
 * body, sets the date's time), never through a field write.
 */
public class Memo {
    final StringBuilder body;
    final Date when;
    int count;

    Memo(String body, long when) {
        this.body = new StringBuilder(body);
        this.when = new Date(when);
    }
}
