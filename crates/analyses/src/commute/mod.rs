//! Commutativity races (Dimitrov, Raychev, Vechev, Koskinen, PLDI'14).
//!
//! Two actions (method calls on one shared object) race when they may happen in parallel and
//! their spec does not say they commute (Definition 4.3). Specs are written in a small language
//! ([`spec`], [`parse`]); formulas in the paper's ECL fragment ([`ecl`]) are translated to access
//! points ([`translate`]) and checked by Algorithm 1 with a bounded number of lookups per action
//! (Theorem 6.6); pairs outside ECL are checked directly against every earlier action
//! (Section 5.1).
//!
//! Algorithm 1 keeps, per active access point, the join of the clocks of the actions that
//! touched it. We keep instead the latest action of each thread that touched it and is not
//! ordered before a later one (an antichain, usually of one action): "the join is not below
//! the current clock" holds exactly when one of them is unordered with the current action, so
//! the verdict is the paper's, and the kept actions name a partner for the report.

pub mod builtin;
pub mod ecl;
pub mod parse;
pub mod spec;
pub mod translate;

use crate::driver::{Analysis, AnalysisOutput};
use hindsight_order::{HappensBefore, VectorClock};
use hindsight_report::{EventRef, Finding, Rule};
use hindsight_trace::event::DisplayValue;
use hindsight_trace::{ErrorKind, Event, LocId, Names, ObjId, Op, SymId, ThreadId, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value as Json;
use spec::{ObjectSpec, SpecError, SpecFile, Val};
use translate::Representation;

/// Most parameters (arguments and results) a method may have.
pub const MAX_PARAMS: usize = 8;

/// An object type ready for analysis.
pub struct CompiledSpec {
    pub spec: ObjectSpec,
    pub rep: Representation,
    /// Per method, whether it takes part in a pair checked directly.
    direct_methods: Vec<bool>,
    /// Per class, its rank among the valued classes (`UNKNOWN` for `ds` classes): where its
    /// point for a value sits in that value's row of [`ObjState::valued`].
    valued_rank: Vec<u32>,
    /// How many classes are valued: the length of a value's row.
    valued_classes: usize,
    /// The most parameters any method has.
    max_params: usize,
    /// Per method, its atoms in a form that decides integers and `nil` without converting
    /// values (the common case), falling back to the atom itself otherwise.
    quick_atoms: Vec<Vec<QuickAtom>>,
}

/// An operand of an atom as [`QuickAtom`] sees it.
#[derive(Clone, Copy, Debug)]
enum QuickTerm {
    Param(usize),
    /// An integer or `nil` constant.
    Value(Value),
    /// A symbol or string constant: only the full comparison decides.
    Other,
}

#[derive(Clone, Copy, Debug)]
struct QuickAtom {
    less: bool,
    left: QuickTerm,
    right: QuickTerm,
}

impl QuickAtom {
    fn of(atom: &translate::LocalAtom) -> QuickAtom {
        let term = |t: &translate::LocalTerm| match t {
            translate::LocalTerm::Param(i) => QuickTerm::Param(*i),
            translate::LocalTerm::Const(translate::ConstKey::Nil) => QuickTerm::Value(Value::Nil),
            translate::LocalTerm::Const(translate::ConstKey::Int(i)) => {
                QuickTerm::Value(Value::Int(*i))
            }
            translate::LocalTerm::Const(_) => QuickTerm::Other,
        };
        QuickAtom {
            less: atom.less,
            left: term(&atom.left),
            right: term(&atom.right),
        }
    }
}

impl CompiledSpec {
    /// The β vector of an action of method `m` with parameter values `vals`: the atoms'
    /// truth, decided on the values directly when both sides are integers or `nil` (where
    /// `Value` equality and integer order agree with [`Val`]'s), through [`Val`] otherwise.
    #[inline]
    fn beta(&self, m: usize, vals: &[Value], names: &Names) -> u32 {
        let quick = |t: QuickTerm| match t {
            QuickTerm::Param(i) => match vals[i] {
                v @ (Value::Int(_) | Value::Nil) => Some(v),
                _ => None,
            },
            QuickTerm::Value(v) => Some(v),
            QuickTerm::Other => None,
        };
        let mut beta = 0;
        for (bit, (q, atom)) in self.quick_atoms[m]
            .iter()
            .zip(&self.rep.atoms[m])
            .enumerate()
        {
            let holds = match (q.less, quick(q.left), quick(q.right)) {
                (false, Some(a), Some(b)) => a == b,
                (true, Some(Value::Int(a)), Some(Value::Int(b))) => a < b,
                _ => atom.eval(|i| val(vals[i], names)),
            };
            beta |= u32::from(holds) << bit;
        }
        beta
    }
}

impl CompiledSpec {
    pub fn compile(spec: ObjectSpec, force_direct: bool) -> Result<CompiledSpec, SpecError> {
        for m in &spec.methods {
            if m.params.len() > MAX_PARAMS {
                return Err(SpecError {
                    span: m.span,
                    message: format!(
                        "method `{}` has {} parameters; at most {MAX_PARAMS} are supported",
                        m.name,
                        m.params.len()
                    ),
                });
            }
        }
        let rep = translate::translate(&spec, force_direct)?;
        let n = spec.methods.len();
        let direct_methods = (0..n)
            .map(|a| (0..n).any(|b| rep.is_direct(a, b)))
            .collect();
        let mut valued_classes = 0;
        let valued_rank = rep
            .classes
            .iter()
            .map(|c| {
                if c.valued {
                    valued_classes += 1;
                    valued_classes as u32 - 1
                } else {
                    UNKNOWN
                }
            })
            .collect();
        let max_params = spec.methods.iter().map(|m| m.params.len()).max();
        let quick_atoms = rep
            .atoms
            .iter()
            .map(|atoms| atoms.iter().map(QuickAtom::of).collect())
            .collect();
        Ok(CompiledSpec {
            spec,
            rep,
            direct_methods,
            valued_rank,
            valued_classes,
            max_params: max_params.unwrap_or(0),
            quick_atoms,
        })
    }
}

/// Compiles every object of a spec file.
pub fn compile_file(file: SpecFile, force_direct: bool) -> Result<Vec<CompiledSpec>, SpecError> {
    file.objects
        .into_iter()
        .map(|o| CompiledSpec::compile(o, force_direct))
        .collect()
}

/// Which spec each object of the trace follows.
#[derive(Clone, Debug)]
pub enum Binding {
    /// Every object follows the one spec.
    All(usize),
    /// By object name; other objects are an error.
    Named(FxHashMap<String, usize>),
}

/// An action as a race reports it.
#[derive(Clone, Copy, Debug)]
struct Action {
    head: Head,
    vals: [Value; MAX_PARAMS],
}

/// What the journal keeps of an action besides its values.
#[derive(Clone, Copy, Debug)]
struct Head {
    index: u64,
    thread: ThreadId,
    clock: u32,
    loc: Option<LocId>,
    method: u16,
    len: u8,
}

impl Head {
    #[inline]
    fn ordered_before(&self, t: ThreadId, vc: &VectorClock) -> bool {
        self.thread == t || self.clock <= vc.get(self.thread)
    }
}

/// A value of a trace as formulas see it.
#[inline]
pub fn val(v: Value, names: &Names) -> Val<'_> {
    match v {
        Value::Int(i) => Val::Int(i),
        Value::Nil => Val::Nil,
        Value::Sym(s) => Val::Sym(names.symbol(s)),
        Value::Str(s) => Val::Str(names.symbol(s)),
    }
}

