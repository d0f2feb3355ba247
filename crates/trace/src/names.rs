//! Interned names. Every name in a trace (thread, variable, lock, message, object, symbol,
//! source location) becomes a dense `u32` id of its own kind, so that analyses index plain
//! vectors by id and never hash a string on the hot path.

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;

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
///
/// Names of up to 15 bytes (nearly all of them: `T1`, `x42`, `Bank.java:22`) are looked up
/// by a `u128` holding their bytes and length, which hashes in two multiplications and compares
/// in one instruction; longer names go through a map keyed by their bytes. Interning is most
/// of the cost of reading a text trace.
///
/// The short names' table holds only ids (4 bytes a slot); their keys lie in `short_keys`, in id
/// order. A map of `u128` to `u32` takes 32 bytes a slot, and on a trace of 10,000 variables
/// accessed at random its lookups were mostly cache misses: the smaller table, plus a dense
/// array that the first accesses of a name fill in order, misses less (`BENCHMARKS.md`, #43).
///
/// Names of at most 8 bytes (`T4`, `x5307`, `L11`, RAPID's numbered locations: nearly every
/// name of a generated or RAPID trace) come before both, in [`Small`]: their bytes are one
/// word, kept in the slot beside the id, so that a lookup is a multiplication, one load and
/// one comparison, where the general table's probe costs several times the instructions
/// (reading a text trace runs at several instructions a cycle: instructions are its cost).
#[derive(Default, Debug, Clone)]
pub struct Interner {
    /// Ids of the names of at most 8 bytes.
    small: Small,
    /// Ids of the short names, hashed by their key.
    short: HashTable<u32>,
    /// Each id's short key; [`LONG`] for a name that `short` does not hold (a long name, or
    /// one of at most 8 bytes, which `small` holds).
    short_keys: Vec<u128>,
    long: FxHashMap<Box<[u8]>, u32>,
    names: Vec<Box<str>>,
    /// Bytes of the names' text: once in `names`, and again in `long` for a long name.
    text: usize,
}

/// The key of a long name in `short_keys`: no short key has a length byte of 255.
const LONG: u128 = u128::MAX;

#[inline]
fn hash_short(key: u128) -> u64 {
    FxBuildHasher.hash_one(key)
}

/// The bytes and length of a name of at most 15 bytes, as one number.
#[inline]
fn short_key(bytes: &[u8]) -> Option<u128> {
    let n = bytes.len();
    if n > 15 {
        return None;
    }
    let (lo, hi) = if n > 8 {
        (load(&bytes[..8]), load(&bytes[8..]))
    } else {
        (load(bytes), 0)
    };
    Some(u128::from(lo) | u128::from(hi) << 64 | (n as u128) << 120)
}

/// Up to 8 bytes, little-endian, zero-padded, without a call to `memcpy`: two overlapping
/// loads whose shared bytes agree.
#[inline]
fn load(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        u64::from(lo) | u64::from(hi) << (8 * (n - 4))
    } else if n > 0 {
        u64::from(b[0])
            | u64::from(b[n / 2]) << (8 * (n / 2))
            | u64::from(b[n - 1]) << (8 * (n - 1))
    } else {
        0
    }
}

/// A name that is not valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8;

/// A slot of [`Small`]: a name's bytes as a word (zero past them), its length plus one (0: an
/// empty slot, so that the empty name has a slot of its own), and its id.
#[derive(Clone, Copy, Debug, Default)]
struct SmallSlot {
    word: u64,
    tag: u32,
    id: u32,
}

/// The most names a [`Small`] table holds: past them, names of at most 8 bytes go to the
/// general tables like longer ones. Its 16-byte slots, at most half full, take twice the
/// memory per name of the general short names' table; bounded, they stay within 512 KiB per
/// kind of name (a trace of 300,000 variables would otherwise hold 8 MiB of them in each copy
/// of the names, one per parsing thread).
const SMALL_MAX: usize = 1 << 14;

/// Ids of the names of at most 8 bytes, keyed by their bytes as a word: open addressing with
/// linear probing, at most half full, keys in the slots. No name is ever removed.
#[derive(Clone, Debug, Default)]
struct Small {
    /// A power of two of slots, or none before the first name.
    slots: Vec<SmallSlot>,
    /// `64 - log2(slots.len())`: a slot's index is the top bits of the key's hash.
    shift: u32,
    held: usize,
}

