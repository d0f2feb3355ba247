//! Vector clocks and epochs.
//!
//! Written by hand rather than taken from a crate: the crates that exist are built for
//! distributed-systems message stamping (string process ids, maps), while the analyses here need
//! dense `u32` components indexed by `ThreadId`, in-place joins without allocation, and
//! FastTrack's epoch comparisons.
//!
//! **Many threads.** A trace of a server that starts a thread per request has hundreds of
//! thousands of threads, and the clock of each knows of most of the others (the main thread
//! joined them before forking the next; a shared lock passed their knowledge on). Dense clocks
//! then take memory in the square of the thread count. So a clock keeps the components of the
//! first [`DENSE`] threads in a plain array (every trace of a few threads lives there, at the
//! speed of an array), and the others in a persistent radix tree whose nodes clocks share: a
//! copy shares the whole tree, a join keeps a node whenever the other clock's node is the same
//! node or is below it, and only the paths that really differ are copied. Writes to those
//! components wait in a short sorted list before they go into the tree, so that a thread
//! counting its own epochs, or a main thread joining its workers one after the other, does not
//! copy a path at every step. Clocks that share history thus share memory; what one clock knows
//! and the others do not costs it a path of the tree.
//!
//! **Sharing the dense prefix too.** In a trace of many threads, the clock of a thread forked
//! by a main thread that has joined the first [`DENSE`] threads would copy those components
//! into a plain array of its own: [`DENSE`] numbers per thread, most of the memory of a
//! thread-per-request trace, and two such sets when an analysis runs a second pass. A clock
//! can therefore [`VectorClock::share_dense`]: from then on its first [`DENSE`] components live
//! in the shared tree like the others (a clock joined with such a clock does the same), and
//! only what differs costs memory. The happens-before pass does it to a thread's clock when it
//! forks a thread past [`SHARE_DENSE_FROM`], so traces of a few threads keep the array's speed.

use hindsight_trace::ThreadId;
use std::cell::RefCell;
use std::mem::size_of;
use std::rc::{Rc, Weak};

/// Threads whose components a clock keeps in its plain array.
pub const DENSE: usize = 64;

/// The thread count past which the happens-before pass keeps the dense prefix of the forking
/// thread's clock in the shared tree (see the module comment).
pub const SHARE_DENSE_FROM: usize = 4 * DENSE;

/// Bits of a thread id consumed per level of the tree; a node has `WIDTH` slots.
const BITS: u32 = 4;
const WIDTH: usize = 1 << BITS;

/// How many written components may wait outside the tree.
const PENDING_MAX: usize = 16;

/// A node of the tree: a leaf of `WIDTH` components, or `WIDTH` subtrees (absent: all zero).
#[derive(Clone, Debug)]
enum Node {
    Leaf([u32; WIDTH]),
    Inner([Option<Rc<Node>>; WIDTH]),
}

impl Node {
    fn empty_inner() -> Node {
        Node::Inner(Default::default())
    }
}

/// The components of threads `DENSE..`, and of the others too once `holds_dense` (indexed by
/// thread): a tree of height `height` (0: the root is a leaf) covers `WIDTH^(height + 1)` of
/// them.
#[derive(Clone, Debug, Default)]
struct Tree {
    root: Option<Rc<Node>>,
    height: u32,
    /// The components of threads `0..DENSE` are here, not in the plain array (which is then
    /// empty).
    holds_dense: bool,
}

/// The slot of `rel` in a node `level` levels above the leaves.
#[inline]
fn digit(rel: usize, level: u32) -> usize {
    (rel >> (BITS * level)) & (WIDTH - 1)
}

/// Whether a tree of `height` covers `rel`.
#[inline]
fn covers(height: u32, rel: usize) -> bool {
    let bits = BITS * (height + 1);
    bits >= usize::BITS || rel >> bits == 0
}