fn vals_of<'n>(vals: &[Value], names: &'n Names) -> [Val<'n>; MAX_PARAMS] {
    let mut out = [Val::Nil; MAX_PARAMS];
    for (o, v) in out.iter_mut().zip(vals) {
        *o = val(*v, names);
    }
    out
}

/// An access point of one object: a class, with its value for valued classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Point {
    Ds(u32),
    Valued(u32, Value),
    /// Not a point: the pair was checked directly against the formula.
    Direct,
}

/// Where the details of the actions still referenced by some access point live: written once
/// per action, read only to report a race or to check a pair directly. Slots are recycled by
/// a sweep that runs when the journal has doubled since the last one, so memory stays
/// proportional to what the access points reference (at most one action per thread and
/// point), not to the trace. Values live in a table of `stride` per slot rather than in a
/// fixed array per action, so that writing an action copies only what the specs can use.
struct Journal {
    heads: Vec<Head>,
    vals: Vec<Value>,
    stride: usize,
    free: Vec<u32>,
    live_after_sweep: usize,
}

impl Journal {
    fn new(stride: usize) -> Journal {
        Journal {
            heads: Vec::new(),
            vals: Vec::new(),
            stride,
            free: Vec::new(),
            live_after_sweep: 0,
        }
    }

    #[inline]
    fn alloc(&mut self, head: Head, vals: &[Value; MAX_PARAMS]) -> u32 {
        let row = &vals[..self.stride];
        match self.free.pop() {
            Some(i) => {
                self.heads[i as usize] = head;
                let from = i as usize * self.stride;
                self.vals[from..from + self.stride].copy_from_slice(row);
                i
            }
            None => {
                self.heads.push(head);
                self.vals.extend_from_slice(row);
                (self.heads.len() - 1) as u32
            }
        }
    }