impl Small {
    /// The slot to probe first for `word` of `tag`.
    #[inline]
    fn home(&self, word: u64, tag: u32) -> usize {
        // A multiplication by an odd constant (Fibonacci hashing) spreads every input bit
        // into the product's top bits, which index the table.
        let h = (word ^ u64::from(tag) << 60).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> self.shift) as usize
    }

    #[inline(always)]
    fn find(&self, word: u64, tag: u32) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(word, tag);
        loop {
            let slot = self.slots[i];
            if slot.word == word && slot.tag == tag {
                return Some(slot.id);
            }
            if slot.tag == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Holds `word` of `tag`, which is not held, as `id`.
    fn insert(&mut self, word: u64, tag: u32, id: u32) {
        if 2 * (self.held + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(word, tag);
        while self.slots[i].tag != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = SmallSlot { word, tag, id };
        self.held += 1;
    }

    #[cold]
    fn grow(&mut self) {
        let len = (2 * self.slots.len()).max(16);
        let old = std::mem::replace(&mut self.slots, vec![SmallSlot::default(); len]);
        self.shift = 64 - len.trailing_zeros();
        self.held = 0;
        for slot in old.into_iter().filter(|s| s.tag != 0) {
            self.insert(slot.word, slot.tag, slot.id);
        }
    }

    fn held_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<SmallSlot>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a literal reference (a list searched from the start): ids in first-appearance
    /// order, short and long names mixed, across the table's growth and rehashing.
    #[test]
    fn ids_follow_first_appearance_like_a_list_search() {
        let mut rng = hindsight_rng::SplitMix64::new(43);
        let mut interner = Interner::default();
        let mut reference: Vec<Vec<u8>> = Vec::new();
        for _ in 0..4_000 {
            let len = rng.below(24) as usize;
            // Few distinct bytes, so names repeat and share prefixes and suffixes.
            let name: Vec<u8> = (0..len).map(|_| b'a' + rng.below(3) as u8).collect();
            let expected = match reference.iter().position(|n| *n == name) {
                Some(i) => i as u32,
                None => {
                    reference.push(name.clone());
                    reference.len() as u32 - 1
                }
            };
            assert_eq!(interner.intern(&name), Ok(expected), "{name:?}");
        }
        assert_eq!(interner.len(), reference.len());
        for (i, name) in reference.iter().enumerate() {
            let text = std::str::from_utf8(name).expect("ascii");
            assert_eq!(interner.lookup(text), Some(i as u32));
            assert_eq!(interner.name(i as u32), text);
        }
        assert_eq!(interner.lookup("z"), None);
    }

    /// The same reference on many names of the shape of real traces' (a short prefix and a
    /// number, `x01` beside `x1`), across the small names' table's growth, with names of 7 to
    /// 10 bytes on both sides of its limit, and bytes that are not UTF-8 (refused, and never
    /// given an id).
    #[test]
    fn numbered_names_follow_first_appearance_like_a_list_search() {
        let prefixes: [&[u8]; 8] = [
            b"", b"x", b"T", b"-", b"ab\xff", b"Object@", b"Lock", b"V1.",
        ];
        let mut rng = hindsight_rng::SplitMix64::new(7);
        let mut interner = Interner::default();
        let mut reference: Vec<Vec<u8>> = Vec::new();
        let mut index: std::collections::HashMap<Vec<u8>, u32> = Default::default();
        for _ in 0..60_000 {
            let mut name = prefixes[rng.below(prefixes.len() as u64) as usize].to_vec();
            let number = match rng.below(3) {
                0 => rng.below(50),
                1 => rng.below(20_000),
                _ => rng.below(1 << 40),
            };
            if rng.below(10) == 0 {
                name.push(b'0');
            }
            name.extend_from_slice(number.to_string().as_bytes());
            // The list search, through an index so that the test stays fast.
            let expected = match index.get(&name) {
                Some(&i) => Ok(i),
                None if std::str::from_utf8(&name).is_err() => Err(NotUtf8),
                None => {
                    reference.push(name.clone());
                    index.insert(name.clone(), reference.len() as u32 - 1);
                    Ok(reference.len() as u32 - 1)
                }
            };
            assert_eq!(interner.intern(&name), expected, "{name:?}");
        }
        assert_eq!(interner.len(), reference.len());
        for (i, name) in reference.iter().enumerate() {
            let text = std::str::from_utf8(name).expect("utf-8");
            assert_eq!(interner.lookup(text), Some(i as u32));
            assert_eq!(interner.name(i as u32), text);
        }
        assert_eq!(interner.lookup("x1000000000000"), None);
        assert_eq!(interner.lookup(""), None);
        assert_eq!(interner.intern(b""), Ok(reference.len() as u32));
        assert_eq!(interner.lookup(""), Some(reference.len() as u32));
    }

    /// Past [`SMALL_MAX`] small names, new ones go to the general tables: ids still follow
    /// first appearance, and every name is found again, on both sides of the bound.
    #[test]
    fn small_names_past_the_small_table_s_bound_are_interned_in_the_general_tables() {
        let mut interner = Interner::default();
        let names: Vec<String> = (0..SMALL_MAX + 5_000).map(|i| format!("v{i}")).collect();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(interner.intern(name.as_bytes()), Ok(i as u32));
            // A name from before, interned again, keeps its id.
            let earlier = i / 2;
            assert_eq!(
                interner.intern(names[earlier].as_bytes()),
                Ok(earlier as u32)
            );
        }
        assert_eq!(interner.small.held, SMALL_MAX);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(interner.lookup(name), Some(i as u32));
            assert_eq!(interner.name(i as u32), name);
        }
        assert_eq!(interner.lookup("w1"), None);
    }

    #[test]
    fn short_keys_are_injective_and_match_long_lookups() {
        let names: Vec<Vec<u8>> = (0..=20)
            .flat_map(|n| [vec![b'a'; n], (0..n as u8).collect(), vec![0; n]])
            .collect();
        let mut interner = Interner::default();
        let ids: Vec<u32> = names
            .iter()
            .map(|n| interner.intern(n).expect("utf-8"))
            .collect();
        for (i, a) in names.iter().enumerate() {
            for (j, b) in names.iter().enumerate() {
                assert_eq!(ids[i] == ids[j], a == b, "{a:?} vs {b:?}");
            }
            if a.len() <= 15 {
                let mut padded = [0u8; 16];
                padded[..a.len()].copy_from_slice(a);
                padded[15] = a.len() as u8;
                assert_eq!(short_key(a), Some(u128::from_le_bytes(padded)));
            }
        }
    }
}