impl Tree {
    fn get(&self, rel: usize) -> u32 {
        if !covers(self.height, rel) {
            return 0;
        }
        let mut node = match &self.root {
            Some(n) => n,
            None => return 0,
        };
        let mut level = self.height;
        loop {
            match &**node {
                Node::Leaf(values) => return values[digit(rel, 0)],
                Node::Inner(kids) => match &kids[digit(rel, level)] {
                    Some(kid) => node = kid,
                    None => return 0,
                },
            }
            level -= 1;
        }
    }

    /// Raises the tree until it is at least `height` high: the old root becomes the first
    /// subtree of a new one.
    fn grow_to(&mut self, height: u32) {
        while self.height < height {
            if let Some(old) = self.root.take() {
                let mut kids: [Option<Rc<Node>>; WIDTH] = Default::default();
                kids[0] = Some(old);
                self.root = Some(Rc::new(Node::Inner(kids)));
            }
            self.height += 1;
        }
    }

    fn set(&mut self, rel: usize, value: u32) {
        let mut height = self.height;
        while !covers(height, rel) {
            height += 1;
        }
        self.grow_to(height);
        let mut slot = &mut self.root;
        let mut level = self.height;
        loop {
            let node = slot.get_or_insert_with(|| {
                Rc::new(if level == 0 {
                    Node::Leaf([0; WIDTH])
                } else {
                    Node::empty_inner()
                })
            });
            match Rc::make_mut(node) {
                Node::Leaf(values) => {
                    values[digit(rel, 0)] = value;
                    return;
                }
                Node::Inner(kids) => slot = &mut kids[digit(rel, level)],
            }
            level -= 1;
        }
    }

    /// Pointwise maximum with `other`, in place.
    fn join(&mut self, other: &Tree) {
        let Some(theirs) = &other.root else { return };
        if self.root.is_none() {
            self.root = other.root.clone();
            self.height = other.height;
            return;
        }
        self.grow_to(other.height);
        join_at(&mut self.root, self.height, theirs, other.height);
    }

    /// Every component that is not zero, in order of thread: `(rel, value)`.
    fn for_each_nonzero(&self, f: &mut impl FnMut(usize, u32)) {
        if let Some(root) = &self.root {
            visit(root, self.height, 0, f);
        }
    }
}

fn visit(node: &Node, level: u32, base: usize, f: &mut impl FnMut(usize, u32)) {
    match node {
        Node::Leaf(values) => {
            for (i, &v) in values.iter().enumerate() {
                if v != 0 {
                    f(base + i, v);
                }
            }
        }
        Node::Inner(kids) => {
            for (i, kid) in kids.iter().enumerate() {
                if let Some(kid) = kid {
                    visit(kid, level - 1, base + (i << (BITS * level)), f);
                }
            }
        }
    }
}

/// Joins `theirs` (a subtree of height `theirs_height`) into the subtree `mine` of height
/// `mine_height >= theirs_height`, at its first slots.
fn join_at(mine: &mut Option<Rc<Node>>, mine_height: u32, theirs: &Rc<Node>, theirs_height: u32) {
    if mine_height == theirs_height {
        match mine {
            None => *mine = Some(Rc::clone(theirs)),
            Some(m) => join_node(m, theirs),
        }
        return;
    }
    if let Some(m) = mine {
        if below_first(theirs, theirs_height, m, mine_height) {
            return;
        }
    }
    let node = mine.get_or_insert_with(|| Rc::new(Node::empty_inner()));
    match Rc::make_mut(node) {
        Node::Inner(kids) => join_at(&mut kids[0], mine_height - 1, theirs, theirs_height),
        Node::Leaf(_) => unreachable!("a subtree higher than another is not a leaf"),
    }
}

/// Whether `low` (of height `low_height`) is pointwise at most the first slots of `high`.
fn below_first(low: &Rc<Node>, low_height: u32, high: &Rc<Node>, high_height: u32) -> bool {
    let mut high = high;
    for _ in low_height..high_height {
        match &**high {
            Node::Inner(kids) => match &kids[0] {
                Some(kid) => high = kid,
                None => return false,
            },
            Node::Leaf(_) => return false,
        }
    }
    node_leq(low, high)
}

