//! Runs the lowered form of a small Java program (`ir.rs`) and records the run as a trace in
//! the text format (`fork`, `join`, `begin`, `end`, `r(Class#id.field)`, `w(...)`), for the
//! trace-based views to analyse: the property tests hold the static verdict against the
//! verdict of such runs.
//!
//! The schedule is one of the program's real ones, picked by a seed: a started thread runs to
//! its end either at once or when it is joined (or when its parent ends). Unknown values
//! (library calls, strings) are small numbers drawn from the seed.
//!
//! Beside the trace, the run records which stale values it *acted on* under the rule the
//! static analysis uses (`analysis.rs`, rule 1): a value read in one region instance flows,
//! through data or control, into a write of a later region instance of the same thread. A
//! trace does not carry data flow, so this is what the trace-based verdict is filtered by
//! before the comparison.

use super::ir::*;
use super::models::{Effect, Models};
use hindsight_rng::SplitMix64;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// `(region instance, variable)`.
type Dep = (u64, u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum V {
    Int(i64),
    Ref(u32),
    Null,
}

#[derive(Clone, Debug)]
struct TV {
    v: V,
    taint: BTreeSet<Dep>,
}

impl TV {
    fn int(i: i64) -> TV {
        TV {
            v: V::Int(i),
            taint: BTreeSet::new(),
        }
    }
    fn with(v: V, taint: BTreeSet<Dep>) -> TV {
        TV { v, taint }
    }
    fn as_int(&self) -> i64 {
        match self.v {
            V::Int(i) => i,
            V::Ref(r) => r as i64 + 1,
            V::Null => 0,
        }
    }
}

struct Obj {
    site: SiteId,
    fields: FxHashMap<String, TV>,
    elems: Vec<TV>,
    /// Threads started on this object (a thread or an executor).
    threads: Vec<usize>,
}

enum Flow {
    Normal,
    Break,
    Continue,
    Return(TV),
}

struct DynThread {
    name: String,
    entry: Option<(MethodId, Vec<TV>)>,
    parent: usize,
    done: bool,
    running: bool,
    /// A task of a single-thread executor: the message it receives before it runs (sent by
    /// the task before it when that one ended) and the one it sends when it ends.
    receive: Option<String>,
    send: Option<String>,
}

/// A recorded run.
pub struct Run {
    /// The trace, in the text format.
    pub trace: String,
    /// `(thread, class-level variable)`: a later region of the thread acted on the value of the
    /// variable read in an earlier one.
    pub acted_on: BTreeSet<(String, String)>,
}

/// Why a run stopped.
#[derive(Debug)]
pub enum RunError {
    /// The run took more than its fuel (a loop that does not end, for instance).
    OutOfFuel,
    /// The program has no `main`.
    NoMain,
}

struct Interp<'p> {
    p: &'p Program,
    models: &'p Models,
    rng: SplitMix64,
    objs: Vec<Obj>,
    statics: FxHashMap<(ClassId, String), TV>,
    threads: Vec<DynThread>,
    cur: usize,
    /// Per thread: the open region instance and the nesting depth.
    region: Vec<(Option<u64>, u32)>,
    pending: Vec<Vec<usize>>,
    next_region: u64,
    var_names: Vec<String>,
    var_ids: FxHashMap<String, u32>,
    /// The trace's events, one line each; a read that rule 6 of the analysis keeps out of the
    /// read view is blanked when its region ends.
    trace: Vec<String>,
    /// Per thread: the reads of the open region (the line of the event, the variable) and
    /// the variables it wrote.
    region_reads: Vec<Vec<(usize, u32)>>,
    region_writes: Vec<BTreeSet<u32>>,
    /// The reads (region instance, variable) whose value was used in the region for more than
    /// writing its own variable back, or was still held when the region ended.
    escaped: BTreeSet<Dep>,
    acted_on: BTreeSet<(String, String)>,
    fuel: u64,
    depth: usize,
}