impl Interner {
    /// The id of `bytes`, allocating a new one the first time it is seen.
    #[inline]
    pub fn intern(&mut self, bytes: &[u8]) -> Result<u32, NotUtf8> {
        if bytes.len() <= 8 {
            return self.intern_small(load(bytes), bytes.len());
        }
        self.intern_long(bytes)
    }

    /// [`Self::intern`] of the name of `len` bytes (at most 8) that `word` holds (its bytes,
    /// little-endian, zero past them), taken by the caller while finding the name's end: the
    /// bytes are read again only for a new name.
    // Inlined into the one-pass parser's loop: out of line, saving and restoring registers
    // around the call cost as much as the lookup (`BENCHMARKS.md`, #43).
    #[inline(always)]
    pub(crate) fn intern_small(&mut self, word: u64, len: usize) -> Result<u32, NotUtf8> {
        debug_assert!(len <= 8 && (len == 8 || word >> (8 * len) == 0));
        let tag = len as u32 + 1;
        if let Some(id) = self.small.find(word, tag) {
            return Ok(id);
        }
        self.intern_small_missed(word, len)
    }

    /// [`Self::intern_small`] of a name that the small names' table does not hold.
    #[inline(never)]
    fn intern_small_missed(&mut self, word: u64, len: usize) -> Result<u32, NotUtf8> {
        let bytes = word.to_le_bytes();
        let bytes = &bytes[..len.min(8)];
        // Until it is full, every name of at most 8 bytes is in the small table: one that it
        // does not hold is new.
        if self.small.held < SMALL_MAX {
            return self.intern_new_small(bytes, word, len as u32 + 1);
        }
        self.intern_long(bytes)
    }

