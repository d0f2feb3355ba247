// Operations with more inputs than a key and a value, in the shapes found in public Java
// projects. Each is written for this corpus after the pattern cited above it (the search
// tool's terms forbid copying third-party code verbatim); class and verdict reasoned by hand.
//   expect: CLASS VERDICT     reasons: RULE ...     bounded: VERDICT (as in examples/composed)
package corpus.inputs;

import java.text.DateFormat;
import java.util.Locale;
import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

public class Inputs {
    private final ConcurrentMap<MultipartKey, Object> instances = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Object> byPair = new ConcurrentHashMap<>();

    // Pattern: apache/commons-lang src/main/java/org/apache/commons/lang3/time/FormatCache.java
    // (getInstance, 3.x before computeIfAbsent): the key is a MultipartKey of all three
    // inputs, get, create on a miss from the same inputs, putIfAbsent and keep the winner.
    // The inputs only make the key and are passed to the factory: an SCM (the key a tuple,
    // MultipartKey's equals compares its parts), and Fig. 2's shape is linearizable.
    // expect: SCM linearizable
    public Object getInstance(String pattern, TimeZone timeZone, Locale locale) {
        MultipartKey key = new MultipartKey(pattern, timeZone, locale);
        Object format = instances.get(key);
        if (format == null) {
            format = createInstance(pattern, timeZone, locale);
            Object previous = instances.putIfAbsent(key, format);
            if (previous != null) {
                format = previous;
            }
        }
        return format;
    }

    // Pattern: the same file (getPatternForStyle): the styles are parts of the key and also
    // decide, by `dateStyle == null`, which formatter makes the value: an input compared, so
    // the reduction does not apply (a branch on an input). Its map calls are
    // Fig. 2's shape, so no violation exists and the bounded check finds none.
    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-proved
    public Object getPatternForStyle(Integer dateStyle, Integer timeStyle, Locale locale) {
        MultipartKey key = new MultipartKey(dateStyle, timeStyle, locale);
        Object pattern = instances.get(key);
        if (pattern == null) {
            Object formatter;
            if (dateStyle == null) {
                formatter = DateFormat.getTimeInstance(timeStyle, locale);
            } else {
                formatter = DateFormat.getDateTimeInstance(dateStyle, timeStyle, locale);
            }
            Object previous = instances.putIfAbsent(key, formatter);
            pattern = previous != null ? previous : formatter;
        }
        return pattern;
    }

    // Written after the commons-lang getInstance above with the key built in place as a
    // string of two inputs, as keyed caches commonly do (`a + ":" + b`): the key written twice
    // is one tuple, and the put overwrites another thread's value (the lost update of
    // Caches.getCachedValue). Witness: get(1) -> null; env put(1, 1000); put(1, make#1)
    // returns the made value though the map held 1000 first: no sequential run does that.
    // expect: SCM not-linearizable
    public Object lookup(String scope, String name, Object hint) {
        Object v = byPair.get(scope + ":" + name);
        if (v == null) {
            v = make(hint);
            byPair.put(scope + ":" + name, v);
        }
        return v;
    }
}