/// Runs `p` from its `main` with the schedule and unknown values of `seed`, for at most
/// `fuel` steps.
pub fn run(p: &Program, models: &Models, seed: u64, fuel: u64) -> Result<Run, RunError> {
    let main = p.main.ok_or(RunError::NoMain)?;
    let mut x = Interp {
        p,
        models,
        rng: SplitMix64::new(seed),
        objs: Vec::new(),
        statics: FxHashMap::default(),
        threads: vec![DynThread {
            name: "main".into(),
            entry: None,
            parent: 0,
            done: false,
            running: true,
            receive: None,
            send: None,
        }],
        cur: 0,
        region: vec![(None, 0)],
        pending: vec![Vec::new()],
        next_region: 0,
        var_names: Vec::new(),
        var_ids: FxHashMap::default(),
        trace: Vec::new(),
        region_reads: vec![Vec::new()],
        region_writes: vec![BTreeSet::new()],
        escaped: BTreeSet::new(),
        acted_on: BTreeSet::new(),
        fuel,
        depth: 0,
    };
    for c in 0..p.classes.len() {
        if let Some(m) = p.classes[c].clinit {
            x.invoke(m, Vec::new())?;
        }
    }
    x.invoke(main, vec![TV::int(0)])?;
    x.finish_children(0)?;
    Ok(Run {
        trace: x
            .trace
            .iter()
            .filter(|l| !l.is_empty())
            .fold(String::new(), |mut t, l| {
                t.push_str(l);
                t.push('\n');
                t
            }),
        acted_on: x.acted_on,
    })
}

/// Whether a block may reach its end (the static analysis's "live after it").
fn falls_through(stmts: &[Stmt]) -> bool {
    match stmts.last() {
        Some(Stmt::Return(_) | Stmt::Break | Stmt::Continue) => false,
        Some(Stmt::If(_, a, b)) => falls_through(a) || falls_through(b),
        Some(Stmt::Atomic(_, b)) => falls_through(b),
        Some(Stmt::Loop(body, _)) => breaks(body),
        _ => true,
    }
}

/// Whether a loop body has a `break` of its own.
fn breaks(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break => true,
        Stmt::If(_, a, b) => breaks(a) || breaks(b),
        Stmt::Atomic(_, b) => breaks(b),
        _ => false,
    })
}

