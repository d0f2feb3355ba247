//! Random traces for property tests: events over names drawn from small pools, built into a
//! [`Trace`] whose names are interned in the order a reader meets them, so that a trace read
//! back from any format must equal it exactly.

use hindsight_trace::{
    Call, Event, LocId, LockId, MsgId, NameKind, Names, ObjId, Op, SymId, ThreadId, Trace, Value,
    VarId,
};
use proptest::prelude::*;
use proptest::sample::select;

#[derive(Clone, Debug)]
pub enum AVal {
    Int(i64),
    Nil,
    Sym(String),
    Str(String),
}

#[derive(Clone, Debug)]
pub enum AOp {
    Read(String),
    Write(String),
    Acquire(String),
    Release(String),
    Request(String),
    Fork(String),
    Join(String),
    Begin(Option<String>),
    End,
    Send(String),
    Receive(String),
    AtomicLoad(String),
    AtomicStore(String),
    AtomicRmw(String),
    Call {
        object: String,
        method: String,
        args: Vec<AVal>,
        results: Vec<AVal>,
    },
}

#[derive(Clone, Debug)]
pub struct AEvent {
    pub thread: String,
    pub op: AOp,
    pub loc: Option<String>,
}

/// Pools of names per role.
#[derive(Clone, Debug)]
pub struct Pools {
    pub threads: Vec<String>,
    pub vars: Vec<String>,
    pub locks: Vec<String>,
    pub msgs: Vec<String>,
    pub objects: Vec<String>,
    pub methods: Vec<String>,
    pub labels: Vec<String>,
    pub syms: Vec<String>,
    pub strs: Vec<String>,
    pub locs: Vec<String>,
}

/// A name any text field can carry.
pub fn carryable(s: &str) -> bool {
    !s.is_empty() && !s.contains(['|', '\n', '\r']) && s.trim() == s
}

/// A symbol the text format can write as a bare value.
pub fn bare_symbol(s: &str) -> bool {
    !s.is_empty()
        && s != "nil"
        && !s.bytes().any(|c| {
            matches!(c, b',' | b'(' | b')' | b'/' | b'|' | b'"') || c.is_ascii_whitespace()
        })
        && !s
            .strip_prefix('-')
            .unwrap_or(s)
            .bytes()
            .all(|c| c.is_ascii_digit())
}

const NAME: &str = "[a-zA-Z0-9_.#(),/\"\\\\ é\\[\\]:-]{1,7}";

fn pool(
    name: impl Strategy<Value = String>,
    ok: fn(&str) -> bool,
) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(name.prop_filter("not carryable", move |s| ok(s)), 1..5)
}

/// Pools of names the text format can carry.
pub fn text_pools() -> impl Strategy<Value = Pools> {
    let generic = || pool(NAME, carryable);
    (
        (
            pool(NAME, |s| carryable(s) && !s.starts_with('#')),
            generic(),
            generic(),
            generic(),
            pool(NAME, |s| carryable(s) && !s.contains(['(', ')'])),
            pool(NAME, |s| carryable(s) && !s.contains(['.', '(', ')'])),
        ),
        (
            generic(),
            pool("[a-zA-Z0-9_.#:é\\[\\]\\\\-]{1,5}", bare_symbol),
            pool("[a-z \"\\\\\n\t\r|(),/#é]{0,6}", |_| true),
            prop_oneof![pool("[0-9]{1,6}", carryable), generic(),],
        ),
    )
        .prop_map(pools)
}

/// Pools of arbitrary names, for the binary format, which carries any UTF-8 name.
pub fn any_pools() -> impl Strategy<Value = Pools> {
    uniform_pools(".{0,8}")
}

/// Pools whose every name matches the regular expression `name`.
pub fn uniform_pools(name: &'static str) -> impl Strategy<Value = Pools> {
    let names = move || prop::collection::vec(name, 1..5);
    (
        (names(), names(), names(), names(), names(), names()),
        (names(), names(), names(), names()),
    )
        .prop_map(pools)
}

type PoolTuple = (
    (
        Vec<String>,
        Vec<String>,
        Vec<String>,
        Vec<String>,
        Vec<String>,
        Vec<String>,
    ),
    (Vec<String>, Vec<String>, Vec<String>, Vec<String>),
);

fn pools(
    ((threads, vars, locks, msgs, objects, methods), (labels, syms, strs, locs)): PoolTuple,
) -> Pools {
    Pools {
        threads,
        vars,
        locks,
        msgs,
        objects,
        methods,
        labels,
        syms,
        strs,
        locs,
    }
}

fn value(p: &Pools) -> impl Strategy<Value = AVal> {
    prop_oneof![
        any::<i64>().prop_map(AVal::Int),
        (-3i64..300).prop_map(AVal::Int),
        Just(AVal::Nil),
        select(p.syms.clone()).prop_map(AVal::Sym),
        select(p.strs.clone()).prop_map(AVal::Str),
    ]
}

