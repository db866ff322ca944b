package io.perpetua.kernel;

/**
 * A JDK collection as the kernel loads it: a subclass of the JDK class that notes any call
 * that may change it (a mutator, or a view or iterator through which it could be changed).
 * A commit compares only noted containers with their snapshot, so its cost grows with what
 * the program touched, not with how many containers are resident. The note is conservative:
 * a touched container that did not change is compared and found equal, never written.
 *
 * <p>Instances serialize (Java serialization) as their plain JDK class.
 */
interface Tracked {
    /** @return true if a call since the last commit may have changed the container */
    boolean $perpetua$touched();

    /** Forgets the note; called by the kernel after a commit, a load or a restore. */
    void $perpetua$untouch();
}