impl Interp<'_> {
    fn step(&mut self) -> Result<(), RunError> {
        if self.fuel == 0 {
            return Err(RunError::OutOfFuel);
        }
        self.fuel -= 1;
        Ok(())
    }

    fn event(&mut self, op: &str) {
        self.trace
            .push(format!("{}|{op}", self.threads[self.cur].name));
    }

    fn var(&mut self, name: String) -> u32 {
        if let Some(&v) = self.var_ids.get(&name) {
            return v;
        }
        let id = self.var_names.len() as u32;
        self.var_names.push(name.clone());
        self.var_ids.insert(name, id);
        id
    }

    /// The trace name of field `field` of object `o`: `Class#o.field`, `Name#o.[]`.
    fn field_var(&mut self, o: u32, field: &str) -> u32 {
        let site = &self.p.sites[self.objs[o as usize].site as usize];
        let name = match &site.kind {
            SiteKind::Object(c) | SiteKind::Library(c) => {
                format!("{}#{o}.{field}", self.p.field_owner(*c, field))
            }
            _ if site.state => format!("{}#{o}.<state>", site.name),
            _ => format!("{}#{o}.[]", site.name),
        };
        self.var(name)
    }

    fn read(&mut self, var: u32, out: &mut BTreeSet<Dep>, pc: &BTreeSet<Dep>) {
        let op = format!("r({})", self.var_names[var as usize]);
        self.event(&op);
        if let (Some(r), _) = self.region[self.cur] {
            out.insert((r, var));
            let line = self.trace.len() - 1;
            self.region_reads[self.cur].push((line, var));
            self.escape(pc);
        }
    }

    /// The open region's reads that `deps` holds are used for more than writing their own
    /// variable back (the analysis's `escape`).
    fn escape(&mut self, deps: &BTreeSet<Dep>) {
        if let (Some(r), _) = self.region[self.cur] {
            self.escaped
                .extend(deps.iter().filter(|d| d.0 == r).copied());
        }
    }

    /// The open region is about to end (it is at its outermost level): what it read and
    /// still holds in `locals`, `pc` or `value` leaves it.
    fn leaving(&mut self, locals: &[TV], pc: &BTreeSet<Dep>, value: Option<&TV>) {
        if self.region[self.cur].1 != 1 {
            return;
        }
        let held: BTreeSet<Dep> = locals
            .iter()
            .chain(value)
            .flat_map(|l| l.taint.iter())
            .chain(pc.iter())
            .copied()
            .collect();
        self.escape(&held);
    }

    fn write(&mut self, var: u32, value: &BTreeSet<Dep>, pc: &BTreeSet<Dep>) {
        let op = format!("w({})", self.var_names[var as usize]);
        self.event(&op);
        if let (Some(r), _) = self.region[self.cur] {
            self.region_writes[self.cur].insert(var);
            if !value.iter().filter(|d| d.0 == r).all(|d| d.1 == var) {
                self.escape(value);
            }
            self.escape(pc);
            // A branch on the region's own read of the variable re-checks it.
            let acts = value
                .iter()
                .chain(pc.iter().filter(|d| !pc.contains(&(r, d.1))));
            let acts: Vec<Dep> = acts.copied().collect();
            for (a, x) in acts {
                if a != r {
                    let name = class_level(&self.var_names[x as usize]);
                    self.acted_on
                        .insert((self.threads[self.cur].name.clone(), name));
                }
            }
        }
    }

    fn open(&mut self) {
        let (r, d) = self.region[self.cur];
        if d == 0 {
            self.next_region += 1;
            self.region[self.cur] = (Some(self.next_region), 1);
            self.event("begin");
        } else {
            self.region[self.cur] = (r, d + 1);
        }
    }

    fn close(&mut self) {
        let (r, d) = self.region[self.cur];
        match d {
            0 => {}
            1 => {
                // Rule 6 of the analysis: a read of `x` whose value only wrote `x` back in
                // this region leaves its read view.
                let reads = std::mem::take(&mut self.region_reads[self.cur]);
                let writes = std::mem::take(&mut self.region_writes[self.cur]);
                if let Some(r) = r {
                    for (line, var) in reads {
                        if writes.contains(&var) && !self.escaped.contains(&(r, var)) {
                            self.trace[line].clear();
                        }
                    }
                }
                self.region[self.cur] = (None, 0);
                self.event("end");
            }
            _ => self.region[self.cur] = (r, d - 1),
        }
    }

    fn invoke(&mut self, m: MethodId, mut locals: Vec<TV>) -> Result<TV, RunError> {
        self.depth += 1;
        if self.depth > 200 {
            return Err(RunError::OutOfFuel);
        }
        let method = &self.p.methods[m as usize];
        locals.resize(method.locals.max(locals.len() as u32) as usize, TV::int(0));
        let mut pc = BTreeSet::new();
        if method.region.is_some() {
            self.open();
        }
        let flow = self.block(&method.body, &mut locals, &mut pc);
        if method.region.is_some() {
            let value = match &flow {
                Ok(Flow::Return(v)) => Some(v),
                _ => None,
            };
            self.leaving(&locals, &pc, value);
            self.close();
        }
        self.depth -= 1;
        let mut v = match flow? {
            Flow::Return(v) => v,
            _ => TV::int(0),
        };
        v.taint.extend(pc);
        Ok(v)
    }

    fn block(
        &mut self,
        stmts: &[Stmt],
        locals: &mut Vec<TV>,
        pc: &mut BTreeSet<Dep>,
    ) -> Result<Flow, RunError> {
        for s in stmts {
            self.step()?;
            match self.stmt(s, locals, pc)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Normal)
    }

    fn stmt(
        &mut self,
        s: &Stmt,
        locals: &mut Vec<TV>,
        pc: &mut BTreeSet<Dep>,
    ) -> Result<Flow, RunError> {
        match s {
            Stmt::Set(l, e) => {
                let v = self.eval(e, locals, pc)?;
                // A local set under a branch on a value the region read carries it.
                self.escape(pc);
                locals[*l as usize] = v;
            }
            Stmt::Store(o, f, e) => {
                let ov = self.eval(o, locals, pc)?;
                let mut v = self.eval(e, locals, pc)?;
                v.taint.extend(ov.taint.iter().copied());
                if let V::Ref(r) = ov.v {
                    let var = self.field_var(r, f);
                    self.write(var, &v.taint, pc);
                    self.objs[r as usize].fields.insert(f.clone(), v);
                }
            }
            Stmt::StoreStatic(c, f, e) => {
                let v = self.eval(e, locals, pc)?;
                let name = format!("{}.{f}", self.p.field_owner(*c, f));
                let var = self.var(name);
                self.write(var, &v.taint, pc);
                self.statics.insert((*c, f.clone()), v);
            }
            Stmt::StoreElem(a, i, e) => {
                let av = self.eval(a, locals, pc)?;
                let iv = self.eval(i, locals, pc)?;
                let mut v = self.eval(e, locals, pc)?;
                v.taint.extend(av.taint.iter().copied());
                v.taint.extend(iv.taint.iter().copied());
                if let V::Ref(r) = av.v {
                    let var = self.field_var(r, "[]");
                    self.write(var, &v.taint, pc);
                    let idx = iv.as_int();
                    let elems = &mut self.objs[r as usize].elems;
                    if idx >= 0 && (idx as usize) < elems.len() {
                        elems[idx as usize] = v;
                    }
                }
            }
            Stmt::Eval(e) => {
                self.eval(e, locals, pc)?;
            }
            Stmt::If(c, a, b) => {
                let cv = self.eval(c, locals, pc)?;
                let mut inner = pc.clone();
                inner.extend(cv.taint.iter().copied());
                let taken = if cv.as_int() != 0 { a } else { b };
                let flow = self.block(taken, locals, &mut inner)?;
                // What follows depends on the condition where the static analysis says so: when
                // a branch cannot reach the end of the `if`.
                if falls_through(a) && falls_through(b) {
                    inner.retain(|d| !cv.taint.contains(d) || pc.contains(d));
                }
                *pc = inner;
                return Ok(flow);
            }
            Stmt::Loop(body, update) => loop {
                self.step()?;
                match self.block(body, locals, pc)? {
                    Flow::Normal => {}
                    Flow::Break => break,
                    Flow::Continue => {
                        self.block(update, locals, pc)?;
                    }
                    f @ Flow::Return(_) => return Ok(f),
                }
            },
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Continue => return Ok(Flow::Continue),
            Stmt::Return(e) => {
                let mut v = match e {
                    Some(e) => self.eval(e, locals, pc)?,
                    None => TV::int(0),
                };
                v.taint.extend(pc.iter().copied());
                return Ok(Flow::Return(v));
            }
            Stmt::Atomic(_, body) => {
                self.open();
                let f = self.block(body, locals, pc);
                let value = match &f {
                    Ok(Flow::Return(v)) => Some(v),
                    _ => None,
                };
                self.leaving(locals, pc, value);
                self.close();
                return f;
            }
            Stmt::Lock(_) => self.open(),
            Stmt::Unlock => {
                self.leaving(locals, pc, None);
                self.close();
            }
            // The join loop before it joined each thread.
            Stmt::JoinedAll(_) => {}
        }
        Ok(Flow::Normal)
    }

    fn alloc(&mut self, site: SiteId) -> u32 {
        self.objs.push(Obj {
            site,
            fields: FxHashMap::default(),
            elems: Vec::new(),
            threads: Vec::new(),
        });
        (self.objs.len() - 1) as u32
    }

    fn eval(
        &mut self,
        e: &Expr,
        locals: &mut Vec<TV>,
        pc: &mut BTreeSet<Dep>,
    ) -> Result<TV, RunError> {
        self.step()?;
        Ok(match e {
            Expr::Int(i) => TV::int(*i),
            Expr::Null => TV::with(V::Null, BTreeSet::new()),
            Expr::Local(l) => locals[*l as usize].clone(),
            Expr::Field(o, f) => {
                let ov = self.eval(o, locals, pc)?;
                let mut t = ov.taint.clone();
                match ov.v {
                    V::Ref(r) => {
                        let var = self.field_var(r, f);
                        self.read(var, &mut t, pc);
                        let v = self.objs[r as usize]
                            .fields
                            .get(f)
                            .map_or(V::Int(0), |x| x.v);
                        TV::with(v, t)
                    }
                    _ => TV::with(V::Int(0), t),
                }
            }
            Expr::Static(c, f) => {
                let name = format!("{}.{f}", self.p.field_owner(*c, f));
                let var = self.var(name);
                let mut t = BTreeSet::new();
                self.read(var, &mut t, pc);
                let v = self
                    .statics
                    .get(&(*c, f.clone()))
                    .map_or(V::Int(0), |x| x.v);
                TV::with(v, t)
            }
            Expr::Elem(a, i) => {
                let av = self.eval(a, locals, pc)?;
                let iv = self.eval(i, locals, pc)?;
                let mut t = av.taint.clone();
                t.extend(iv.taint.iter().copied());
                match av.v {
                    V::Ref(r) => {
                        let var = self.field_var(r, "[]");
                        self.read(var, &mut t, pc);
                        let idx = iv.as_int();
                        let elems = &self.objs[r as usize].elems;
                        let v = if idx >= 0 && (idx as usize) < elems.len() {
                            elems[idx as usize].v
                        } else {
                            V::Int(0)
                        };
                        TV::with(v, t)
                    }
                    _ => TV::with(V::Int(0), t),
                }
            }
            Expr::Bin(op, a, b) => {
                let x = self.eval(a, locals, pc)?;
                // `&&` and `||` do not evaluate what they do not need.
                let short = match op {
                    BinOp::And => x.as_int() == 0,
                    BinOp::Or => x.as_int() != 0,
                    _ => false,
                };
                if short {
                    return Ok(TV::with(V::Int((x.as_int() != 0) as i64), x.taint));
                }
                let y = self.eval(b, locals, pc)?;
                let mut t = x.taint.clone();
                t.extend(y.taint.iter().copied());
                let (p, q) = (x.as_int(), y.as_int());
                let v = match op {
                    BinOp::Add => p.wrapping_add(q),
                    BinOp::Sub => p.wrapping_sub(q),
                    BinOp::Mul => p.wrapping_mul(q),
                    BinOp::Div => p.checked_div(q).unwrap_or(0),
                    BinOp::Rem => p.checked_rem(q).unwrap_or(0),
                    BinOp::Eq => (x.v == y.v) as i64,
                    BinOp::Ne => (x.v != y.v) as i64,
                    BinOp::Lt => (p < q) as i64,
                    BinOp::Le => (p <= q) as i64,
                    BinOp::Gt => (p > q) as i64,
                    BinOp::Ge => (p >= q) as i64,
                    BinOp::And | BinOp::Or => (q != 0) as i64,
                    BinOp::Other => p ^ q,
                };
                TV::with(V::Int(v), t)
            }
            Expr::Not(a) => {
                let x = self.eval(a, locals, pc)?;
                TV::with(V::Int((x.as_int() == 0) as i64), x.taint)
            }
            Expr::Neg(a) => {
                let x = self.eval(a, locals, pc)?;
                TV::with(V::Int(x.as_int().wrapping_neg()), x.taint)
            }
            Expr::Cond(c, a, b) => {
                let cv = self.eval(c, locals, pc)?;
                let mut v = if cv.as_int() != 0 {
                    self.eval(a, locals, pc)?
                } else {
                    self.eval(b, locals, pc)?
                };
                v.taint.extend(cv.taint);
                v
            }
            Expr::New(site, args) => {
                let vals = self.eval_all(args, locals, pc)?;
                let o = self.alloc(*site);
                let me = TV::with(V::Ref(o), BTreeSet::new());
                match &self.p.sites[*site as usize].kind {
                    SiteKind::Object(c) => {
                        let c = *c;
                        if let Some(init) = self.p.classes[c as usize].init {
                            self.invoke(init, vec![me.clone()])?;
                        }
                        if let Some(ctor) = self.p.constructor(c, vals.len()) {
                            let mut l = vec![me.clone()];
                            l.extend(vals);
                            self.invoke(ctor, l)?;
                        }
                    }
                    SiteKind::Thread => {
                        if let Some(t) = vals.into_iter().next() {
                            self.objs[o as usize].fields.insert("<target>".into(), t);
                        }
                    }
                    _ => {}
                }
                me
            }
            Expr::NewArray(site, items) => {
                let vals = self.eval_all(items, locals, pc)?;
                let o = self.alloc(*site);
                // `new T[n]` has one dimension value; an initializer lists the elements.
                let elems = if vals.len() == 1 && !matches!(vals[0].v, V::Ref(_)) {
                    let n = vals[0].as_int().clamp(0, 64) as usize;
                    vec![TV::int(0); n]
                } else {
                    vals
                };
                self.objs[o as usize].elems = elems;
                TV::with(V::Ref(o), BTreeSet::new())
            }
            Expr::Lambda(site, outer) => {
                let o = self.alloc(*site);
                for (i, l) in outer.iter().enumerate() {
                    let v = locals[*l as usize].clone();
                    self.objs[o as usize].fields.insert(format!("<cap{i}>"), v);
                }
                TV::with(V::Ref(o), BTreeSet::new())
            }
            Expr::Unknown(args) => {
                let vals = self.eval_all(args, locals, pc)?;
                let mut t = BTreeSet::new();
                for v in vals {
                    t.extend(v.taint);
                }
                TV::with(V::Int((self.rng.next_u64() % 4) as i64), t)
            }
            Expr::StaticCall {
                class, name, args, ..
            } => {
                let vals = self.eval_all(args, locals, pc)?;
                match self.p.find_method(*class, name, vals.len()) {
                    Some(m) if self.p.methods[m as usize].is_static => self.invoke(m, vals)?,
                    _ => unknown(&vals),
                }
            }
            Expr::Call {
                recv,
                name,
                args,
                line,
                ..
            } => {
                let rv = match recv {
                    Some(r) => Some(self.eval(r, locals, pc)?),
                    None => None,
                };
                let vals = self.eval_all(args, locals, pc)?;
                self.call(rv, name, vals, *line, locals, pc)?
            }
        })
    }

    fn eval_all(
        &mut self,
        es: &[Expr],
        locals: &mut Vec<TV>,
        pc: &mut BTreeSet<Dep>,
    ) -> Result<Vec<TV>, RunError> {
        let mut out = Vec::with_capacity(es.len());
        for e in es {
            out.push(self.eval(e, locals, pc)?);
        }
        Ok(out)
    }

    fn call(
        &mut self,
        recv: Option<TV>,
        name: &str,
        args: Vec<TV>,
        line: u32,
        locals: &[TV],
        pc: &BTreeSet<Dep>,
    ) -> Result<TV, RunError> {
        let recv = match recv {
            Some(r) => r,
            // A call on `this` (instance methods keep `this` in local 0); static methods are
            // `StaticCall`s unless the caller is static, when local 0 is no object.
            None => locals.first().cloned().unwrap_or(TV::int(0)),
        };
        let V::Ref(o) = recv.v else {
            let mut v = unknown(&args);
            v.taint.extend(recv.taint);
            return Ok(v);
        };
        let site = self.objs[o as usize].site;
        match self.p.sites[site as usize].kind.clone() {
            SiteKind::Object(c) | SiteKind::Library(c) => {
                let found = self.p.find_method(c, name, args.len());
                if found.is_none() && self.p.classes[c as usize].is_thread && args.is_empty() {
                    match name {
                        "start" => {
                            if let Some(run) = self.p.find_method(c, "run", 0) {
                                let label = self.p.classes[c as usize].name.clone();
                                let id =
                                    self.start(o, label, run, vec![recv.clone()], line, site)?;
                                self.schedule(id)?;
                            }
                            return Ok(TV::int(0));
                        }
                        "join" => {
                            self.join(o)?;
                            return Ok(TV::int(0));
                        }
                        _ => {}
                    }
                }
                match found {
                    Some(m) => {
                        let mut l = Vec::new();
                        if !self.p.methods[m as usize].is_static {
                            l.push(recv);
                        }
                        l.extend(args);
                        self.invoke(m, l)
                    }
                    None => Ok(unknown(&args)),
                }
            }
            SiteKind::Thread => {
                match name {
                    "start" => {
                        if let Some(TV { v: V::Ref(t), .. }) =
                            self.objs[o as usize].fields.get("<target>").cloned()
                        {
                            if let Some((label, m, l)) = self.entry_of(t) {
                                let id = self.start(o, label, m, l, line, site)?;
                                self.schedule(id)?;
                            }
                        }
                    }
                    "join" => self.join(o)?,
                    _ => {}
                }
                Ok(unknown(&args))
            }
            SiteKind::Executor { serial } => {
                match name {
                    "submit" | "execute" => {
                        if let Some(TV { v: V::Ref(t), .. }) = args.first() {
                            if let Some((label, m, l)) = self.entry_of(*t) {
                                let id = self.start(o, label, m, l, line, site)?;
                                if serial {
                                    self.serialize(o, id)?;
                                }
                                self.schedule(id)?;
                            }
                        }
                    }
                    "invokeAll" => {
                        // Each task of the collection runs; the call returns when all are done.
                        let tasks: Vec<TV> = match args.first() {
                            Some(TV { v: V::Ref(c), .. }) => self.objs[*c as usize].elems.clone(),
                            _ => Vec::new(),
                        };
                        let mut started = Vec::new();
                        for task in tasks {
                            let V::Ref(t) = task.v else { continue };
                            if let Some((label, m, l)) = self.entry_of(t) {
                                let id = self.start(o, label, m, l, line, site)?;
                                if serial {
                                    self.serialize(o, id)?;
                                }
                                self.schedule(id)?;
                                started.push(id);
                            }
                        }
                        for id in started {
                            self.run_thread(id)?;
                            self.pending[self.cur].retain(|&x| x != id);
                            let name = self.threads[id].name.clone();
                            self.event(&format!("join({name})"));
                        }
                    }
                    "awaitTermination" | "close" => self.join(o)?,
                    _ => {}
                }
                Ok(unknown(&args))
            }
            SiteKind::Lambda(m) => {
                if matches!(name, "run" | "call" | "get" | "accept" | "apply" | "test") {
                    let n = self.p.methods[m as usize].params as usize - args.len();
                    let mut l: Vec<TV> = (0..n)
                        .map(|i| {
                            self.objs[o as usize]
                                .fields
                                .get(&format!("<cap{i}>"))
                                .cloned()
                                .unwrap_or(TV::int(0))
                        })
                        .collect();
                    l.extend(args);
                    return self.invoke(m, l);
                }
                Ok(unknown(&args))
            }
            SiteKind::Array => match name {
                "<size>" => Ok(TV::int(self.objs[o as usize].elems.len() as i64)),
                "<at>" => {
                    let mut t = recv.taint.clone();
                    let var = self.field_var(o, "[]");
                    self.read(var, &mut t, pc);
                    let i = args.first().map_or(0, TV::as_int);
                    let v = self.objs[o as usize]
                        .elems
                        .get(i.max(0) as usize)
                        .map_or(V::Int(0), |x| x.v);
                    Ok(TV::with(v, t))
                }
                _ => Ok(unknown(&args)),
            },
            SiteKind::Collection(ty) => {
                let effect = match name {
                    "<size>" | "<at>" => Effect::Read,
                    _ => self.models.effect(&ty, name),
                };
                let own = self.region[self.cur].1 == 0 && self.models.is_synchronized(&ty);
                if own {
                    self.open();
                }
                let mut t = recv.taint.clone();
                let var = self.field_var(o, "[]");
                if matches!(effect, Effect::Read | Effect::Update) {
                    self.read(var, &mut t, pc);
                }
                let mut arg = BTreeSet::new();
                for a in &args {
                    arg.extend(a.taint.iter().copied());
                }
                let n = self.objs[o as usize].elems.len();
                let v = match (name, effect) {
                    ("<size>" | "size", _) => V::Int(n as i64),
                    (_, Effect::Read) => self.objs[o as usize]
                        .elems
                        .get(args.first().map_or(0, TV::as_int).max(0) as usize)
                        .map_or(V::Null, |x| x.v),
                    _ => V::Int(0),
                };
                if matches!(effect, Effect::Write | Effect::Update) {
                    let mut w = arg.clone();
                    if effect == Effect::Update {
                        w.extend(t.iter().copied());
                    }
                    self.write(var, &w, pc);
                    let obj = &mut self.objs[o as usize];
                    match effect {
                        Effect::Write => obj.elems.clear(),
                        _ => {
                            if let Some(a) = args.last() {
                                if obj.elems.len() < 64 {
                                    obj.elems.push(a.clone());
                                }
                            }
                        }
                    }
                }
                t.extend(arg);
                if own {
                    // The call's value leaves the region it ran in.
                    self.escape(&t);
                    self.close();
                }
                Ok(TV::with(v, t))
            }
        }
    }

    fn entry_of(&self, t: u32) -> Option<(String, MethodId, Vec<TV>)> {
        let obj = &self.objs[t as usize];
        match &self.p.sites[obj.site as usize].kind {
            SiteKind::Object(c) | SiteKind::Library(c) => {
                let m = self
                    .p
                    .find_method(*c, "run", 0)
                    .or_else(|| self.p.find_method(*c, "call", 0))?;
                Some((
                    self.p.classes[*c as usize].name.clone(),
                    m,
                    vec![TV::with(V::Ref(t), BTreeSet::new())],
                ))
            }
            SiteKind::Lambda(m) => {
                let n = self.p.methods[*m as usize].params as usize;
                let l = (0..n)
                    .map(|i| {
                        obj.fields
                            .get(&format!("<cap{i}>"))
                            .cloned()
                            .unwrap_or(TV::int(0))
                    })
                    .collect();
                Some(("lambda".into(), *m, l))
            }
            _ => None,
        }
    }

    fn start(
        &mut self,
        handle: u32,
        label: String,
        m: MethodId,
        locals: Vec<TV>,
        line: u32,
        site: SiteId,
    ) -> Result<usize, RunError> {
        let file = &self.p.files[self.p.sites[site as usize].file as usize].name;
        let file = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let _ = site;
        let mut name = format!("{label}@{file}:{line}");
        // A thread started at the site that started the thread starting it (a thread of its
        // own class, Knight's recursion) is the next level down: `X [2]`, `X [3]`, ... so that
        // every thread along a chain of starts has a name of its own.
        let parent = &self.threads[self.cur].name;
        if *parent == name {
            name = format!("{name} [2]");
        } else if let Some(level) = parent
            .strip_prefix(&format!("{name} ["))
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|k| k.parse::<u32>().ok())
        {
            name = format!("{name} [{}]", level + 1);
        }
        // A second thread of one start (a loop's) is the next copy: `X [2]`, `X [3]`, ...
        if self.threads.iter().any(|t| t.name == name) {
            let base = name.clone();
            let mut k = 2;
            while self
                .threads
                .iter()
                .any(|t| t.name == format!("{base} [{k}]"))
            {
                k += 1;
            }
            name = format!("{base} [{k}]");
        }
        let id = self.threads.len();
        self.threads.push(DynThread {
            name: name.clone(),
            entry: Some((m, locals)),
            parent: self.cur,
            done: false,
            running: false,
            receive: None,
            send: None,
        });
        self.region.push((None, 0));
        self.region_reads.push(Vec::new());
        self.region_writes.push(BTreeSet::new());
        self.pending.push(Vec::new());
        self.objs[handle as usize].threads.push(id);
        self.event(&format!("fork({name})"));
        Ok(id)
    }

    /// Lets a started thread run now or later (when joined, or when its parent ends), as the
    /// seed says.
    fn schedule(&mut self, id: usize) -> Result<(), RunError> {
        if self.rng.next_u64() % 2 == 0 {
            self.run_thread(id)?;
        } else {
            self.pending[self.cur].push(id);
        }
        Ok(())
    }

    /// Task `id` of the single-thread executor `exec` runs after the tasks submitted to it
    /// before, one at a time: they run first (if they have not), and the last one's end is
    /// a message `id` receives before its first event.
    fn serialize(&mut self, exec: u32, id: usize) -> Result<(), RunError> {
        let earlier: Vec<usize> = self.objs[exec as usize]
            .threads
            .iter()
            .copied()
            .filter(|&t| t != id)
            .collect();
        for &t in &earlier {
            self.run_thread(t)?;
        }
        let msg = format!("exec#{exec}.{id}");
        if let Some(&last) = earlier.last() {
            self.threads[id].receive = self.threads[last].send.clone();
        }
        self.threads[id].send = Some(msg);
        Ok(())
    }

    fn run_thread(&mut self, id: usize) -> Result<(), RunError> {
        if self.threads[id].done || self.threads[id].running {
            return Ok(());
        }
        self.threads[id].running = true;
        let saved = self.cur;
        self.cur = id;
        let (m, locals) = self.threads[id]
            .entry
            .clone()
            .expect("a started thread has an entry");
        if let Some(m) = self.threads[id].receive.clone() {
            self.event(&format!("rcv({m})"));
        }
        let depth = std::mem::replace(&mut self.depth, 0);
        let r = self.invoke(m, locals);
        self.depth = depth;
        let r = r.and_then(|_| self.finish_children(id));
        if let Some(m) = self.threads[id].send.clone() {
            self.event(&format!("snd({m})"));
        }
        self.cur = saved;
        self.threads[id].done = true;
        self.threads[id].running = false;
        r
    }

    fn finish_children(&mut self, t: usize) -> Result<(), RunError> {
        let pending = std::mem::take(&mut self.pending[t]);
        let saved = self.cur;
        self.cur = t;
        for c in pending {
            self.run_thread(c)?;
        }
        self.cur = saved;
        Ok(())
    }

    fn join(&mut self, handle: u32) -> Result<(), RunError> {
        let children = self.objs[handle as usize].threads.clone();
        for c in children {
            if self.threads[c].parent != self.cur {
                continue;
            }
            self.run_thread(c)?;
            self.pending[self.cur].retain(|&x| x != c);
            let name = self.threads[c].name.clone();
            self.event(&format!("join({name})"));
        }
        Ok(())
    }
}

