package hindsight.rt;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;

/**
 * Per-run object identities: an object gets the next number the first time the recorder sees
 * it, kept in an identity map with weak keys (so the map keeps no object alive). Not
 * {@code System.identityHashCode}, which two live objects may share: two objects are always
 * two numbers. The map is split in stripes by identity hash, each under its own lock.
 */
final class Ids {
    private static final int STRIPES = 64;
    private static final Stripe[] stripes = new Stripe[STRIPES];
    private static int next = 1;
    /** The name of each id, by id (index 0 unused). */
    private static final ArrayList<String> names = new ArrayList<>();

    static {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
        names.add("");
    }

    private Ids() {}

    static int id(Object o) {
        int h = System.identityHashCode(o);
        Stripe s = stripes[(h ^ (h >>> 16)) & (STRIPES - 1)];
        synchronized (s) {
            return s.id(o, h);
        }
    }

    /** A fresh number for an object first seen now, named after its class. */
    private static synchronized int fresh(Object o) {
        int id = next++;
        String cls;
        if (o instanceof Class) {
            cls = ((Class<?>) o).getName() + ".class";
            names.add(cls);
        } else {
            names.add(simpleName(o.getClass()) + "@" + id);
        }
        return id;
    }

    static String simpleName(Class<?> c) {
        if (c.isArray()) {
            return simpleName(c.getComponentType()) + "[]";
        }
        String n = c.getName();
        int dot = n.lastIndexOf('.');
        return dot < 0 ? n : n.substring(dot + 1);
    }

    static synchronized String name(int id) {
        return names.get(id);
    }

    private static final class Entry extends WeakReference<Object> {
        final int hash;
        final int id;
        Entry next;

        Entry(Object o, ReferenceQueue<Object> q, int hash, int id, Entry next) {
            super(o, q);
            this.hash = hash;
            this.id = id;
            this.next = next;
        }
    }

    private static final class Stripe {
        Entry[] table = new Entry[16];
        int size;
        final ReferenceQueue<Object> queue = new ReferenceQueue<>();

        int id(Object o, int h) {
            expunge();
            int i = (h * 0x9E3779B9 >>> 8) & (table.length - 1);
            for (Entry e = table[i]; e != null; e = e.next) {
                if (e.hash == h && e.get() == o) {
                    return e.id;
                }
            }
            int id = fresh(o);
            table[i] = new Entry(o, queue, h, id, table[i]);
            if (++size > table.length * 3 / 4) {
                grow();
            }
            return id;
        }

        private void grow() {
            Entry[] old = table;
            table = new Entry[old.length * 2];
            for (Entry head : old) {
                for (Entry e = head; e != null; ) {
                    Entry n = e.next;
                    int i = (e.hash * 0x9E3779B9 >>> 8) & (table.length - 1);
                    e.next = table[i];
                    table[i] = e;
                    e = n;
                }
            }
        }

        private void expunge() {
            for (Object r; (r = queue.poll()) != null; ) {
                Entry dead = (Entry) r;
                int i = (dead.hash * 0x9E3779B9 >>> 8) & (table.length - 1);
                Entry prev = null;
                for (Entry e = table[i]; e != null; prev = e, e = e.next) {
                    if (e == dead) {
                        if (prev == null) {
                            table[i] = e.next;
                        } else {
                            prev.next = e.next;
                        }
                        size--;
                        break;
                    }
                }
            }
        }
    }
}