    #[inline]
    fn vals(&self, slot: u32) -> &[Value] {
        let from = slot as usize * self.stride;
        &self.vals[from..from + self.heads[slot as usize].len as usize]
    }

    fn action(&self, slot: u32) -> Action {
        let mut vals = [Value::Nil; MAX_PARAMS];
        for (d, v) in vals.iter_mut().zip(self.vals(slot)) {
            *d = *v;
        }
        Action {
            head: self.heads[slot as usize],
            vals,
        }
    }

    /// A sweep costs time proportional to the journal; running one only when it has grown well
    /// past what was live keeps that cost a few instructions per action.
    fn wants_sweep(&self) -> bool {
        self.free.is_empty() && self.heads.len() >= 4 * self.live_after_sweep + (1 << 16)
    }

    /// Frees every slot that `referenced` does not mark.
    fn sweep(&mut self, referenced: &[bool]) {
        self.free = (0..self.heads.len() as u32)
            .filter(|&i| !referenced[i as usize])
            .collect();
        self.free.reverse();
        self.live_after_sweep = self.heads.len() - self.free.len();
    }
}

/// An action as an access point keeps it: its epoch, and its slot in the journal.
#[derive(Clone, Copy, Debug)]
struct Entry {
    thread: ThreadId,
    clock: u32,
    slot: u32,
}

/// The actions an access point keeps: at most one per thread, none ordered before another;
/// almost always one.
#[derive(Clone, Debug, Default)]
enum PointActions {
    #[default]
    Empty,
    One(Entry),
    Many(Vec<Entry>),
}

impl PointActions {
    fn entries(&self) -> &[Entry] {
        match self {
            PointActions::Empty => &[],
            PointActions::One(e) => std::slice::from_ref(e),
            PointActions::Many(v) => v,
        }
    }

    /// The latest action unordered with an access of `t` at `vc`: its index and slot.
    #[inline]
    fn latest_unordered(
        &self,
        t: ThreadId,
        vc: &VectorClock,
        journal: &Journal,
    ) -> Option<(u64, u32)> {
        match self {
            PointActions::Empty => return None,
            PointActions::One(e) => {
                if e.thread == t || e.clock <= vc.get(e.thread) {
                    return None;
                }
            }
            PointActions::Many(_) => {}
        }
        let mut best: Option<(u64, u32)> = None;
        for e in self.entries() {
            if e.thread != t && e.clock > vc.get(e.thread) {
                let index = journal.heads[e.slot as usize].index;
                if best.is_none_or(|(b, _)| index > b) {
                    best = Some((index, e.slot));
                }
            }
        }
        best
    }