fn op(p: &Pools) -> impl Strategy<Value = AOp> {
    let s = |v: &Vec<String>| select(v.clone());
    let values = || prop::collection::vec(value(p), 0..4);
    prop_oneof![
        s(&p.vars).prop_map(AOp::Read),
        s(&p.vars).prop_map(AOp::Write),
        s(&p.locks).prop_map(AOp::Acquire),
        s(&p.locks).prop_map(AOp::Release),
        s(&p.locks).prop_map(AOp::Request),
        s(&p.threads).prop_map(AOp::Fork),
        s(&p.threads).prop_map(AOp::Join),
        prop::option::of(s(&p.labels)).prop_map(AOp::Begin),
        Just(AOp::End),
        s(&p.msgs).prop_map(AOp::Send),
        s(&p.msgs).prop_map(AOp::Receive),
        s(&p.vars).prop_map(AOp::AtomicLoad),
        s(&p.vars).prop_map(AOp::AtomicStore),
        s(&p.vars).prop_map(AOp::AtomicRmw),
        (s(&p.objects), s(&p.methods), values(), values()).prop_map(
            |(object, method, args, results)| AOp::Call {
                object,
                method,
                args,
                results
            }
        ),
    ]
}

fn event(p: &Pools) -> impl Strategy<Value = AEvent> {
    (
        select(p.threads.clone()),
        op(p),
        prop::option::of(select(p.locs.clone())),
    )
        .prop_map(|(thread, op, loc)| AEvent { thread, op, loc })
}

/// Random traces over names from `pools`.
pub fn trace(
    pools: impl Strategy<Value = Pools>,
    max_events: usize,
) -> impl Strategy<Value = Trace> {
    pools.prop_flat_map(move |p| {
        prop::collection::vec(event(&p), 0..max_events).prop_map(|events| build(&events))
    })
}

/// Builds a trace, interning names in the order readers meet them.
pub fn build(events: &[AEvent]) -> Trace {
    let mut names = Names::default();
    let mut id = |kind: NameKind, s: &str| names.of_mut(kind).intern(s.as_bytes()).unwrap();
    let mut out = Vec::with_capacity(events.len());
    for (i, a) in events.iter().enumerate() {
        let thread = ThreadId(id(NameKind::Thread, &a.thread));
        let op = match &a.op {
            AOp::Read(x) => Op::Read(VarId(id(NameKind::Var, x))),
            AOp::Write(x) => Op::Write(VarId(id(NameKind::Var, x))),
            AOp::Acquire(l) => Op::Acquire(LockId(id(NameKind::Lock, l))),
            AOp::Release(l) => Op::Release(LockId(id(NameKind::Lock, l))),
            AOp::Request(l) => Op::Request(LockId(id(NameKind::Lock, l))),
            AOp::Fork(t) => Op::Fork(ThreadId(id(NameKind::Thread, t))),
            AOp::Join(t) => Op::Join(ThreadId(id(NameKind::Thread, t))),
            AOp::Begin(l) => Op::Begin(l.as_ref().map(|l| SymId(id(NameKind::Symbol, l)))),
            AOp::End => Op::End,
            AOp::Send(m) => Op::Send(MsgId(id(NameKind::Msg, m))),
            AOp::Receive(m) => Op::Receive(MsgId(id(NameKind::Msg, m))),
            AOp::AtomicLoad(x) => Op::AtomicLoad(VarId(id(NameKind::Var, x))),
            AOp::AtomicStore(x) => Op::AtomicStore(VarId(id(NameKind::Var, x))),
            AOp::AtomicRmw(x) => Op::AtomicRmw(VarId(id(NameKind::Var, x))),
            AOp::Call {
                object,
                method,
                args,
                results,
            } => {
                let object = ObjId(id(NameKind::Object, object));
                let method = SymId(id(NameKind::Symbol, method));
                let mut conv = |vs: &[AVal]| -> Vec<Value> {
                    vs.iter()
                        .map(|v| match v {
                            AVal::Int(i) => Value::Int(*i),
                            AVal::Nil => Value::Nil,
                            AVal::Sym(s) => Value::Sym(SymId(id(NameKind::Symbol, s))),
                            AVal::Str(s) => Value::Str(SymId(id(NameKind::Symbol, s))),
                        })
                        .collect()
                };
                let args = conv(args);
                let results = conv(results);
                Op::Call(Box::new(Call {
                    object,
                    method,
                    args,
                    results,
                }))
            }
        };
        let loc = a.loc.as_ref().map(|l| LocId(id(NameKind::Location, l)));
        out.push(Event {
            index: i as u64,
            thread,
            op,
            loc,
        });
    }
    Trace { names, events: out }
}
