package io.perpetua.agent.transform;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** Calls into classes of a child loader by name (tests only). */
final class Reflect {
    private Reflect() {
    }

    static Object call(Object target, String method, Object... args) {
        Class<?> type = target instanceof Class<?> c ? c : target.getClass();
        for (Class<?> t = type; t != null; t = t.getSuperclass()) {
            for (Method m : t.getDeclaredMethods()) {
                if (m.getName().equals(method) && m.getParameterCount() == args.length && !m.isBridge()
                        && !m.isSynthetic()) {
                    try {
                        m.setAccessible(true);
                        return m.invoke(target instanceof Class<?> ? null : target, args);
                    } catch (InvocationTargetException e) {
                        if (e.getCause() instanceof RuntimeException r) {
                            throw r;
                        }
                        if (e.getCause() instanceof Error err) {
                            throw err;
                        }
                        throw new AssertionError(e.getCause());
                    } catch (IllegalAccessException | IllegalArgumentException e) {
                        continue;
                    }
                }
            }
        }
        throw new AssertionError("no method " + method + " with " + args.length + " arguments on " + type);
    }

    static Object make(Class<?> type, Object... args) {
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (c.getParameterCount() == args.length && !c.isSynthetic()) {
                try {
                    c.setAccessible(true);
                    return c.newInstance(args);
                } catch (IllegalArgumentException e) {
                    continue;
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }
        }
        throw new AssertionError("no constructor with " + args.length + " arguments on " + type);
    }
}
