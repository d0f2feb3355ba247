//! Views of a program by symbolic execution (MoTH, PADTAD'11, Section 2.2, Fig. 4): every
//! atomic region (an `atomic proc` called outside any atomic region, or an `atomic { }` block)
//! starts from the empty view; HEAP READ and HEAP WRITE `add` an access `(α, (class, field), ∘)`;
//! PROC CALL merges the callee's view with `merge_p`; CONDITIONAL and LOOP take the union of the
//! branches; everything else leaves the view alone. Nested atomic regions are part of the
//! outermost one (flattening, as transactions nest).
//!
//! A variable is `(class, field)`, named `Class.field`: objects of one class are not told apart
//! (the paper's choice; traces can do better, see `dynamic.rs`). Unknown procedures (declared
//! `native` without annotations, or not declared at all) are assumed to read and write every
//! field of their receiver and object arguments, with a warning naming them (Section 3).
//!
//! This module knows the language's AST and views; it does not parse, and knows no sensor.

use super::lang::{Call, Class, Expr, Native, Pos, Proc, Program, Stmt, SyntaxError, Type};
use hindsight_budget::{Budget, Meter};
use hindsight_report::EventRef;
use hindsight_syntax::{Diagnostic, Position};
use hindsight_views::view::{Access, Kind, Mark, View};
use hindsight_views::{Knowledge, Provenance, ThreadViews, ViewId};
use rustc_hash::{FxHashMap, FxHashSet};

/// The views of a program, where each came from, and warnings about assumptions made.
pub struct StaticViews {
    pub knowledge: Knowledge,
    /// Per thread, per view: the first region that produced it.
    pub origins: Vec<FxHashMap<ViewId, String>>,
    pub warnings: Vec<Diagnostic>,
}

impl Provenance for StaticViews {
    fn origin(&self, thread: usize, view: ViewId) -> String {
        self.origins[thread].get(&view).cloned().unwrap_or_default()
    }
    fn events(&self, _: usize, _: ViewId, _: &[u32]) -> Vec<EventRef> {
        Vec::new()
    }
}

/// How many rounds recursive procedures' views get to stabilise.
const MAX_ROUNDS: usize = 64;

struct Region {
    view: View,
    origin: String,
}

enum Mode<'a> {
    Atomic(&'a mut View),
    Plain(&'a mut Vec<Region>),
}

type Env = FxHashMap<String, Type>;

struct Exec<'p> {
    meter: Meter<'p>,
    /// The budget was spent: the statements left are skipped.
    stopped: bool,
    file: &'p str,
    classes: FxHashMap<&'p str, &'p Class>,
    globals: FxHashMap<&'p str, &'p str>,
    procs: FxHashMap<&'p str, &'p Proc>,
    natives: FxHashMap<(Option<&'p str>, &'p str), &'p Native>,
    var_ids: FxHashMap<String, u32>,
    var_names: Vec<String>,
    specs: FxHashMap<&'p str, View>,
    previous: FxHashMap<&'p str, View>,
    in_progress: Vec<&'p str>,
    recursive: bool,
    warned: FxHashSet<String>,
    warnings: Vec<Diagnostic>,
}

fn err(pos: Pos, m: impl Into<String>) -> SyntaxError {
    SyntaxError::new(pos, m)
}

/// Runs the symbolic execution of every thread of `prog`; `file` names the program in
/// origins and warnings.
pub fn analyse(prog: &Program, file: &str) -> Result<StaticViews, SyntaxError> {
    analyse_within(prog, file, &Budget::unlimited())
}