    /// Adds `me`, dropping the actions ordered before it.
    #[inline]
    fn touch(&mut self, me: Entry, vc: &VectorClock) {
        // The usual case, one action ordered before `me`, is replaced in place.
        if let PointActions::One(e) = self {
            if e.thread == me.thread || e.clock <= vc.get(e.thread) {
                *e = me;
                return;
            }
        }
        self.touch_slow(me, vc);
    }

    #[inline(never)]
    fn touch_slow(&mut self, me: Entry, vc: &VectorClock) {
        let ordered = |e: &Entry| e.thread == me.thread || e.clock <= vc.get(e.thread);
        match self {
            PointActions::Empty => *self = PointActions::One(me),
            PointActions::One(e) => {
                if ordered(e) {
                    *e = me;
                } else {
                    *self = PointActions::Many(vec![*e, me]);
                }
            }
            PointActions::Many(v) => {
                v.retain(|e| !ordered(e));
                v.push(me);
                if v.len() == 1 {
                    *self = PointActions::One(v[0]);
                }
            }
        }
    }
}

#[derive(Default)]
struct ObjState {
    spec: usize,
    ds: Vec<PointActions>,
    /// A dense id for each value a valued point of this object has been touched with, so that
    /// an action finds all the points of one value with a single hash probe.
    value_ids: FxHashMap<Value, u32>,
    /// The ids of small non-negative integers, the usual keys, by value (`UNKNOWN`: none yet),
    /// which spares them the hash probe.
    small_ids: Vec<u32>,
    /// How many value ids there are.
    values: u32,
    /// The valued points: per value id, a row with one point per valued class.
    valued: Vec<PointActions>,
    /// Every action of a method in a directly checked pair (journal slots).
    history: Vec<u32>,
}

/// Integers in `0..SMALL_INTS` get their value id from a table rather than a hash map.
const SMALL_INTS: i64 = 1 << 12;

impl ObjState {
    /// Where the row of `v`'s points starts in `valued`, making one if `v` is new.
    #[inline]
    fn value_row(&mut self, v: Value, row: usize) -> usize {
        let id = match v {
            Value::Int(i) if (0..SMALL_INTS).contains(&i) => {
                let i = i as usize;
                match self.small_ids.get(i) {
                    Some(&id) if id != UNKNOWN => id,
                    _ => {
                        if i >= self.small_ids.len() {
                            self.small_ids.resize(i + 1, UNKNOWN);
                        }
                        let id = self.new_value(row);
                        self.small_ids[i] = id;
                        id
                    }
                }
            }
            _ => match self.value_ids.get(&v) {
                Some(&id) => id,
                None => {
                    let id = self.new_value(row);
                    self.value_ids.insert(v, id);
                    id
                }
            },
        };
        id as usize * row
    }

    fn new_value(&mut self, row: usize) -> u32 {
        self.valued
            .resize(self.valued.len() + row, PointActions::Empty);
        self.values += 1;
        self.values - 1
    }
}

struct Race {
    object: ObjId,
    spec: usize,
    partner: Action,
    racy: Action,
    points: (Point, Point),
}

/// The `commute` analysis.
pub struct Commute {
    specs: Vec<CompiledSpec>,
    binding: Binding,
    objects: Vec<Option<ObjState>>,
    /// Per spec, trace method symbol → method index (`u32::MAX`: not looked up yet).
    methods: Vec<Vec<u32>>,
    races: Vec<Race>,
    actions: u64,
    journal: Journal,
}

const UNKNOWN: u32 = u32::MAX;

