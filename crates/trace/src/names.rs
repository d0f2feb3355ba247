//! Interned names. Every name in a trace (thread, variable, lock, message, object, symbol,
//! source location) becomes a dense `u32` id of its own kind, so that analyses index plain
//! vectors by id and never hash a string on the hot path.

use rustc_hash::FxHashMap;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as a vector index.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A thread of the trace.
    ThreadId
);
id_type!(
    /// A shared memory location (RAPID's "variable").
    VarId
);
id_type!(
    /// A lock.
    LockId
);
id_type!(
    /// A message identity, matching a `snd` with its `rcv`s.
    MsgId
);
id_type!(
    /// A shared object whose methods are recorded by `call` events.
    ObjId
);
id_type!(
    /// Any other name: method names, block labels, symbols and strings used as values.
    SymId
);
id_type!(
    /// A source location as the trace writes it (RAPID's third field).
    LocId
);

/// The kinds of names; each has its own id space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameKind {
    Thread = 0,
    Var = 1,
    Lock = 2,
    Msg = 3,
    Object = 4,
    Symbol = 5,
    Location = 6,
}

impl NameKind {
    pub const ALL: [NameKind; 7] = [
        NameKind::Thread,
        NameKind::Var,
        NameKind::Lock,
        NameKind::Msg,
        NameKind::Object,
        NameKind::Symbol,
        NameKind::Location,
    ];

    pub fn from_u8(b: u8) -> Option<NameKind> {
        NameKind::ALL.get(b as usize).copied()
    }
}

/// One id space: names are stored once and looked up by their bytes.
#[derive(Default, Debug, Clone)]
pub struct Interner {
    ids: FxHashMap<Box<[u8]>, u32>,
    names: Vec<Box<str>>,
}

/// A name that is not valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8;

impl Interner {
    /// The id of `bytes`, allocating a new one the first time it is seen.
    #[inline]
    pub fn intern(&mut self, bytes: &[u8]) -> Result<u32, NotUtf8> {
        if let Some(&id) = self.ids.get(bytes) {
            return Ok(id);
        }
        let name = std::str::from_utf8(bytes).map_err(|_| NotUtf8)?;
        let id = self.names.len() as u32;
        self.ids.insert(bytes.into(), id);
        self.names.push(name.into());
        Ok(id)
    }

    pub fn lookup(&self, name: &str) -> Option<u32> {
        self.ids.get(name.as_bytes()).copied()
    }

    /// The name of `id`; ids come from this interner, so an unknown one is a bug.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|s| &**s)
    }
}

/// All the id spaces of one trace.
#[derive(Default, Debug, Clone)]
pub struct Names {
    pub threads: Interner,
    pub vars: Interner,
    pub locks: Interner,
    pub msgs: Interner,
    pub objects: Interner,
    pub symbols: Interner,
    pub locations: Interner,
}

impl Names {
    pub fn of(&self, kind: NameKind) -> &Interner {
        match kind {
            NameKind::Thread => &self.threads,
            NameKind::Var => &self.vars,
            NameKind::Lock => &self.locks,
            NameKind::Msg => &self.msgs,
            NameKind::Object => &self.objects,
            NameKind::Symbol => &self.symbols,
            NameKind::Location => &self.locations,
        }
    }

    pub fn of_mut(&mut self, kind: NameKind) -> &mut Interner {
        match kind {
            NameKind::Thread => &mut self.threads,
            NameKind::Var => &mut self.vars,
            NameKind::Lock => &mut self.locks,
            NameKind::Msg => &mut self.msgs,
            NameKind::Object => &mut self.objects,
            NameKind::Symbol => &mut self.symbols,
            NameKind::Location => &mut self.locations,
        }
    }

    pub fn thread(&self, t: ThreadId) -> &str {
        self.threads.name(t.0)
    }
    pub fn var(&self, x: VarId) -> &str {
        self.vars.name(x.0)
    }
    pub fn lock(&self, l: LockId) -> &str {
        self.locks.name(l.0)
    }
    pub fn msg(&self, m: MsgId) -> &str {
        self.msgs.name(m.0)
    }
    pub fn object(&self, o: ObjId) -> &str {
        self.objects.name(o.0)
    }
    pub fn symbol(&self, s: SymId) -> &str {
        self.symbols.name(s.0)
    }
    pub fn location(&self, l: LocId) -> &str {
        self.locations.name(l.0)
    }
}