/// [`analyse`] within `budget`: once it is spent every statement left is skipped (the views
/// seen so far are kept) and no further round is run.
pub fn analyse_within(
    prog: &Program,
    file: &str,
    budget: &Budget,
) -> Result<StaticViews, SyntaxError> {
    let mut x = Exec::new(prog, file, budget)?;
    let mut per_thread: Vec<(String, Vec<Region>)> = Vec::new();
    for round in 0.. {
        x.recursive = false;
        x.previous = std::mem::take(&mut x.specs);
        per_thread.clear();
        // Every procedure is checked (and its view computed) even if no thread calls it.
        for p in &prog.procs {
            x.spec(p)?;
        }
        for th in &prog.threads {
            let mut regions = Vec::new();
            let mut env = Env::default();
            x.block(&th.body, &mut env, &mut Mode::Plain(&mut regions))?;
            for n in &th.names {
                let copy = regions
                    .iter()
                    .map(|r| Region {
                        view: r.view.clone(),
                        origin: r.origin.clone(),
                    })
                    .collect();
                per_thread.push((n.name.clone(), copy));
            }
        }
        if !x.recursive || x.specs == x.previous || x.stopped {
            break;
        }
        if round == MAX_ROUNDS {
            return Err(err(
                Pos::default(),
                "the views of recursive procedures do not stabilise",
            ));
        }
    }
    let mut seen_threads = FxHashSet::default();
    for th in &prog.threads {
        for n in &th.names {
            if !seen_threads.insert(n.name.as_str()) {
                return Err(err(n.pos, format!("thread `{}` declared twice", n.name)));
            }
        }
    }
    let mut ids: FxHashMap<View, ViewId> = FxHashMap::default();
    let mut views = Vec::new();
    let mut threads = Vec::new();
    let mut origins = Vec::new();
    for (name, regions) in per_thread {
        let mut mine = Vec::new();
        let mut origin = FxHashMap::default();
        for r in regions {
            if r.view.is_empty() {
                continue;
            }
            let id = *ids.entry(r.view.clone()).or_insert_with(|| {
                views.push(r.view);
                (views.len() - 1) as ViewId
            });
            origin.entry(id).or_insert(r.origin);
            mine.push(id);
        }
        mine.sort_unstable();
        mine.dedup();
        threads.push(ThreadViews { name, views: mine });
        origins.push(origin);
    }
    Ok(StaticViews {
        knowledge: Knowledge {
            var_names: x.var_names,
            views,
            threads,
        },
        origins,
        warnings: x.warnings,
    })
}