/// Whether every component of `a` is at most `b`'s (nodes of one height).
fn node_leq(a: &Rc<Node>, b: &Rc<Node>) -> bool {
    if Rc::ptr_eq(a, b) {
        return true;
    }
    match (&**a, &**b) {
        (Node::Leaf(x), Node::Leaf(y)) => x.iter().zip(y).all(|(p, q)| p <= q),
        (Node::Inner(x), Node::Inner(y)) => {
            if let Some(known) = known_leq(a, b) {
                return known;
            }
            let leq = x.iter().zip(y).all(|(p, q)| match (p, q) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(p), Some(q)) => node_leq(p, q),
            });
            remember_leq(a, b, leq);
            leq
        }
        _ => unreachable!("nodes of one height are of one kind"),
    }
}

/// A comparison of two inner nodes already made: whether `a ⊑ b`. The nodes are held
/// weakly: a node is never changed while a weak reference to it exists (`Rc::make_mut` moves
/// its value into a new node instead, and the old one can no longer be upgraded), and its
/// address is not reused while the reference holds the allocation, so an entry whose nodes
/// are still alive at the same addresses tells the truth.
struct Known {
    a: Weak<Node>,
    b: Weak<Node>,
    leq: bool,
}

/// How many comparisons [`KNOWN`] keeps (a direct-mapped cache: a new one replaces the
/// one in its slot).
const KNOWN_SLOTS: usize = 4096;

thread_local! {
    /// Comparisons of inner nodes made lately, by the nodes' addresses. Clocks of two
    /// families that were never copied from one another (a thread's happens-before clock
    /// and another's WCP clock) hold equal subtrees as distinct nodes, built by flushes and
    /// joins made apart; comparing them again at every lock event walked the subtrees each
    /// time, the threads of the trace at every step. Most comparisons are between the same
    /// old subtrees, so each is walked once.
    static KNOWN: RefCell<Vec<Option<Known>>> = const { RefCell::new(Vec::new()) };
}

