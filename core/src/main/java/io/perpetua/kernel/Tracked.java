package io.perpetua.kernel;

/**
 * A JDK collection as the kernel loads it: a subclass of the JDK class that notes any call
 * that may change it: a mutator; a change made through a view or iterator it handed out, which
 * it wraps ({@link io.perpetua.runtime.InheritedViews}) so that one kept across a commit still
 * notes it (until session 41 asking for the view was the note, and a change through it after
 * the next commit was lost); asking for a view it does not wrap (a sub-list, a head map).
 * A commit compares only noted containers with their snapshot, so its cost grows with what
 * the program touched, not with how many containers are resident. The note is conservative:
 * a touched container that did not change is compared and found equal, never written.
 *
 * <p>Instances serialize (Java serialization) as their plain JDK class.
 */
interface Tracked extends io.perpetua.runtime.InheritedViews.Owner {
    /** @return true if a call since the last commit may have changed the container */
    boolean $perpetua$touched();

    /** Forgets the note; called by the kernel after a load or a restore, and by a commit before it reads the container. */
    void $perpetua$untouch();

    /**
     * Notes a change: called by a commit that failed after it forgot the note, and by the
     * wrappers of the views and iterators the collection hands out ({@link io.perpetua.runtime.InheritedViews}),
     * before a change made through them.
     */
    @Override
    void $perpetua$touch();

    /**
     * Names the store that read the container: its first change after each commit is told to
     * it ({@link Kernel#firstTouch}), which holds it until the change is committed or undone.
     * Untouched, it is held only weakly, even during a transaction.
     */
    void $perpetua$owner(Kernel kernel);

    /**
     * @return the elements (of a map, the entries) in iteration order, without noting a change:
     *         a commit reads the container after it forgot the note, and must not note its own read
     */
    java.util.Iterator<?> $perpetua$contents();
}