impl<'p> Exec<'p> {
    fn new(prog: &'p Program, file: &'p str, budget: &'p Budget) -> Result<Exec<'p>, SyntaxError> {
        let mut x = Exec {
            meter: Meter::new(budget),
            stopped: false,
            file,
            classes: FxHashMap::default(),
            globals: FxHashMap::default(),
            procs: FxHashMap::default(),
            natives: FxHashMap::default(),
            var_ids: FxHashMap::default(),
            var_names: Vec::new(),
            specs: FxHashMap::default(),
            previous: FxHashMap::default(),
            in_progress: Vec::new(),
            recursive: false,
            warned: FxHashSet::default(),
            warnings: Vec::new(),
        };
        for c in &prog.classes {
            if x.classes.insert(&c.name.name, c).is_some() {
                return Err(err(
                    c.name.pos,
                    format!("class `{}` declared twice", c.name.name),
                ));
            }
            let mut fields = FxHashSet::default();
            for f in &c.fields {
                if !fields.insert(&f.name.name) {
                    return Err(err(
                        f.name.pos,
                        format!(
                            "field `{}` declared twice in `{}`",
                            f.name.name, c.name.name
                        ),
                    ));
                }
            }
        }
        let check_type = |x: &Exec, ty: &Type, pos: Pos| match ty {
            Type::Class(c) if !x.classes.contains_key(c.as_str()) => {
                Err(err(pos, format!("unknown class `{c}`")))
            }
            _ => Ok(()),
        };
        for c in &prog.classes {
            for f in &c.fields {
                check_type(&x, &f.ty, f.name.pos)?;
            }
        }
        for g in &prog.globals {
            if !x.classes.contains_key(g.class.name.as_str()) {
                return Err(err(
                    g.class.pos,
                    format!("unknown class `{}`", g.class.name),
                ));
            }
            if x.globals.insert(&g.name.name, &g.class.name).is_some() {
                return Err(err(
                    g.name.pos,
                    format!("global `{}` declared twice", g.name.name),
                ));
            }
        }
        for p in &prog.procs {
            for q in &p.params {
                check_type(&x, &q.ty, q.name.pos)?;
            }
            if x.procs.insert(&p.name.name, p).is_some() {
                return Err(err(
                    p.name.pos,
                    format!("procedure `{}` declared twice", p.name.name),
                ));
            }
        }
        for n in &prog.natives {
            for q in &n.params {
                check_type(&x, &q.ty, q.name.pos)?;
            }
            let class = n.class.as_ref().map(|c| c.name.as_str());
            if let Some(c) = &n.class {
                if !x.classes.contains_key(c.name.as_str()) {
                    return Err(err(c.pos, format!("unknown class `{}`", c.name)));
                }
            } else if x.procs.contains_key(n.name.name.as_str()) {
                return Err(err(
                    n.name.pos,
                    format!("procedure `{}` declared twice", n.name.name),
                ));
            }
            if x.natives.insert((class, &n.name.name), n).is_some() {
                return Err(err(
                    n.name.pos,
                    format!("procedure `{}` declared twice", n.name.name),
                ));
            }
            // Resolve annotations now, so that their errors come out even if never called.
            x.native_spec(n)?;
        }
        Ok(x)
    }

    fn var(&mut self, class: &str, field: &str) -> u32 {
        let name = format!("{class}.{field}");
        if let Some(&id) = self.var_ids.get(&name) {
            return id;
        }
        let id = self.var_names.len() as u32;
        self.var_names.push(name.clone());
        self.var_ids.insert(name, id);
        id
    }

    fn type_of(&self, e: &Expr, env: &Env) -> Result<Type, SyntaxError> {
        Ok(match e {
            Expr::Var(v) => match env.get(&v.name) {
                Some(t) => t.clone(),
                None => match self.globals.get(v.name.as_str()) {
                    Some(c) => Type::Class((*c).to_owned()),
                    None => return Err(err(v.pos, format!("unknown variable `{}`", v.name))),
                },
            },
            Expr::Field(r, f) => {
                let c = self.class_of(r, env)?;
                self.field(c, f)?.clone()
            }
            _ => Type::Int,
        })
    }

    fn class_of(&self, e: &Expr, env: &Env) -> Result<&'p Class, SyntaxError> {
        match self.type_of(e, env)? {
            Type::Class(c) => Ok(self.classes[c.as_str()]),
            Type::Int => Err(err(
                pos_of(e),
                "not an object: declare it with a class type (`x: Class` or `var x: Class;`)",
            )),
        }
    }