impl Commute {
    pub fn new(specs: Vec<CompiledSpec>, binding: Binding) -> Commute {
        let methods = vec![Vec::new(); specs.len()];
        let stride = specs.iter().map(|s| s.max_params).max().unwrap_or(0);
        Commute {
            specs,
            binding,
            objects: Vec::new(),
            methods,
            races: Vec::new(),
            actions: 0,
            journal: Journal::new(stride),
        }
    }

    /// The races found so far: (racy action index, partner index), in trace order.
    pub fn races(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.races
            .iter()
            .map(|r| (r.racy.head.index, r.partner.head.index))
    }

    #[inline]
    fn object_state(&mut self, o: ObjId, names: &Names) -> Result<&mut ObjState, ErrorKind> {
        if o.index() >= self.objects.len() || self.objects[o.index()].is_none() {
            self.new_object(o, names)?;
        }
        Ok(self.objects[o.index()].as_mut().expect("just set"))
    }

    #[cold]
    fn new_object(&mut self, o: ObjId, names: &Names) -> Result<(), ErrorKind> {
        if o.index() >= self.objects.len() {
            self.objects.resize_with(o.index() + 1, || None);
        }
        let name = names.object(o);
        let spec = match &self.binding {
            Binding::All(s) => *s,
            Binding::Named(map) => *map.get(name).ok_or_else(|| {
                ErrorKind::Analysis(format!(
                    "object `{name}` has no spec: bind it with --bind {name}=TYPE"
                ))
            })?,
        };
        let classes = self.specs[spec].rep.classes.len();
        self.objects[o.index()] = Some(ObjState {
            spec,
            ds: vec![PointActions::default(); classes],
            ..ObjState::default()
        });
        Ok(())
    }

    #[inline]
    fn method(
        &mut self,
        spec: usize,
        sym: SymId,
        names: &Names,
        object: ObjId,
    ) -> Result<usize, ErrorKind> {
        match self.methods[spec].get(sym.index()) {
            Some(&m) if m != UNKNOWN => Ok(m as usize),
            _ => self.look_up_method(spec, sym, names, object),
        }
    }

    #[cold]
    fn look_up_method(
        &mut self,
        spec: usize,
        sym: SymId,
        names: &Names,
        object: ObjId,
    ) -> Result<usize, ErrorKind> {
        let cache = &mut self.methods[spec];
        if sym.index() >= cache.len() {
            cache.resize(sym.index() + 1, UNKNOWN);
        }
        let name = names.symbol(sym);
        let s = &self.specs[spec].spec;
        let m = s.method(name).ok_or_else(|| {
            ErrorKind::Analysis(format!(
                "`{name}` is not a method of {} (object `{}`)",
                s.name,
                names.object(object)
            ))
        })?;
        cache[sym.index()] = m as u32;
        Ok(m)
    }