    /// [`Self::intern`] of a name longer than 8 bytes: kept out of line, so that the small
    /// names' lookup is inlined into the parsers' loops.
    #[inline(never)]
    fn intern_long(&mut self, bytes: &[u8]) -> Result<u32, NotUtf8> {
        let key = short_key(bytes);
        // The hash is computed once, for the lookup and for the insertion.
        let hash = key.map(hash_short);
        let known = match (key, hash) {
            (Some(k), Some(h)) => self.find_short(k, h),
            _ => self.long.get(bytes).copied(),
        };
        if let Some(id) = known {
            return Ok(id);
        }
        let name = std::str::from_utf8(bytes).map_err(|_| NotUtf8)?;
        let id = self.names.len() as u32;
        match (key, hash) {
            (Some(k), Some(h)) => {
                let keys = &self.short_keys;
                self.short
                    .insert_unique(h, id, |&i| hash_short(keys[i as usize]));
                self.short_keys.push(k);
            }
            _ => {
                self.long.insert(bytes.into(), id);
                self.short_keys.push(LONG);
                self.text += bytes.len();
            }
        }
        self.text += bytes.len();
        self.names.push(name.into());
        Ok(id)
    }

    /// A name of at most 8 bytes that [`Small`] does not hold.
    #[inline]
    fn intern_new_small(&mut self, bytes: &[u8], word: u64, tag: u32) -> Result<u32, NotUtf8> {
        let name = std::str::from_utf8(bytes).map_err(|_| NotUtf8)?;
        let id = self.names.len() as u32;
        self.small.insert(word, tag, id);
        // Never looked up by it: a stand-in keeps `short_keys` indexed by id.
        self.short_keys.push(LONG);
        self.text += bytes.len();
        self.names.push(name.into());
        Ok(id)
    }

    #[inline]
    fn find_short(&self, key: u128, hash: u64) -> Option<u32> {
        self.short
            .find(hash, |&i| self.short_keys[i as usize] == key)
            .copied()
    }

    pub fn lookup(&self, name: &str) -> Option<u32> {
        let bytes = name.as_bytes();
        if bytes.len() <= 8 {
            let found = self.small.find(load(bytes), bytes.len() as u32 + 1);
            if found.is_some() || self.small.held < SMALL_MAX {
                return found;
            }
        }
        match short_key(bytes) {
            Some(k) => self.find_short(k, hash_short(k)),
            None => self.long.get(name.as_bytes()).copied(),
        }
    }

    /// The name of `id`; ids come from this interner, so an unknown one is a bug.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Bytes held, roughly, in constant time: the tables by their capacities, and the
    /// names' text with an allocation's overhead each. A trace of a million variables holds a
    /// million names: what grows with the input is charged to a run's budget.
    pub fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        // What the allocator adds to each small allocation, about.
        const PER_ALLOCATION: usize = 16;
        (self.small.held_bytes()
            + self.short.capacity() * (size_of::<u32>() + 1)
            + self.short_keys.capacity() * size_of::<u128>()
            + self.long.capacity() * (size_of::<(Box<[u8]>, u32)>() + 1 + PER_ALLOCATION)
            + self.names.capacity() * (size_of::<Box<str>>() + PER_ALLOCATION)
            + self.text) as u64
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|s| &**s)
    }
}

/// Where a line parser puts the names it reads: the trace's own [`Names`], or the names a
/// chunk of lines parsed apart defines (`crate::chunked`), which are merged in trace order
/// later. Either way a name gets an id of its kind, in the order the parser interns them.
pub(crate) trait NameSink {
    fn intern(&mut self, kind: NameKind, bytes: &[u8]) -> Result<u32, NotUtf8>;
    /// [`NameSink::intern`] of the name of `len` bytes (at most 8) that `word` holds
    /// ([`Interner::intern_small`]).
    fn intern_small(&mut self, kind: NameKind, word: u64, len: usize) -> Result<u32, NotUtf8>;
}

impl NameSink for Names {
    // Inlined into each parser's call: out of line, saving and restoring registers around
    // the call costs more than the lookup of a small name.
    #[inline(always)]
    fn intern(&mut self, kind: NameKind, bytes: &[u8]) -> Result<u32, NotUtf8> {
        self.of_mut(kind).intern(bytes)
    }

    #[inline(always)]
    fn intern_small(&mut self, kind: NameKind, word: u64, len: usize) -> Result<u32, NotUtf8> {
        self.of_mut(kind).intern_small(word, len)
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
    /// Bytes held by every interner, roughly ([`Interner::held_bytes`]).
    pub fn held_bytes(&self) -> u64 {
        NameKind::ALL
            .iter()
            .map(|&kind| self.of(kind).held_bytes())
            .sum()
    }

    /// How many names there are, of all kinds together.
    pub fn total(&self) -> usize {
        NameKind::ALL.iter().map(|&kind| self.of(kind).len()).sum()
    }

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
