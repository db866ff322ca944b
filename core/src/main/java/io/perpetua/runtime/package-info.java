/**
 * The protocol between rewritten (persistent-capable) classes and the kernel. The agent
 * generates it into application classes; nothing here is meant for application code.
 *
 * <h2>What a rewritten class carries</h2>
 * <ul>
 *   <li>It implements {@link io.perpetua.runtime.Persistent}.</li>
 *   <li>The top-most rewritten class of a hierarchy declares two instance fields:
 *       {@code protected transient byte $perpetua$state} (one of {@link io.perpetua.runtime.ObjectState}'s
 *       constants; 0, {@code TRANSIENT}, is what a constructor leaves) and
 *       {@code protected transient io.perpetua.runtime.ObjectHandle $perpetua$handle}, and implements
 *       the four accessor methods of {@code Persistent} on them. Protected, so that code
 *       reflecting over a class's public fields does not meet them.</li>
 *   <li>Every rewritten class declares {@code $perpetua$write(RecordWriter)} and
 *       {@code $perpetua$read(RecordReader)}: each first calls the super-class's version when
 *       the super-class is rewritten, then writes (reads) its own <em>persistent fields</em> in
 *       order of {@link java.lang.String#compareTo name}, with the {@code RecordWriter} method of
 *       the field's type ({@code writeObject}/{@code readObject} plus a cast for references).
 *       Persistent fields are the non-static, non-transient fields whose names do not start
 *       with {@code $perpetua$} (synthetic ones such as {@code this$0} included). Then, only
 *       if {@link io.perpetua.runtime.PersistentClasses#storesTransientFields
 *       PersistentClasses.storesTransientFields(getClass())} (a class that serializes itself),
 *       its transient instance fields, by name, in the same way. The kernel derives the same
 *       layout by reflection, once per class, to build the class descriptor.</li>
 *   <li>Every concrete rewritten class has a creation proxy: a constructor that runs no user
 *       code (it calls the super-class's proxy constructor, or the no-argument constructor of
 *       the first non-rewritten super-class), called by its private static
 *       {@code $perpetua$new()}; its static initializer calls
 *       {@code PersistentClasses.register(C.class, MethodHandles.lookup())}, from which
 *       {@link io.perpetua.runtime.PersistentClasses#factory} makes, when first asked, a
 *       {@link io.perpetua.runtime.HollowFactory} that calls {@code $perpetua$new()}.</li>
 *   <li>Reading a persistent field: the field first, and only if it holds its default value
 *       ({@code 0}, {@code false}, {@code null}), {@code if ($perpetua$state == ObjectState.HOLLOW)
 *       { Residency.load(this); } }, {@code VarHandle.acquireFence()} and the field again (also
 *       when the object is not hollow: another thread may have filled it since the first
 *       read). Every persistent field of a hollow
 *       object holds its default: shells come from the creation proxy, and the kernel clears
 *       the fields of an object it makes hollow (abort) with a {@code $perpetua$read} of
 *       defaults. Reading a transient field, and the first statement of every non-static
 *       method: {@code if ($perpetua$state == ObjectState.HOLLOW) Residency.load(this);}.
 *       Writing a field: {@code if ($perpetua$state < 0) Residency.beforeWrite(this);} then the
 *       field; a transient field, {@code Residency.beforeTransientWrite(this)}, which marks the
 *       object dirty only if its class stores transient fields, and a transient reference field
 *       {@code Residency.beforeTransientWrite(this, field, value)}, which also leaves it clean
 *       when both are stored as null (a cached view).
 *       {@link io.perpetua.runtime.Residency} is the only slow path.</li>
 *   <li>Every persistent field of an array type {@code T[]} has a <em>lazy marker</em>:
 *       {@code private static final T[] $perpetua$lazy$<field> = new T[0]}, set first in the
 *       static initializer. A fill may leave the marker in the field instead of decoding the
 *       stored array; its read then adds, after the value-first read,
 *       {@code if (v == $perpetua$lazy$f) { Residency.materialize(this, $perpetua$lazy$f); }}
 *       and the field again. Such a field is read this way on {@code this} too, inside the
 *       object's own methods. The kernel finds the markers by reflection; a field without one
 *       is always decoded with its object.</li>
 *   <li>A top-most class that extends a JDK collection or map
 *       ({@link io.perpetua.runtime.PersistentClasses#inheritedContainer}) writes its contents
 *       last, after its own fields, as one {@code Object[]} ({@link io.perpetua.runtime.InheritedContents}),
 *       and overrides every method it inherits from the JDK with the read or write check; the
 *       iterators and views it hands out are wrapped by {@link io.perpetua.runtime.InheritedViews}.</li>
 *   <li>In a persistent-capable class, the result of every {@code clone()} call on an object is
 *       passed to {@code Residency.afterClone(copy, original)}, which makes a copy that
 *       {@code Object.clone()} made of a persistent object (its state and handle copied with its
 *       fields) a transient object.</li>
 *   <li>Every application class, persistent-capable or not, logs its array writes: each array
 *       store instruction becomes a call of {@link io.perpetua.runtime.ArrayWrites}'s matching
 *       {@code *store} method (except the element stores of an array literal, which fill an
 *       array that is only on the operand stack); {@code System.arraycopy} becomes {@code ArrayWrites.arraycopy};
 *       around a call of a JDK method that takes or returns arrays, each one is passed to
 *       {@code ArrayWrites.written} (the method writes it during the call) or
 *       {@code ArrayWrites.escape} (it may keep it and write it later), as the agent's
 *       {@code ArrayUse} says; a method reference to such a method is routed through a static
 *       bridge, {@code $perpetua$array$<n>}, that does the same.</li>
 * </ul>
 *
 * <p>A persistent-capable class the agent fails to rewrite whole (a method pushed over the 64 KB
 * limit by its checks, for example) is not left as it was, since its rewritten subclasses and the
 * rewritten classes that read its fields already link against its generated members. It gains
 * those members, with its own methods unchanged, and
 * {@code private static final String $perpetua$refused} ({@link
 * io.perpetua.runtime.PersistentClasses#REWRITE_REFUSAL}) holding the reason; its instances, and
 * those of its subclasses, are refused by the kernel with that reason.
 *
 * <p>Final instance fields lose {@code ACC_FINAL} in rewritten classes, since a hollow object
 * is filled after its creation; the compiler has already enforced that user code assigns them
 * once.
 *
 * <h2>Memory model</h2>
 * The state field is a plain field, so that the check on every field access is one plain load
 * the JIT can reuse and hoist (a volatile load measured 1.4 to 2.8 times slower on field reads
 * and traversals). Filling happens under the kernel's lock, and the kernel issues a release
 * fence between writing the fields and publishing the new state. A thread that finds an object
 * hollow takes the lock and so sees it filled; one that reads a default value and then a state
 * that is not hollow reads the field again behind an acquire fence, and so sees what the fill
 * wrote. A thread that shares persistent objects with
 * others relies on the program's own synchronization, as the Java memory model asks for any
 * object shared between threads.
 */
package io.perpetua.runtime;