fn known_slot(a: &Rc<Node>, b: &Rc<Node>) -> usize {
    let (a, b) = (Rc::as_ptr(a) as usize, Rc::as_ptr(b) as usize);
    let mixed =
        (a >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (b >> 4).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (mixed >> 40) % KNOWN_SLOTS
}

fn known_leq(a: &Rc<Node>, b: &Rc<Node>) -> Option<bool> {
    KNOWN.with(|known| {
        let known = known.borrow();
        let entry = known.get(known_slot(a, b))?.as_ref()?;
        let alive = |w: &Weak<Node>, n: &Rc<Node>| {
            w.strong_count() > 0 && std::ptr::eq(w.as_ptr(), Rc::as_ptr(n))
        };
        (alive(&entry.a, a) && alive(&entry.b, b)).then_some(entry.leq)
    })
}

fn remember_leq(a: &Rc<Node>, b: &Rc<Node>, leq: bool) {
    KNOWN.with(|known| {
        let mut known = known.borrow_mut();
        if known.is_empty() {
            known.resize_with(KNOWN_SLOTS, || None);
        }
        known[known_slot(a, b)] = Some(Known {
            a: Rc::downgrade(a),
            b: Rc::downgrade(b),
            leq,
        });
    });
}

/// Whether every component of `mine` (a subtree `level` levels above the leaves whose first
/// component is thread `base`) is at most `other`'s. `theirs` is `other`'s tree at
/// `theirs_level`: its root when `theirs_level` is below `level` (then it lies under `mine`'s
/// first slots), else its subtree at `mine`'s place. Where the two are one node, or `mine` is
/// below `theirs` already, nothing more is read; where their leaves differ, a component
/// above `theirs` is held against `other` as a whole (its pending components, and its plain
/// array when only `mine` holds the dense prefix in its tree).
fn tree_leq(
    mine: &Rc<Node>,
    level: u32,
    base: usize,
    theirs: Option<&Rc<Node>>,
    theirs_level: u32,
    other: &VectorClock,
) -> bool {
    // Below `theirs` in its tree alone (or one node with it): below `other`. A comparison of
    // two nodes is remembered (see [`KNOWN`]), the whole walk below is not (it reads
    // `other`'s pending components), so the nodes are compared first.
    if level == theirs_level && theirs.is_some_and(|t| node_leq(mine, t)) {
        return true;
    }
    match &**mine {
        Node::Leaf(values) => {
            let theirs = match theirs.map(|t| &**t) {
                Some(Node::Leaf(t)) if level == theirs_level => Some(t),
                _ => None,
            };
            values.iter().enumerate().all(|(i, &v)| {
                v <= theirs.map_or(0, |t| t[i]) || v <= other.get(ThreadId((base + i) as u32))
            })
        }
        Node::Inner(kids) => kids.iter().enumerate().all(|(i, kid)| {
            let Some(kid) = kid else { return true };
            let (their_kid, their_level) = if level > theirs_level {
                // `theirs` lies under the first slots: only the first kid reaches it.
                (theirs.filter(|_| i == 0), theirs_level)
            } else {
                match theirs.map(|t| &**t) {
                    Some(Node::Inner(t)) => (t[i].as_ref(), level - 1),
                    _ => (None, level - 1),
                }
            };
            tree_leq(
                kid,
                level - 1,
                base + (i << (BITS * level)),
                their_kid,
                their_level,
                other,
            )
        }),
    }
}

/// Pointwise maximum of two nodes of one height into `mine`: kept when `theirs` is below it,
/// replaced by `theirs` when above it, copied and merged only where the two differ.
fn join_node(mine: &mut Rc<Node>, theirs: &Rc<Node>) {
    if node_leq(theirs, mine) {
        return;
    }
    if node_leq(mine, theirs) {
        *mine = Rc::clone(theirs);
        return;
    }
    match (Rc::make_mut(mine), &**theirs) {
        (Node::Leaf(x), Node::Leaf(y)) => {
            for (p, &q) in x.iter_mut().zip(y) {
                *p = (*p).max(q);
            }
        }
        (Node::Inner(x), Node::Inner(y)) => {
            for (p, q) in x.iter_mut().zip(y) {
                match (p.as_mut(), q) {
                    (_, None) => {}
                    (None, Some(q)) => *p = Some(Rc::clone(q)),
                    (Some(p), Some(q)) => join_node(p, q),
                }
            }
        }
        _ => unreachable!("nodes of one height are of one kind"),
    }
}

/// A vector clock over the threads of a trace. Components never set are zero, so a clock
/// need not know how many threads there will be.
#[derive(Clone, Debug, Default)]
pub struct VectorClock {
    /// Components of threads `0..DENSE`; past its end, zero. Empty once `high.holds_dense`.
    low: Vec<u32>,
    /// Components of the threads kept in `high` written since they last went into it, as
    /// `(thread, value)` sorted by thread; each at least the tree's.
    pending: Vec<(u32, u32)>,
    high: Tree,
}

impl VectorClock {
    pub fn new() -> VectorClock {
        VectorClock::default()
    }

    /// The clock of a thread that has done nothing yet: its own component is 1, so that its
    /// first events are not mistaken for "nothing" (0).
    pub fn for_new_thread(t: ThreadId) -> VectorClock {
        let mut c = VectorClock::new();
        c.set(t, 1);
        c
    }

    #[inline]
    pub fn get(&self, t: ThreadId) -> u32 {
        let i = t.index();
        if i < DENSE {
            match self.low.get(i) {
                Some(&v) => v,
                None if self.high.holds_dense => self.get_high(i),
                None => 0,
            }
        } else {
            self.get_high(i)
        }
    }

    #[cold]
    #[inline(never)]
    fn get_high(&self, rel: usize) -> u32 {
        match self.pending_position(rel) {
            Ok(k) => self.pending[k].1,
            Err(_) => self.high.get(rel),
        }
    }

    fn pending_position(&self, rel: usize) -> Result<usize, usize> {
        self.pending
            .binary_search_by_key(&rel, |&(r, _)| r as usize)
    }

    #[inline]
    pub fn set(&mut self, t: ThreadId, value: u32) {
        let i = t.index();
        if i < self.low.len() {
            self.low[i] = value;
        } else if i < DENSE && !self.high.holds_dense {
            self.low.resize(i + 1, 0);
            self.low[i] = value;
        } else {
            self.set_high(i, value);
        }
    }

    /// Keeps the components of threads `0..DENSE` in the shared tree from now on, as those of
    /// the other threads (see the module comment); a clock joined with this one will too. The
    /// components are unchanged.
    pub fn share_dense(&mut self) {
        if self.high.holds_dense {
            return;
        }
        let mut merged: Vec<(u32, u32)> =
            Vec::with_capacity(self.low.iter().filter(|&&v| v != 0).count() + self.pending.len());
        merged.extend(
            self.low
                .iter()
                .enumerate()
                .filter(|(_, &v)| v != 0)
                .map(|(i, &v)| (i as u32, v)),
        );
        // The tree holds no thread below `DENSE` yet, so these come first and are at least
        // the tree's.
        merged.extend_from_slice(&self.pending);
        self.low = Vec::new();
        self.pending = merged;
        self.high.holds_dense = true;
        if self.pending.len() > PENDING_MAX {
            self.flush();
        }
    }

    /// Whether the components of threads `0..DENSE` are in the shared tree.
    pub fn shares_dense(&self) -> bool {
        self.high.holds_dense
    }

    #[cold]
    #[inline(never)]
    fn set_high(&mut self, rel: usize, value: u32) {
        if value < self.high.get(rel) {
            // A pending component is never below the tree's: a lower value goes in directly.
            if let Ok(k) = self.pending_position(rel) {
                self.pending.remove(k);
            }
            self.high.set(rel, value);
            return;
        }
        match self.pending_position(rel) {
            Ok(k) => self.pending[k].1 = value,
            Err(k) => {
                self.pending.insert(k, (rel as u32, value));
                if self.pending.len() > PENDING_MAX {
                    self.flush();
                }
            }
        }
    }

    /// Moves the pending components into the tree.
    fn flush(&mut self) {
        for (rel, value) in std::mem::take(&mut self.pending) {
            self.high.set(rel as usize, value);
        }
    }

    #[inline]
    pub fn increment(&mut self, t: ThreadId) {
        let v = self.get(t);
        self.set(t, v + 1);
    }

    /// Pointwise maximum, in place.
    #[inline]
    pub fn join(&mut self, other: &VectorClock) {
        if !self.high.holds_dense {
            join_into(&mut self.low, &other.low);
        } else if !other.low.is_empty() {
            self.join_low_into_tree(&other.low);
        }
        if other.high.root.is_some() || !other.pending.is_empty() {
            self.join_high(other);
        }
    }

    /// Joins another clock's plain array into this clock, which keeps those components in
    /// its tree.
    #[cold]
    #[inline(never)]
    fn join_low_into_tree(&mut self, low: &[u32]) {
        for (i, &v) in low.iter().enumerate() {
            if v > self.get_high(i) {
                self.set_high(i, v);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn join_high(&mut self, other: &VectorClock) {
        if other.high.holds_dense && !self.high.holds_dense {
            self.share_dense();
        }
        // The components pending in either clock, at their joined values, taken before the
        // trees are joined (a pending component hides the tree's). Allocated at the size of
        // the union: a clock per thread keeps its list, and a thread per request makes
        // hundreds of thousands of them.
        let mut merged: Vec<(u32, u32)> =
            Vec::with_capacity(union_len(&self.pending, &other.pending));
        let (mut a, mut b) = (0, 0);
        while a < self.pending.len() || b < other.pending.len() {
            let next_a = self.pending.get(a).map(|p| p.0);
            let next_b = other.pending.get(b).map(|p| p.0);
            let rel = match (next_a, next_b) {
                (Some(x), Some(y)) => x.min(y),
                (Some(x), None) => x,
                (None, Some(y)) => y,
                (None, None) => unreachable!("one list has an entry"),
            };
            if next_a == Some(rel) {
                a += 1;
            }
            if next_b == Some(rel) {
                b += 1;
            }
            let value = self
                .get_high(rel as usize)
                .max(other.get_high(rel as usize));
            merged.push((rel, value));
        }
        let before = self.high.root.clone();
        self.high.join(&other.high);
        // Each merged value is at least both trees' there, so at least the joined tree's; one
        // the joined tree already holds need not wait (a worker that flushed the main
        // thread's pending components into its tree hands them back through the tree, and
        // keeping them pending too would keep the main thread's list full).
        let tree_changed = match (&before, &self.high.root) {
            (Some(a), Some(b)) => !Rc::ptr_eq(a, b),
            (None, None) => false,
            _ => true,
        };
        if tree_changed {
            merged.retain(|&(rel, v)| v > self.high.get(rel as usize));
        }
        self.pending = merged;
        if self.pending.len() > PENDING_MAX {
            self.flush();
        }
    }

    /// Pointwise maximum with a clock held as plain components (thread `i` at `c[i]`), in
    /// place: what an analysis that stores clocks densely joins back into a thread's clock.
    #[inline]
    pub fn join_components(&mut self, c: &[u32]) {
        // Once the dense prefix lives in the tree, `low` stays empty: every component goes
        // through `set`.
        let from = if self.high.holds_dense {
            0
        } else {
            join_into(&mut self.low, &c[..c.len().min(DENSE)]);
            DENSE
        };
        for (i, &v) in c.iter().enumerate().skip(from) {
            let t = ThreadId(i as u32);
            if v > self.get(t) {
                self.set(t, v);
            }
        }
    }

    /// `self ⊑ other`: every component at most the other's. The trees are compared node by
    /// node, a node both share being below itself without a look inside: the cost follows
    /// what the two clocks do not share, not the threads they know of (a thread-per-request
    /// trace compares clocks of hundreds of thousands of components at every lock release).
    pub fn leq(&self, other: &VectorClock) -> bool {
        let low = self
            .low
            .iter()
            .enumerate()
            .all(|(i, &v)| v <= other.get(ThreadId(i as u32)));
        // A pending component is at least the tree's there, so checking both is checking
        // the component.
        low && self
            .pending
            .iter()
            .all(|&(rel, v)| v <= other.get(ThreadId(rel)))
            && match &self.high.root {
                None => true,
                Some(root) => {
                    // A higher tree of `other` holds the part `self`'s covers in its first
                    // slots.
                    let (mut theirs, mut level) = (other.high.root.as_ref(), other.high.height);
                    while level > self.high.height {
                        theirs = match theirs.map(|t| &**t) {
                            Some(Node::Inner(kids)) => kids[0].as_ref(),
                            _ => None,
                        };
                        level -= 1;
                    }
                    tree_leq(root, self.high.height, 0, theirs, level, other)
                }
            }
    }

    /// The heap bytes this clock holds alone: its plain array and its pending components.
    /// Its tree's nodes are shared with the clocks it was copied from or joined with, and
    /// charged to none of them (a caller that counts memory counts a clock as these bytes
    /// and its handle).
    pub fn own_heap_bytes(&self) -> usize {
        self.low.capacity() * size_of::<u32>() + self.pending.capacity() * size_of::<(u32, u32)>()
    }

    /// Copies `other` into `self`, reusing the allocation; the tree is shared, not copied.
    #[inline]
    pub fn copy_from(&mut self, other: &VectorClock) {
        self.low.clone_from(&other.low);
        if !self.pending.is_empty() || !other.pending.is_empty() {
            self.pending.clone_from(&other.pending);
        }
        if self.high.root.is_some()
            || other.high.root.is_some()
            || self.high.holds_dense != other.high.holds_dense
        {
            self.high.clone_from(&other.high);
        }
    }

    /// The bytes this clock adds to what the clocks it shares its tree with hold, estimated:
    /// its own arrays and one path of its tree, what a copy that then learns of one more
    /// thread than the clock it was copied from costs. A caller that keeps many clocks, each
    /// a copy of the one before joined with a little more, charges a budget with it.
    pub fn held_bytes(&self) -> usize {
        let path = match self.high.root {
            Some(_) => (self.high.height as usize + 1) * (size_of::<Node>() + 16),
            None => 0,
        };
        size_of::<VectorClock>() + self.own_heap_bytes() + path
    }

    /// Calls `f` with every component that is not zero, in order of thread.
    pub fn for_each_nonzero(&self, mut f: impl FnMut(ThreadId, u32)) {
        for (i, &v) in self.low.iter().enumerate() {
            if v != 0 {
                f(ThreadId(i as u32), v);
            }
        }
        let mut tree: Vec<(usize, u32)> = Vec::new();
        self.high
            .for_each_nonzero(&mut |rel, v| tree.push((rel, v)));
        // Both in order of thread; a pending component replaces the tree's.
        let (mut a, mut b) = (0, 0);
        while a < tree.len() || b < self.pending.len() {
            let from_tree = tree.get(a).copied();
            let pending = self.pending.get(b).map(|&(r, v)| (r as usize, v));
            let (rel, v) = match (from_tree, pending) {
                (Some(x), Some(p)) if x.0 < p.0 => {
                    a += 1;
                    x
                }
                (Some(x), Some(p)) => {
                    a += usize::from(x.0 == p.0);
                    b += 1;
                    p
                }
                (Some(x), None) => {
                    a += 1;
                    x
                }
                (None, Some(p)) => {
                    b += 1;
                    p
                }
                (None, None) => unreachable!("one list has an entry"),
            };
            if v != 0 {
                f(ThreadId(rel as u32), v);
            }
        }
    }

    /// The components as a dense vector, up to the last that is not zero: what a caller that
    /// indexes every thread (a poset's rows) reads.
    pub fn components(&self) -> Vec<u32> {
        let mut out = Vec::new();
        self.copy_components_into(&mut out);
        out
    }

    /// [`VectorClock::components`] into a buffer the caller reuses.
    pub fn copy_components_into(&self, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&self.low);
        if self.high.root.is_none() && self.pending.is_empty() {
            return;
        }
        let low = self.low.len();
        self.for_each_nonzero(|t, v| {
            if t.index() >= low {
                if out.len() <= t.index() {
                    out.resize(t.index() + 1, 0);
                }
                out[t.index()] = v;
            }
        });
    }
}

/// Clocks are equal when every component is: however each keeps them.
impl PartialEq for VectorClock {
    fn eq(&self, other: &VectorClock) -> bool {
        let mut mine = Vec::new();
        self.for_each_nonzero(|t, v| mine.push((t, v)));
        let mut theirs = Vec::new();
        other.for_each_nonzero(|t, v| theirs.push((t, v)));
        mine == theirs
    }
}

impl Eq for VectorClock {}

/// How many distinct threads two sorted lists of pending components name together.
fn union_len(a: &[(u32, u32)], b: &[(u32, u32)]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i].0, b[j].0);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
        n += 1;
    }
    n + (a.len() - i) + (b.len() - j)
}

/// Pointwise maximum of two clocks held as plain component vectors, in place: `into` grows to
/// `other`'s length, missing components being zero. The one join of dense clocks in the
/// workspace: the low components of [`VectorClock`]s and the `Vec<u32>` clocks of callers that
/// index them otherwise.
#[inline]
pub fn join_into(into: &mut Vec<u32>, other: &[u32]) {
    if other.len() > into.len() {
        into.resize(other.len(), 0);
    }
    for (a, &b) in into.iter_mut().zip(other) {
        *a = (*a).max(b);
    }
}

/// FastTrack's epoch `c@t`: the `c`-th epoch of thread `t`. An event in that epoch happens
/// before an event whose clock `C` has `C[t] >= c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Epoch {
    pub thread: ThreadId,
    pub clock: u32,
}

impl Epoch {
    /// Whether an event of this epoch happens before (or is) an event with clock `vc`.
    #[inline]
    pub fn happens_before(self, vc: &VectorClock) -> bool {
        self.clock <= vc.get(self.thread)
    }
}
