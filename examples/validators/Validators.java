package p;
import java.util.concurrent.*;

public class Validators {
    private final ConcurrentMap<String, Validator> validators = new ConcurrentHashMap<>();
    private final Factory owner;

    Validators(Factory owner) { this.owner = owner; }

    public Validator get(String key) {
        Validator v = validators.get(key);
        if (v == null) {
            validators.put(key, owner.create(key));
            v = validators.get(key);
        }
        return v;
    }

    public Validator single(String key) {
        return validators.computeIfAbsent(key, k -> owner.create(k));
    }

    public Validator byUrl(URL url) {
        String key = url.toFullString();
        Validator v = validators.get(key);
        if (v == null) {
            Validator created = owner.create(key);
            v = validators.putIfAbsent(key, created);
            if (v == null) v = created;
        }
        return v;
    }

    public Validator twice(URL url) {
        Validator v = validators.get(url.toFullString());
        if (v == null) {
            validators.putIfAbsent(url.toFullString(), owner.create(url));
        }
        return v;
    }

    public void dump() {
        for (Validator v : validators.values()) {
            validators.remove(v.name());
        }
    }
}