fn unknown(args: &[TV]) -> TV {
    let mut t = BTreeSet::new();
    for a in args {
        t.extend(a.taint.iter().copied());
    }
    TV::with(V::Int(0), t)
}

/// `Class#3.field` → `Class.field`; `Name#3.[]` → `Name[]` (the static analysis's names).
pub fn class_level(var: &str) -> String {
    let name = match var.rfind('.') {
        Some(dot) => match var[..dot].find('#') {
            Some(hash) => format!("{}{}", &var[..hash], &var[dot..]),
            None => var.to_owned(),
        },
        None => var.to_owned(),
    };
    match name.strip_suffix(".[]") {
        Some(base) => format!("{base}[]"),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(text: &str) -> Program {
        let models = Models::shipped();
        let f = crate::java::parse(text).expect("parses");
        super::super::lower::lower(&[("Main.java".into(), f)], &models, Default::default())
            .expect("lowers")
    }

    #[test]
    fn a_run_records_regions_forks_joins_and_what_it_acted_on() {
        let p = lowered(
            "class S { int x; synchronized int get() { return x; } synchronized void set(int v) { x = v; } }\n\
             class W implements Runnable { S s; W(S s) { this.s = s; }\n\
               public void run() { for (int i = 0; i < 2; i++) { int v = s.get(); s.set(v + 1); } } }\n\
             public class Main { public static void main(String[] a) throws Exception {\n\
               S s = new S(); Thread t = new Thread(new W(s)); t.start(); t.join(); } }\n",
        );
        let run = run(&p, &Models::shipped(), 1, 10_000).expect("runs");
        let forks = run.trace.matches("fork(W@Main.java:5)").count();
        assert_eq!(forks, 1, "{}", run.trace);
        assert_eq!(run.trace.matches("|begin").count(), 4, "{}", run.trace);
        assert!(
            run.trace.contains("main|join(W@Main.java:5)"),
            "{}",
            run.trace
        );
        assert!(run.trace.contains("|w(S#0.x)"), "{}", run.trace);
        assert_eq!(
            run.acted_on,
            BTreeSet::from([("W@Main.java:5".to_owned(), "S.x".to_owned())])
        );
    }

    #[test]
    fn class_level_names() {
        assert_eq!(class_level("S#3.x"), "S.x");
        assert_eq!(class_level("Buffer.items#4.[]"), "Buffer.items[]");
        assert_eq!(class_level("Config.level"), "Config.level");
    }
}