    fn action(
        &mut self,
        e: &Event,
        call: &hindsight_trace::Call,
        hb: &HappensBefore,
        names: &Names,
    ) -> Result<(), ErrorKind> {
        self.actions += 1;
        let spec_ix = self.object_state(call.object, names)?.spec;
        let m = self.method(spec_ix, call.method, names, call.object)?;
        let compiled = &self.specs[spec_ix];
        let method = &compiled.spec.methods[m];
        if call.args.len() != method.args || call.results.len() != method.results() {
            return Err(ErrorKind::Analysis(format!(
                "{}.{} takes {} argument(s) and {} result(s), the call has {} and {}",
                compiled.spec.name,
                method.name,
                method.args,
                method.results(),
                call.args.len(),
                call.results.len()
            )));
        }
        let nargs = call.args.len();
        let len = method.params.len();
        let mut vals = [Value::Nil; MAX_PARAMS];
        vals[..nargs].copy_from_slice(&call.args);
        vals[nargs..len].copy_from_slice(&call.results);
        let t = e.thread;
        let vc = hb.clock(t);
        let head = Head {
            index: e.index,
            thread: t,
            clock: vc.get(t),
            loc: e.loc,
            method: m as u16,
            len: len as u8,
        };
        let rep = &compiled.rep;
        let beta = compiled.beta(m, &vals[..len], names);
        let state = self.objects[call.object.index()]
            .as_mut()
            .expect("created above");
        let row = compiled.valued_classes;
        let rank = |c: u32| compiled.valued_rank[c as usize] as usize;

        // Phase 1: the latest earlier action unordered with this one on a conflicting point.
        // `best` holds its index, journal slot, and the two points.
        let mut best: Option<(u64, u32, Point, Point)> = None;
        let mut consider = |a: Option<(u64, u32)>, mine: Point, theirs: Point| {
            if let Some((index, slot)) = a {
                if best.is_none_or(|(b, ..)| index > b) {
                    best = Some((index, slot, theirs, mine));
                }
            }
        };
        let journal = &mut self.journal;
        let ds = rep.ds_point(m, beta);
        if let Some(c) = ds {
            for &c2 in &rep.conflicts[c as usize] {
                let a = state.ds[c2 as usize].latest_unordered(t, vc, journal);
                consider(a, Point::Ds(c), Point::Ds(c2));
            }
        }
        let value_points = rep.value_points(m, beta);
        // Per parameter with a valued point, the row of its value.
        let mut rows = [0usize; MAX_PARAMS];
        for (i, pc) in value_points.iter().enumerate() {
            if let Some(c) = *pc {
                let v = vals[i];
                let base = state.value_row(v, row);
                rows[i] = base;
                for &c2 in &rep.conflicts[c as usize] {
                    debug_assert_ne!(compiled.valued_rank[c2 as usize], UNKNOWN);
                    let a = state.valued[base + rank(c2)].latest_unordered(t, vc, journal);
                    consider(a, Point::Valued(c, v), Point::Valued(c2, v));
                }
            }
        }
        if compiled.direct_methods[m] {
            let mine = vals_of(&vals[..len], names);
            for &slot in &state.history {
                let a = &journal.heads[slot as usize];
                if rep.is_direct(a.method as usize, m) && !a.ordered_before(t, vc) {
                    let commutes = match compiled.spec.rule(a.method as usize, m) {
                        None => false,
                        Some((rule, swapped)) => {
                            let theirs = vals_of(journal.vals(slot), names);
                            let (first, second) = if swapped {
                                (&mine[..], &theirs[..])
                            } else {
                                (&theirs[..], &mine[..])
                            };
                            rule.formula.eval(first, second)
                        }
                    };
                    if !commutes {
                        consider(Some((a.index, slot)), Point::Direct, Point::Direct);
                    }
                }
            }
        }
        // The partner's slot is referenced by a point or the history, so it is not recycled
        // before the race is recorded below; read it now all the same.
        let partner = best.map(|(_, slot, theirs, mine)| (journal.action(slot), theirs, mine));

        // Phase 2: this action joins every point it touches, replacing what it covers.
        let touches = ds.is_some() || value_points.iter().any(Option::is_some);
        if touches || compiled.direct_methods[m] {
            let entry = Entry {
                thread: t,
                clock: head.clock,
                slot: journal.alloc(head, &vals),
            };
            if compiled.direct_methods[m] {
                state.history.push(entry.slot);
            }
            if let Some(c) = ds {
                state.ds[c as usize].touch(entry, vc);
            }
            for (i, pc) in value_points.iter().enumerate() {
                if let Some(c) = *pc {
                    state.valued[rows[i] + rank(c)].touch(entry, vc);
                }
            }
        }
        if let Some((partner, theirs, mine)) = partner {
            self.races.push(Race {
                object: call.object,
                spec: spec_ix,
                partner,
                racy: Action { head, vals },
                points: (theirs, mine),
            });
        }
        if self.journal.wants_sweep() {
            self.sweep();
        }
        Ok(())
    }
}

