// The composed operations of "Verifying Atomicity via Data Independence" (Shacham et al.,
// ISSTA'14), transcribed line by line. Before each operation:
//   expect: CLASS VERDICT            what `hindsight composed` must say
//   reasons: RULE ...                the Fig. 11 reasons of a data-dependent operation
//   bounded: VERDICT                 what `--bounded` must say
// The tests in crates/cli/tests/composed.rs and crates/source/tests/composed_oracle.rs
// read these lines.

ConcurrentHashMap<String, Attribute> attr;
ConcurrentHashMap<String, Lock> locks;
ConcurrentHashMap<Integer, Integer> m;
ConcurrentHashMap<String, AndroidTools> androidTools;
ConcurrentHashMap<FxLanguage, FxValueRenderer> renderers;
static final FxLanguage DEFAULT = new FxLanguage("default");
ConcurrentHashMap<Address, HttpDestination> _destinations;
Address _proxy;
Set _noProxy;
Authentication _proxyAuthentication;
int _maxConnectionsPerAddress;

// Fig. 1 (Apache Tomcat): equivalent to attr.remove(name), linearizable.
// expect: SCM linearizable
Attribute removeAttribute(String name) {
  Attribute val = attr.get(name);
  if (val != null) {
    val = attr.remove(name);
  }
  return val;
}

// Fig. 2 (Apache ServiceMix): memoizes a lock per id; linearization point at line 2 when the
// lock is cached, at the putIfAbsent otherwise.
// expect: SCM linearizable
public Lock getLock(String id) {
  Lock lock = locks.get(id); // @LP lock != null
  if (lock == null) {
    lock = new ReentrantLock();
    Lock oldLock =
      locks.putIfAbsent(id, lock); // @LP
    if (oldLock != null) {
      lock = oldLock;
    }
  }
  return lock;
}

// Table 1: compute is an SCM.
// expect: SCM linearizable
Integer compute(Integer k, Integer v) {
  Integer nv = m.get(k);
  if (nv == null) {
    nv = m.putIfAbsent(k, v);
    if (nv == null)
      nv = v;
  }
  return nv;
}

// Table 1: Replace is not an SCM: its result depends on v' (restriction 4, get(k) == v'), it
// has three inputs, and its replace compares the map's value with an input.
// expect: data-dependent not-proved
// reasons: Inputs Branch Exit
boolean Replace(Integer k, Integer v, Integer v2) {
  if (m.get(k) == v2) {
    return m.replace(k, v, v2);
  }
  return false;
}

// Fig. 3a: not linearizable; the counterexample is the trace of Fig. 4a (an environment
// put between the putIfAbsent and the second get).
// expect: SCM not-linearizable
Integer doubleNonLin(Integer K) {
  Integer val = m.get(K);
  if (val == null) {
    Integer nv = K * 2;
    m.putIfAbsent(K, nv);
  }
  val = m.get(K);
  return val;
}

// Fig. 3b: the fix of doubleNonLin.
// expect: SCM linearizable
Integer doubleLin(Integer K) {
  Integer val = m.get(K);
  if (val == null) {
    Integer nv = K * 2;
    val = m.putIfAbsent(K, nv);
    if (val == null)
      val = nv;
  }
  return val;
}

// Fig. 5 (OpenJDK): increments a histogram bucket; replace(key, i, i + 1) uses the value
// returned by get at line 3, so it is a VCM.
// expect: VCM linearizable
void inc(Class<?> key) {
  for (;;) {
    Integer i = get(key);
    if (i == null) {
      if (putIfAbsent(key, 1) == null)
        return;
    } else {
      if (replace(key, i, i + 1))
        return;
    }
  }
}

// Fig. 6 (AutoAndroid): the throw depends on the key, but only through comparisons with the
// constants "unix" and "windows": an FCM verified on {"unix", "windows", "*"}.
// expect: FCM linearizable
AndroidTools forOsFamily(String osFamily) {
  AndroidTools instance = androidTools.get(osFamily);
  if (instance == null) {
    AndroidTools newInstance = null;
    if (osFamily.equals("windows")) {
      newInstance = new WindowsAndroidTools();
    } else if (osFamily.equals("unix")) {
      newInstance = new UnixAndroidTools();
    } else {
      throw new
        UnsupportedOperationException("...");
    }
    instance =
      androidTools.putIfAbsent(osFamily, newInstance);
    if (instance == null)
      instance = newInstance;
  }
  return instance;
}

// Figs. 7/8 (fleXive), the linearizable version: it reads the key DEFAULT besides its input.
// expect: data-dependent not-proved
// reasons: Keys
// bounded: not-proved
FxValueRenderer getInstance(FxLanguage language) {
  if (language == null) {
    return renderers.get(DEFAULT);
  }
  FxValueRenderer oldV = renderers.get(language);
  if (oldV == null) {
    FxValueRenderer V = new FxValueRendererImpl(language);
    oldV = renderers.putIfAbsent(language, V);
    if (oldV == null)
      oldV = V;
  }
  return oldV;
}

// Fig. 12 (Granite/Jetty): the result depends on the globals _proxy and _noProxy; another
// thread clearing _proxy between line 10 and line 12 yields a destination no sequential run
// builds, which the bounded check finds.
// expect: data-dependent not-proved
// reasons: Globals
// bounded: not-linearizable
public HttpDestination getDestination(Address remote, boolean ssl) throws UnknownHostException, IOException {
  if (remote == null)
    throw new UnknownHostException("Remote socket address cannot be null.");
  HttpDestination destination = _destinations.get(remote);
  if (destination == null) {
    destination = new HttpDestination(this, remote, ssl, _maxConnectionsPerAddress);
    if (_proxy != null && (_noProxy == null || !_noProxy.contains(remote.getHost()))) {
      destination.setProxy(_proxy);
      if (_proxyAuthentication != null)
        destination.setProxyAuthentication(_proxyAuthentication);
    }
    HttpDestination other = _destinations.putIfAbsent(remote, destination);
    if (other != null) destination = other;
  }
  return destination;
}