    fn field(&self, c: &'p Class, f: &super::lang::Ident) -> Result<&'p Type, SyntaxError> {
        c.fields
            .iter()
            .find(|x| x.name.name == f.name)
            .map(|x| &x.ty)
            .ok_or_else(|| {
                err(
                    f.pos,
                    format!("class `{}` has no field `{}`", c.name.name, f.name),
                )
            })
    }

    fn block(
        &mut self,
        stmts: &'p [Stmt],
        env: &mut Env,
        mode: &mut Mode,
    ) -> Result<(), SyntaxError> {
        for s in stmts {
            self.stmt(s, env, mode)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &'p Stmt, env: &mut Env, mode: &mut Mode) -> Result<(), SyntaxError> {
        if self.stopped || self.meter.step().is_err() {
            self.stopped = true;
            return Ok(());
        }
        match s {
            Stmt::Skip => {}
            Stmt::Var(name, ty) => {
                if let Type::Class(c) = ty {
                    if !self.classes.contains_key(c.as_str()) {
                        return Err(err(name.pos, format!("unknown class `{c}`")));
                    }
                }
                env.insert(name.name.clone(), ty.clone());
            }
            Stmt::Assign(target, value) => match target {
                Expr::Var(v) => {
                    if !env.contains_key(&v.name) && self.globals.contains_key(v.name.as_str()) {
                        return Err(err(v.pos, format!("cannot assign the global `{}`", v.name)));
                    }
                    self.eval(value, env, mode)?;
                    let ty = if matches!(value, Expr::Null) {
                        None
                    } else {
                        Some(self.type_of(value, env)?)
                    };
                    match (env.get(&v.name), ty) {
                        (None, ty) => {
                            env.insert(v.name.clone(), ty.unwrap_or(Type::Int));
                        }
                        (Some(old), Some(new)) if *old != new && new != Type::Int => {
                            return Err(err(
                                v.pos,
                                format!("`{}` holds objects of two types", v.name),
                            ));
                        }
                        _ => {}
                    }
                }
                Expr::Field(recv, f) => {
                    // Receiver first, then the value, then the store (Java's order).
                    self.eval(recv, env, mode)?;
                    let c = self.class_of(recv, env)?;
                    self.field(c, f)?;
                    self.eval(value, env, mode)?;
                    let var = self.var(&c.name.name, &f.name);
                    if let Mode::Atomic(v) = mode {
                        v.add(Access::new(Kind::Write, var, Mark::Open));
                    }
                }
                _ => unreachable!("the parser only builds variable and field targets"),
            },
            Stmt::Call(c) => self.call(c, env, mode)?,
            Stmt::Return(e) => {
                if let Some(e) = e {
                    self.eval(e, env, mode)?;
                }
            }
            Stmt::If(c, then, otherwise) => {
                self.eval(c, env, mode)?;
                match mode {
                    Mode::Atomic(v) => {
                        let mut other = (**v).clone();
                        self.block(then, env, &mut Mode::Atomic(v))?;
                        self.block(otherwise, env, &mut Mode::Atomic(&mut other))?;
                        v.union(&other);
                    }
                    Mode::Plain(_) => {
                        self.block(then, env, mode)?;
                        self.block(otherwise, env, mode)?;
                    }
                }
            }
            Stmt::While(c, body) => {
                self.eval(c, env, mode)?;
                match mode {
                    Mode::Atomic(v) => {
                        let before = (**v).clone();
                        self.block(body, env, &mut Mode::Atomic(v))?;
                        v.union(&before);
                    }
                    Mode::Plain(_) => self.block(body, env, mode)?,
                }
            }
            Stmt::Atomic(body, pos) => match mode {
                Mode::Atomic(_) => self.block(body, env, mode)?,
                Mode::Plain(regions) => {
                    let mut view = View::new();
                    self.block(body, env, &mut Mode::Atomic(&mut view))?;
                    regions.push(Region {
                        view,
                        origin: format!("atomic block at {}:{}", self.file, pos),
                    });
                }
            },
        }
        Ok(())
    }

    fn eval(&mut self, e: &'p Expr, env: &mut Env, mode: &mut Mode) -> Result<(), SyntaxError> {
        match e {
            Expr::Int(_) | Expr::Null => {}
            Expr::Var(_) => {
                self.type_of(e, env)?;
            }
            Expr::Field(recv, f) => {
                self.eval(recv, env, mode)?;
                let c = self.class_of(recv, env)?;
                self.field(c, f)?;
                let var = self.var(&c.name.name, &f.name);
                if let Mode::Atomic(v) = mode {
                    v.add(Access::new(Kind::Read, var, Mark::Open));
                }
            }
            Expr::Binary(a, _, b) => {
                self.eval(a, env, mode)?;
                self.eval(b, env, mode)?;
            }
            Expr::Not(a) | Expr::Neg(a) => self.eval(a, env, mode)?,
            Expr::Call(c) => self.call(c, env, mode)?,
        }
        Ok(())
    }

    fn call(&mut self, c: &'p Call, env: &mut Env, mode: &mut Mode) -> Result<(), SyntaxError> {
        if let Some(r) = &c.receiver {
            self.eval(r, env, mode)?;
        }
        for a in &c.args {
            self.eval(a, env, mode)?;
        }
        let name = c.name.name.as_str();
        if let Some(r) = &c.receiver {
            let class = self.class_of(r, env)?;
            let key = (Some(class.name.name.as_str()), name);
            let spec = match self.natives.get(&key) {
                Some(n) => {
                    let n = *n;
                    check_arity(c, n.params.len())?;
                    self.native_spec(n)?
                }
                None => self.unknown(c, Some(class), env, false)?,
            };
            if let Mode::Atomic(v) = mode {
                v.merge_p(&spec);
            }
            return Ok(());
        }
        if let Some(&p) = self.procs.get(name) {
            check_arity(c, p.params.len())?;
            for (a, q) in c.args.iter().zip(&p.params) {
                if let Type::Class(want) = &q.ty {
                    match self.type_of(a, env)? {
                        Type::Class(got) if got == *want => {}
                        _ if matches!(a, Expr::Null) => {}
                        got => {
                            return Err(err(
                                pos_of(a),
                                format!(
                                    "`{}` expects a `{want}` here, given {}",
                                    p.name.name,
                                    match got {
                                        Type::Int => "an int".to_owned(),
                                        Type::Class(g) => format!("a `{g}`"),
                                    }
                                ),
                            ))
                        }
                    }
                }
            }
            match mode {
                Mode::Atomic(v) => {
                    let spec = self.spec(p)?;
                    v.merge_p(&spec);
                }
                Mode::Plain(regions) => {
                    if p.atomic {
                        let view = self.spec(p)?;
                        regions.push(Region {
                            view,
                            origin: format!(
                                "atomic proc `{}` at {}:{}",
                                p.name.name, self.file, p.name.pos
                            ),
                        });
                    } else if !self.in_progress.contains(&p.name.name.as_str()) {
                        // Outside atomic regions a procedure only contributes the regions it
                        // runs; a recursive cycle adds none that the outer call does not.
                        self.in_progress.push(&p.name.name);
                        let mut penv = params_env(p);
                        let r = self.block(&p.body, &mut penv, &mut Mode::Plain(regions));
                        self.in_progress.pop();
                        r?;
                    }
                }
            }
            return Ok(());
        }
        let spec = match self.natives.get(&(None, name)) {
            Some(n) => {
                let n = *n;
                check_arity(c, n.params.len())?;
                self.native_spec(n)?
            }
            None => self.unknown(c, None, env, false)?,
        };
        if let Mode::Atomic(v) = mode {
            v.merge_p(&spec);
        }
        Ok(())
    }

    /// `spec(proc)`: the view of a procedure's body from the empty view. Within a recursive
    /// cycle the callee's view of the previous round stands in until the views stabilise.
    fn spec(&mut self, p: &'p Proc) -> Result<View, SyntaxError> {
        let name = p.name.name.as_str();
        if let Some(v) = self.specs.get(name) {
            return Ok(v.clone());
        }
        if self.in_progress.contains(&name) {
            self.recursive = true;
            return Ok(self.previous.get(name).cloned().unwrap_or_default());
        }
        self.in_progress.push(name);
        let mut view = View::new();
        let mut env = params_env(p);
        let r = self.block(&p.body, &mut env, &mut Mode::Atomic(&mut view));
        self.in_progress.pop();
        r?;
        self.specs.insert(name, view.clone());
        Ok(view)
    }

    /// Every field of an object of class `c`, as accesses of `kind`.
    fn all_fields(&mut self, c: &Class, kind: Kind, out: &mut Vec<Access>) {
        for f in &c.fields {
            let var = self.var(&c.name.name, &f.name.name);
            out.push(Access::new(kind, var, Mark::Open));
        }
    }

    /// The view of a native procedure: its writes, then its reads (so that a value it reads
    /// is taken to escape: the conservative side for stale values).
    fn native_spec(&mut self, n: &'p Native) -> Result<View, SyntaxError> {
        if n.reads.is_none() && n.writes.is_none() {
            let shown = match &n.class {
                Some(c) => format!("{}.{}", c.name, n.name.name),
                None => n.name.name.clone(),
            };
            self.warn(
                n.name.pos,
                &shown,
                "native procedure without `reads`/`writes` annotation",
            );
            let mut writes = Vec::new();
            if let Some(c) = &n.class {
                let c = self.classes[c.name.as_str()];
                self.all_fields(c, Kind::Write, &mut writes);
            }
            for q in &n.params {
                if let Type::Class(c) = &q.ty {
                    let c = self.classes[c.as_str()];
                    self.all_fields(c, Kind::Write, &mut writes);
                }
            }
            return Ok(worst_case(writes));
        }
        let mut accesses = Vec::new();
        for (targets, kind) in [(&n.writes, Kind::Write), (&n.reads, Kind::Read)] {
            for t in targets.iter().flatten() {
                let class = if t.base.name == "this" {
                    match &n.class {
                        Some(c) => self.classes[c.name.as_str()],
                        None => {
                            return Err(err(
                                t.base.pos,
                                "`this` in a procedure without receiver (declare it `native proc Class.name(...)`)",
                            ))
                        }
                    }
                } else {
                    match n.params.iter().find(|q| q.name.name == t.base.name) {
                        Some(q) => match &q.ty {
                            Type::Class(c) => self.classes[c.as_str()],
                            Type::Int => {
                                return Err(err(
                                    t.base.pos,
                                    format!("`{}` is an int, not an object", t.base.name),
                                ))
                            }
                        },
                        None => {
                            return Err(err(
                                t.base.pos,
                                format!(
                                    "`{}` is not a parameter of `{}`",
                                    t.base.name, n.name.name
                                ),
                            ))
                        }
                    }
                };
                match &t.field {
                    Some(f) => {
                        self.field(class, f)?;
                        let var = self.var(&class.name.name, &f.name);
                        accesses.push(Access::new(kind, var, Mark::Open));
                    }
                    None => self.all_fields(class, kind, &mut accesses),
                }
            }
        }
        let mut v = View::new();
        for a in accesses {
            v.add(a);
        }
        Ok(v)
    }

    /// A call of a procedure nobody declared: it reads and writes every field of its receiver
    /// and object arguments.
    fn unknown(
        &mut self,
        c: &Call,
        receiver: Option<&'p Class>,
        env: &Env,
        _: bool,
    ) -> Result<View, SyntaxError> {
        let shown = match receiver {
            Some(r) => format!("{}.{}", r.name.name, c.name.name),
            None => c.name.name.clone(),
        };
        self.warn(c.name.pos, &shown, "unknown procedure (not declared)");
        let mut writes = Vec::new();
        if let Some(r) = receiver {
            self.all_fields(r, Kind::Write, &mut writes);
        }
        for a in &c.args {
            if let Type::Class(k) = self.type_of(a, env)? {
                let k = self.classes[k.as_str()];
                self.all_fields(k, Kind::Write, &mut writes);
            }
        }
        Ok(worst_case(writes))
    }

    fn warn(&mut self, pos: Pos, name: &str, what: &str) {
        if self.warned.insert(name.to_owned()) {
            self.warnings.push(Diagnostic::warning(
                self.file,
                Position::At(pos),
                format!("{what} `{name}`: assumed to read and write every field of its receiver and object arguments"),
            ));
        }
    }
}

/// Writes of every given variable, then reads of them: `{(w, v, ∘), (r, v, ∘)}` each.
fn worst_case(writes: Vec<Access>) -> View {
    let mut v = View::new();
    for a in &writes {
        v.add(*a);
    }
    for a in writes {
        v.add(Access::new(Kind::Read, a.var, Mark::Open));
    }
    v
}

fn params_env(p: &Proc) -> Env {
    p.params
        .iter()
        .map(|q| (q.name.name.clone(), q.ty.clone()))
        .collect()
}

fn check_arity(c: &Call, n: usize) -> Result<(), SyntaxError> {
    if c.args.len() != n {
        return Err(err(
            c.name.pos,
            format!(
                "`{}` takes {n} argument(s), given {}",
                c.name.name,
                c.args.len()
            ),
        ));
    }
    Ok(())
}

fn pos_of(e: &Expr) -> Pos {
    match e {
        Expr::Var(v) => v.pos,
        Expr::Field(r, _) => pos_of(r),
        Expr::Binary(a, _, _) => pos_of(a),
        Expr::Not(a) | Expr::Neg(a) => pos_of(a),
        Expr::Call(c) => c.receiver.as_deref().map_or(c.name.pos, pos_of),
        Expr::Int(_) | Expr::Null => Pos::default(),
    }
}