impl Commute {
    /// Recycles the journal slots no access point references any more.
    #[cold]
    fn sweep(&mut self) {
        let mut referenced = vec![false; self.journal.heads.len()];
        for state in self.objects.iter().flatten() {
            let points = state.ds.iter().chain(&state.valued);
            for e in points.flat_map(PointActions::entries) {
                referenced[e.slot as usize] = true;
            }
            for &slot in &state.history {
                referenced[slot as usize] = true;
            }
        }
        self.journal.sweep(&referenced);
    }
}

fn render_call(a: &Action, object: &str, spec: &ObjectSpec, names: &Names) -> String {
    use std::fmt::Write as _;
    let method = &spec.methods[a.head.method as usize];
    let mut out = String::with_capacity(32 + object.len() + method.name.len());
    let show = |out: &mut String, vs: &[Value]| {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match v {
                Value::Int(i) => {
                    let _ = write!(out, "{i}");
                }
                Value::Nil => out.push_str("nil"),
                _ => {
                    let _ = write!(out, "{}", DisplayValue { value: v, names });
                }
            }
        }
    };
    let vals = &a.vals[..a.head.len as usize];
    let (args, results) = vals.split_at(method.args);
    out.push_str("call(");
    out.push_str(object);
    out.push('.');
    out.push_str(&method.name);
    out.push('(');
    show(&mut out, args);
    out.push(')');
    if !results.is_empty() {
        out.push('/');
        show(&mut out, results);
    }
    out.push(')');
    out
}

fn render_point(p: Point, rep: &Representation, names: &Names) -> String {
    match p {
        Point::Ds(c) => rep.classes[c as usize].name.clone(),
        Point::Valued(c, v) => format!(
            "{}({})",
            rep.classes[c as usize].name,
            DisplayValue { value: v, names }
        ),
        Point::Direct => "formula checked directly".into(),
    }
}

impl Analysis for Commute {
    fn name(&self) -> &'static str {
        "commute"
    }

    #[inline]
    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        match &e.op {
            Op::Call(call) => self.action(e, call, hb, names),
            _ => Ok(()),
        }
    }

    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let mut out = AnalysisOutput::default();
        let mut racy_objects = FxHashSet::default();
        for r in &self.races {
            racy_objects.insert(r.object);
            let object = names.object(r.object);
            let compiled = &self.specs[r.spec];
            let event = |a: &Action| EventRef {
                index: a.head.index,
                thread: names.thread(a.head.thread).to_owned(),
                op: render_call(a, object, &compiled.spec, names),
                location: a.head.loc.map(|l| names.location(l).to_owned()),
            };
            let (p, a) = (event(&r.partner), event(&r.racy));
            let points = [
                render_point(r.points.0, &compiled.rep, names),
                render_point(r.points.1, &compiled.rep, names),
            ];
            let message = format!(
                "{} by {} (#{}) does not commute with the earlier {} by {} (#{}), and they may run in either order",
                a.op, a.thread, a.index, p.op, p.thread, p.index
            );
            let mut fields = serde_json::Map::new();
            fields.insert("object".into(), Json::from(object));
            fields.insert("type".into(), Json::from(compiled.spec.name.as_str()));
            fields.insert("access_points".into(), Json::from(points.to_vec()));
            out.findings.push(Finding {
                kind: "commutativity-race".into(),
                message,
                events: vec![p, a],
                fields,
                group: Some(object.to_owned()),
            });
        }
        out.summary
            .insert("actions".into(), Json::from(self.actions));
        out.summary
            .insert("racy_actions".into(), Json::from(self.races.len()));
        out.summary
            .insert("racy_objects".into(), Json::from(racy_objects.len()));
        out.rules.push(Rule {
            id: "commutativity-race",
            description: "Two method calls on one object that may run in either order and are not specified to commute",
        });
        out
    }
}
