//! From parsed Java files (`crate::java`) to the lowered form of `ir.rs`.
//!
//! - Atomic regions: `synchronized` methods and blocks, methods annotated `@Atomic`, and with
//!   lock spans on, `x.lock()` .. `x.unlock()` (a `finally` runs before every `return`, `break`
//!   and `continue` that leaves its `try`, so the span ends where the code says).
//! - Objects: one allocation site per `new`; an array or a JDK collection is an object with
//!   one element variable, named after the field or local it is first stored in.
//! - Control: `if`, `while`, `do`, `for`, enhanced `for`, `switch` (its cases as branches),
//!   `break`, `continue`, early `return`, `try`/`catch`/`finally` (catch blocks as branches
//!   that may run after the try), ternaries; `a.b().c()` chains are nested calls.
//! - Threads: `new Thread(r)` (a `Runnable` object or a lambda), `Thread` subclasses,
//!   `start()`, `join()`, and executors (`Executors.new…()`, `submit`/`execute`,
//!   `awaitTermination`/`close`).
//!
//! What is not followed is written down in `Program::notes` and the value it yields is an
//! unknown value depending on its operands: anonymous classes, `super(...)`, reflection.

use super::ir::*;
use crate::java::{self, base_type, ClassDecl, JavaFile};
use hindsight_syntax::{SyntaxError, MAX_NESTING};
use rustc_hash::FxHashMap;
use tree_sitter::Node;

/// Options of the lowering.
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerOptions {
    /// `lock()`/`unlock()` spans are atomic regions.
    pub lock_regions: bool,
}

/// Lowers the files (each already parsed) into one program.
pub fn lower(
    files: &[(String, JavaFile)],
    models: &super::models::Models,
    options: LowerOptions,
) -> Result<Program, SyntaxError> {
    let mut p = Program::default();
    let mut decls: Vec<(u32, ClassDecl)> = Vec::new();
    for (i, (name, f)) in files.iter().enumerate() {
        p.files.push(SourceFile {
            name: name.clone(),
            lines: f.text.lines().map(str::to_owned).collect(),
        });
        for c in java::classes(f)? {
            decls.push((i as u32, c));
        }
    }
    for (_, c) in &decls {
        let name = if c.name.is_empty() {
            "Snippet".to_owned()
        } else {
            c.name.clone()
        };
        let is_runnable = c
            .interfaces
            .iter()
            .any(|i| matches!(base_type(i), "Runnable" | "Callable"));
        p.classes.push(Class {
            name,
            superclass: c.superclass.clone(),
            is_thread: false,
            is_runnable,
            fields: c
                .fields
                .iter()
                .filter(|f| !f.is_static)
                .map(|f| f.name.clone())
                .collect(),
            static_fields: c
                .fields
                .iter()
                .filter(|f| f.is_static)
                .map(|f| f.name.clone())
                .collect(),
            init: None,
            clinit: None,
        });
    }
    // Thread subclasses, through the program's own classes.
    for _ in 0..p.classes.len() {
        for i in 0..p.classes.len() {
            let sup = p.classes[i].superclass.clone();
            if let Some(s) = sup {
                let b = base_type(&s);
                let via = p.class_named(b).map(|j| p.classes[j as usize].is_thread);
                if b == "Thread" || via == Some(true) {
                    p.classes[i].is_thread = true;
                }
                if p.class_named(b).map(|j| p.classes[j as usize].is_runnable) == Some(true) {
                    p.classes[i].is_runnable = true;
                }
            }
        }
    }
    let mut l = Lower {
        p,
        files,
        models,
        options,
        next_call: 0,
        call_nodes: FxHashMap::default(),
    };
    // Method ids first, so that calls can be resolved by name later.
    for (ci, (fi, c)) in decls.iter().enumerate() {
        l.class_init(ci as ClassId, *fi, c)?;
        for m in &c.methods {
            l.method(ci as ClassId, *fi, m)?;
        }
    }
    Ok(l.p)
}

struct Lower<'a> {
    p: Program,
    files: &'a [(String, JavaFile)],
    models: &'a super::models::Models,
    options: LowerOptions,
    next_call: u32,
    /// The call id of each method invocation lowered, by (file, node): what
    /// `Stmt::JoinedAll` names the `start()` calls of a start loop by.
    call_nodes: FxHashMap<(u32, usize), CallId>,
}

/// The state of lowering one method body.
struct Body<'t> {
    class: ClassId,
    file: u32,
    method_name: String,
    is_static: bool,
    scopes: Vec<FxHashMap<String, LocalId>>,
    locals: u32,
    /// `finally` blocks around the current statement, innermost last.
    finally: Vec<Node<'t>>,
    /// `finally.len()` at the innermost loop.
    loop_finally: Vec<usize>,
    /// How deep the statement or expression being lowered is nested.
    depth: usize,
}

impl Body<'_> {
    fn fresh(&mut self, name: &str) -> LocalId {
        let id = self.locals;
        self.locals += 1;
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_owned(), id);
        }
        id
    }
    fn temp(&mut self) -> LocalId {
        let id = self.locals;
        self.locals += 1;
        id
    }
    fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }
}

fn line(f: &JavaFile, n: Node) -> u32 {
    f.pos(n).line
}

impl<'a> Lower<'a> {
    fn file(&self, i: u32) -> &'a JavaFile {
        &self.files[i as usize].1
    }

    fn call_id(&mut self) -> CallId {
        self.next_call += 1;
        self.next_call
    }

    fn note(&mut self, file: u32, node: Node, what: &str) {
        let f = self.file(file);
        let n = format!("{}:{}: {what}", self.files[file as usize].0, f.pos(node));
        if !self.p.notes.contains(&n) {
            self.p.notes.push(n);
        }
    }

    fn new_body(&self, class: ClassId, file: u32, name: &str, is_static: bool) -> Body<'a> {
        Body {
            class,
            file,
            method_name: name.to_owned(),
            is_static,
            scopes: vec![FxHashMap::default()],
            locals: if is_static { 0 } else { 1 },
            finally: Vec::new(),
            loop_finally: Vec::new(),
            depth: 0,
        }
    }

    fn class_init(&mut self, ci: ClassId, fi: u32, c: &ClassDecl<'a>) -> Result<(), SyntaxError> {
        let f = self.file(fi);
        for is_static in [false, true] {
            let mut b = self.new_body(ci, fi, "<init>", is_static);
            let mut stmts = Vec::new();
            for fd in c.fields.iter().filter(|x| x.is_static == is_static) {
                let Some(init) = fd.init else { continue };
                let hint = format!("{}.{}", self.p.classes[ci as usize].name, fd.name);
                let mut pre = Vec::new();
                let v = self.expr(&mut b, init, &mut pre, Some(&hint))?;
                stmts.extend(pre);
                stmts.push(if is_static {
                    Stmt::StoreStatic(ci, fd.name.clone(), v)
                } else {
                    Stmt::Store(Expr::Local(0), fd.name.clone(), v)
                });
            }
            if stmts.is_empty() {
                continue;
            }
            let id = self.p.methods.len() as MethodId;
            self.p.methods.push(Method {
                class: Some(ci),
                name: "<init>".into(),
                params: if is_static { 0 } else { 1 },
                param_types: Vec::new(),
                locals: b.locals,
                body: stmts,
                region: None,
                is_public: false,
                is_static,
                is_constructor: false,
                file: fi,
                line: c.pos.line,
            });
            if is_static {
                self.p.classes[ci as usize].clinit = Some(id);
            } else {
                self.p.classes[ci as usize].init = Some(id);
            }
        }
        let _ = f;
        Ok(())
    }

    fn method(
        &mut self,
        ci: ClassId,
        fi: u32,
        m: &java::MethodDecl<'a>,
    ) -> Result<(), SyntaxError> {
        let f = self.file(fi);
        let mut b = self.new_body(ci, fi, &m.name, m.is_static);
        for q in &m.params {
            b.fresh(&q.name);
        }
        let params = b.locals;
        let atomic = m.is_synchronized || m.annotations.iter().any(|a| a == "Atomic");
        let class_name = self.p.classes[ci as usize].name.clone();
        let region = atomic.then(|| {
            let what = if m.is_synchronized {
                "synchronized method"
            } else {
                "@Atomic method"
            };
            self.p.regions.push(RegionSrc {
                file: fi,
                start: m.pos.line,
                end: m.end_line,
                what: format!("{what} `{class_name}.{}`", m.name),
            });
            (self.p.regions.len() - 1) as RegionSrcId
        });
        let body = self.block(&mut b, m.body)?;
        let is_main = m.name == "main" && m.is_static && m.params.len() == 1;
        let id = self.p.methods.len() as MethodId;
        self.p.methods.push(Method {
            class: Some(ci),
            name: m.name.clone(),
            params,
            param_types: m.params.iter().map(|q| q.ty.clone()).collect(),
            locals: b.locals,
            body,
            region,
            is_public: m.is_public,
            is_static: m.is_static,
            is_constructor: m.is_constructor,
            file: fi,
            line: m.pos.line,
        });
        if is_main && self.p.main.is_none() {
            self.p.main = Some(id);
        }
        let _ = f;
        Ok(())
    }

    fn block(&mut self, b: &mut Body<'a>, node: Node<'a>) -> Result<Vec<Stmt>, SyntaxError> {
        b.scopes.push(FxHashMap::default());
        let mut out = Vec::new();
        let r = self.stmts_into(b, node, &mut out);
        b.scopes.pop();
        r.map(|_| out)
    }

    /// The statements of `node` (a block, or one statement) appended to `out`.
    fn stmts_into(
        &mut self,
        b: &mut Body<'a>,
        node: Node<'a>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), SyntaxError> {
        if matches!(
            node.kind(),
            "block" | "constructor_body" | "switch_block_statement_group"
        ) {
            let mut c = node.walk();
            let children: Vec<Node> = node.named_children(&mut c).collect();
            let joins = joined_loops(self.file(b.file), &children);
            for (i, s) in children.into_iter().enumerate() {
                self.stmt(b, s, out)?;
                for j in joins.iter().filter(|j| j.join_loop == i) {
                    let ids = j
                        .starts
                        .iter()
                        .filter_map(|n| self.call_nodes.get(&(b.file, *n)).copied())
                        .collect();
                    out.push(Stmt::JoinedAll(ids));
                }
            }
            Ok(())
        } else {
            self.stmt(b, node, out)
        }
    }

    fn sub_block(
        &mut self,
        b: &mut Body<'a>,
        node: Option<Node<'a>>,
    ) -> Result<Vec<Stmt>, SyntaxError> {
        match node {
            None => Ok(Vec::new()),
            Some(n) => {
                b.scopes.push(FxHashMap::default());
                let mut out = Vec::new();
                let r = self.stmts_into(b, n, &mut out);
                b.scopes.pop();
                r.map(|_| out)
            }
        }
    }

    /// The `finally` blocks that a jump out of the innermost loop (`to_loop`) or the method
    /// runs, innermost first.
    fn finally_before_jump(
        &mut self,
        b: &mut Body<'a>,
        to_loop: bool,
        out: &mut Vec<Stmt>,
    ) -> Result<(), SyntaxError> {
        let from = if to_loop {
            b.loop_finally.last().copied().unwrap_or(0)
        } else {
            0
        };
        let pending: Vec<Node> = b.finally[from..].iter().rev().copied().collect();
        let saved = std::mem::take(&mut b.finally);
        b.finally = saved[..from].to_vec();
        for f in pending {
            let body = self.block(b, f)?;
            out.extend(body);
        }
        b.finally = saved;
        Ok(())
    }

    /// One statement; statements nested deeper than [`MAX_NESTING`] are an error (the
    /// lowering and the analysis recurse on them).
    fn stmt(
        &mut self,
        b: &mut Body<'a>,
        s: Node<'a>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), SyntaxError> {
        self.nested(b, s)?;
        let r = self.stmt_inner(b, s, out);
        b.depth -= 1;
        r
    }

    fn expr(
        &mut self,
        b: &mut Body<'a>,
        e: Node<'a>,
        pre: &mut Vec<Stmt>,
        hint: Option<&str>,
    ) -> Result<Expr, SyntaxError> {
        self.nested(b, e)?;
        let r = self.expr_inner(b, e, pre, hint);
        b.depth -= 1;
        r
    }

    fn nested(&self, b: &mut Body<'a>, n: Node<'a>) -> Result<(), SyntaxError> {
        if b.depth >= MAX_NESTING {
            let f = self.file(b.file);
            return Err(SyntaxError::new(
                f.pos(n),
                format!("statements or expressions nested more than {MAX_NESTING} deep"),
            ));
        }
        b.depth += 1;
        Ok(())
    }

    fn stmt_inner(
        &mut self,
        b: &mut Body<'a>,
        s: Node<'a>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), SyntaxError> {
        let f = self.file(b.file);
        match s.kind() {
            "line_comment" | "block_comment" | ";" | "empty_statement" => {}
            "block" => {
                let inner = self.block(b, s)?;
                out.extend(inner);
            }
            "local_variable_declaration" => {
                let mut c = s.walk();
                let decls: Vec<Node> = s.children_by_field_name("declarator", &mut c).collect();
                for d in decls {
                    let Some(name) = d.child_by_field_name("name") else {
                        continue;
                    };
                    let name = f.text_of(name).to_owned();
                    let value = match d.child_by_field_name("value") {
                        Some(v) => {
                            let hint = format!(
                                "{}.{}.{}",
                                self.p.classes[b.class as usize].name, b.method_name, name
                            );
                            let mut pre = Vec::new();
                            let e = self.expr(b, v, &mut pre, Some(&hint))?;
                            out.extend(pre);
                            Some(e)
                        }
                        None => None,
                    };
                    let id = b.fresh(&name);
                    out.push(Stmt::Set(id, value.unwrap_or(Expr::Int(0))));
                }
            }
            "expression_statement" => {
                let Some(e) = s.named_child(0) else {
                    return Ok(());
                };
                self.expr_stmt(b, e, out)?;
            }
            "if_statement" => {
                let mut pre = Vec::new();
                let cond = match s.child_by_field_name("condition") {
                    Some(c) => self.expr(b, c, &mut pre, None)?,
                    None => Expr::Unknown(Vec::new()),
                };
                out.extend(pre);
                let then = self.sub_block(b, s.child_by_field_name("consequence"))?;
                let other = self.sub_block(b, s.child_by_field_name("alternative"))?;
                out.push(Stmt::If(cond, then, other));
            }
            "while_statement" => {
                let mut pre = Vec::new();
                let cond = match s.child_by_field_name("condition") {
                    Some(c) => self.expr(b, c, &mut pre, None)?,
                    None => Expr::Unknown(Vec::new()),
                };
                let mut body = pre;
                body.push(Stmt::If(cond, Vec::new(), vec![Stmt::Break]));
                b.loop_finally.push(b.finally.len());
                let inner = self.sub_block(b, s.child_by_field_name("body"));
                b.loop_finally.pop();
                body.extend(inner?);
                out.push(Stmt::Loop(body, Vec::new()));
            }
            "do_statement" => {
                b.loop_finally.push(b.finally.len());
                let inner = self.sub_block(b, s.child_by_field_name("body"));
                b.loop_finally.pop();
                let mut body = inner?;
                let mut pre = Vec::new();
                let cond = match s.child_by_field_name("condition") {
                    Some(c) => self.expr(b, c, &mut pre, None)?,
                    None => Expr::Unknown(Vec::new()),
                };
                body.extend(pre);
                body.push(Stmt::If(cond, Vec::new(), vec![Stmt::Break]));
                out.push(Stmt::Loop(body, Vec::new()));
            }
            "for_statement" => {
                b.scopes.push(FxHashMap::default());
                let r = self.for_stmt(b, s, out);
                b.scopes.pop();
                r?;
            }
            "enhanced_for_statement" => {
                b.scopes.push(FxHashMap::default());
                let r = self.each_stmt(b, s, out);
                b.scopes.pop();
                r?;
            }
            "return_statement" => {
                let mut pre = Vec::new();
                let v = match s.named_child(0) {
                    Some(e) => Some(self.expr(b, e, &mut pre, None)?),
                    None => None,
                };
                out.extend(pre);
                if b.finally.is_empty() {
                    out.push(Stmt::Return(v));
                } else {
                    // The value first, then the finally blocks, then the return.
                    let t = b.temp();
                    out.push(Stmt::Set(t, v.unwrap_or(Expr::Int(0))));
                    self.finally_before_jump(b, false, out)?;
                    out.push(Stmt::Return(Some(Expr::Local(t))));
                }
            }
            "break_statement" | "continue_statement" => {
                if s.named_child(0).is_some() {
                    self.note(
                        b.file,
                        s,
                        "labelled jump taken as a jump out of the innermost loop",
                    );
                }
                self.finally_before_jump(b, true, out)?;
                out.push(if s.kind() == "break_statement" {
                    Stmt::Break
                } else {
                    Stmt::Continue
                });
            }
            "synchronized_statement" => {
                let mut pre = Vec::new();
                if let Some(lock) = s.named_child(0) {
                    let e = self.expr(b, lock, &mut pre, None)?;
                    pre.push(Stmt::Eval(e));
                }
                out.extend(pre);
                let body_node = s.child_by_field_name("body");
                let region = self.region(b.file, s, "synchronized block");
                let body = self.sub_block(b, body_node)?;
                out.push(Stmt::Atomic(region, body));
            }
            "try_statement" | "try_with_resources_statement" => {
                let mut c = s.walk();
                let children: Vec<Node> = s.named_children(&mut c).collect();
                let finally = children
                    .iter()
                    .find(|n| n.kind() == "finally_clause")
                    .and_then(|n| n.named_child(0));
                let mut pre = Vec::new();
                if let Some(res) = s.child_by_field_name("resources") {
                    let mut c = res.walk();
                    let rs: Vec<Node> = res.named_children(&mut c).collect();
                    for r in rs {
                        if let (Some(n), Some(v)) = (
                            r.child_by_field_name("name"),
                            r.child_by_field_name("value"),
                        ) {
                            let e = self.expr(b, v, &mut pre, None)?;
                            let id = b.fresh(f.text_of(n));
                            pre.push(Stmt::Set(id, e));
                        }
                    }
                }
                out.extend(pre);
                if let Some(fin) = finally {
                    b.finally.push(fin);
                }
                let body = self.sub_block(b, s.child_by_field_name("body"));
                // Catch blocks may run after any part of the try: a branch after it.
                let mut catches = Vec::new();
                for cc in children.iter().filter(|n| n.kind() == "catch_clause") {
                    b.scopes.push(FxHashMap::default());
                    let mut c2 = cc.walk();
                    let parts: Vec<Node> = cc.named_children(&mut c2).collect();
                    if let Some(p) = parts.iter().find(|p| p.kind() == "catch_formal_parameter") {
                        if let Some(n) = p.child_by_field_name("name") {
                            b.fresh(f.text_of(n));
                        }
                    }
                    let r = self.sub_block(b, cc.child_by_field_name("body"));
                    b.scopes.pop();
                    catches.push(r?);
                }
                if finally.is_some() {
                    b.finally.pop();
                }
                out.extend(body?);
                for cat in catches {
                    out.push(Stmt::If(Expr::Unknown(Vec::new()), cat, Vec::new()));
                }
                if let Some(fin) = finally {
                    let fb = self.block(b, fin)?;
                    out.extend(fb);
                }
            }
            "switch_expression" | "switch_statement" => {
                let e = self.switch(b, s, out)?;
                out.push(Stmt::Eval(e));
            }
            "labeled_statement" => {
                if let Some(inner) = s.named_children(&mut s.walk()).last() {
                    self.stmt(b, inner, out)?;
                }
            }
            "throw_statement" => {
                let mut pre = Vec::new();
                if let Some(e) = s.named_child(0) {
                    let v = self.expr(b, e, &mut pre, None)?;
                    pre.push(Stmt::Eval(v));
                }
                out.extend(pre);
                // An exception leaves the method (no handler is followed): like a return.
                self.finally_before_jump(b, false, out)?;
                out.push(Stmt::Return(None));
            }
            "explicit_constructor_invocation" => {
                self.note(b.file, s, "`super(...)`/`this(...)` not followed");
                let mut pre = Vec::new();
                if let Some(args) = s.child_by_field_name("arguments") {
                    let a = self.args(b, args, &mut pre)?;
                    pre.push(Stmt::Eval(Expr::Unknown(a)));
                }
                out.extend(pre);
            }
            "assert_statement"
            | "yield_statement"
            | "local_class_declaration"
            | "class_declaration" => {
                self.note(
                    b.file,
                    s,
                    &format!("{} not followed", s.kind().replace('_', " ")),
                );
            }
            _ => {
                self.note(
                    b.file,
                    s,
                    &format!("{} not followed", s.kind().replace('_', " ")),
                );
            }
        }
        Ok(())
    }

    fn region(&mut self, file: u32, node: Node, what: &str) -> RegionSrcId {
        let f = self.file(file);
        self.p.regions.push(RegionSrc {
            file,
            start: line(f, node),
            end: f.end_line(node),
            what: what.to_owned(),
        });
        (self.p.regions.len() - 1) as RegionSrcId
    }

    fn for_stmt(
        &mut self,
        b: &mut Body<'a>,
        s: Node<'a>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), SyntaxError> {
        let mut c = s.walk();
        let inits: Vec<Node> = s.children_by_field_name("init", &mut c).collect();
        for i in inits {
            if i.kind() == "local_variable_declaration" {
                self.stmt(b, i, out)?;
            } else {
                self.expr_stmt(b, i, out)?;
            }
        }
        let mut body = Vec::new();
        if let Some(cond) = s.child_by_field_name("condition") {
            let mut pre = Vec::new();
            let e = self.expr(b, cond, &mut pre, None)?;
            body.extend(pre);
            body.push(Stmt::If(e, Vec::new(), vec![Stmt::Break]));
        }
        b.loop_finally.push(b.finally.len());
        let inner = self.sub_block(b, s.child_by_field_name("body"));
        b.loop_finally.pop();
        body.extend(inner?);
        let mut update = Vec::new();
        let mut c = s.walk();
        let updates: Vec<Node> = s.children_by_field_name("update", &mut c).collect();
        for u in updates {
            self.expr_stmt(b, u, &mut update)?;
        }
        body.extend(update.iter().cloned());
        out.push(Stmt::Loop(body, update));
        Ok(())
    }

    fn each_stmt(
        &mut self,
        b: &mut Body<'a>,
        s: Node<'a>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), SyntaxError> {
        let f = self.file(b.file);
        let mut pre = Vec::new();
        let coll = match s.child_by_field_name("value") {
            Some(v) => self.expr(b, v, &mut pre, None)?,
            None => Expr::Unknown(Vec::new()),
        };
        out.extend(pre);
        let cl = b.temp();
        out.push(Stmt::Set(cl, coll));
        let i = b.temp();
        out.push(Stmt::Set(i, Expr::Int(0)));
        let n = b.temp();
        let (id1, id2) = (self.call_id(), self.call_id());
        let at = line(f, s);
        out.push(Stmt::Set(
            n,
            Expr::Call {
                id: id1,
                recv: Some(Box::new(Expr::Local(cl))),
                name: "<size>".into(),
                args: Vec::new(),
                line: at,
            },
        ));
        let name = s
            .child_by_field_name("name")
            .map(|x| f.text_of(x).to_owned())
            .unwrap_or_default();
        let var = b.fresh(&name);
        let mut body = vec![
            Stmt::If(
                Expr::Bin(
                    BinOp::Lt,
                    Box::new(Expr::Local(i)),
                    Box::new(Expr::Local(n)),
                ),
                Vec::new(),
                vec![Stmt::Break],
            ),
            Stmt::Set(
                var,
                Expr::Call {
                    id: id2,
                    recv: Some(Box::new(Expr::Local(cl))),
                    name: "<at>".into(),
                    args: vec![Expr::Local(i)],
                    line: at,
                },
            ),
        ];
        let update = vec![Stmt::Set(
            i,
            Expr::Bin(BinOp::Add, Box::new(Expr::Local(i)), Box::new(Expr::Int(1))),
        )];
        b.loop_finally.push(b.finally.len());
        let inner = self.sub_block(b, s.child_by_field_name("body"));
        b.loop_finally.pop();
        body.extend(inner?);
        body.extend(update.iter().cloned());
        out.push(Stmt::Loop(body, update));
        Ok(())
    }

    /// A switch: each case group a branch (its value compared with the selector unknown).
    fn switch(
        &mut self,
        b: &mut Body<'a>,
        s: Node<'a>,
        out: &mut Vec<Stmt>,
    ) -> Result<Expr, SyntaxError> {
        let mut pre = Vec::new();
        let sel = match s.child_by_field_name("condition") {
            Some(c) => self.expr(b, c, &mut pre, None)?,
            None => Expr::Unknown(Vec::new()),
        };
        out.extend(pre);
        let Some(body) = s.child_by_field_name("body") else {
            return Ok(Expr::Unknown(vec![sel]));
        };
        let mut c = body.walk();
        let groups: Vec<Node> = body.named_children(&mut c).collect();
        // A `break` in a case leaves the switch: the cases sit in a loop that runs once.
        let mut cases = Vec::new();
        b.loop_finally.push(b.finally.len());
        for g in groups {
            b.scopes.push(FxHashMap::default());
            let mut stmts = Vec::new();
            let mut c2 = g.walk();
            let parts: Vec<Node> = g.named_children(&mut c2).collect();
            let mut r = Ok(());
            for p in parts {
                if p.kind() == "switch_label" {
                    continue;
                }
                if r.is_ok() {
                    r = if p.kind().ends_with("statement")
                        || p.kind() == "block"
                        || p.kind() == "local_variable_declaration"
                    {
                        self.stmt(b, p, &mut stmts)
                    } else {
                        self.expr_stmt(b, p, &mut stmts)
                    };
                }
            }
            b.scopes.pop();
            if let Err(e) = r {
                b.loop_finally.pop();
                return Err(e);
            }
            cases.push(stmts);
        }
        b.loop_finally.pop();
        let mut chain: Vec<Stmt> = Vec::new();
        for case in cases.into_iter().rev() {
            let cond = Expr::Unknown(vec![sel.clone()]);
            chain = vec![Stmt::If(cond, case, chain)];
        }
        chain.push(Stmt::Break);
        out.push(Stmt::Loop(chain, Vec::new()));
        Ok(Expr::Unknown(vec![sel]))
    }

    /// An expression evaluated for its effects.
    fn expr_stmt(
        &mut self,
        b: &mut Body<'a>,
        e: Node<'a>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), SyntaxError> {
        let f = self.file(b.file);
        match e.kind() {
            "assignment_expression" => {
                let (Some(left), Some(right)) = (
                    e.child_by_field_name("left"),
                    e.child_by_field_name("right"),
                ) else {
                    return Ok(());
                };
                let op = e
                    .child_by_field_name("operator")
                    .map(|o| f.text_of(o).to_owned())
                    .unwrap_or_else(|| "=".into());
                let hint = self.target_hint(b, left);
                let mut pre = Vec::new();
                let mut value = self.expr(b, right, &mut pre, hint.as_deref())?;
                if op != "=" {
                    let old = self.expr(b, left, &mut pre, None)?;
                    value = Expr::Bin(
                        bin_op(op.trim_end_matches('=')),
                        Box::new(old),
                        Box::new(value),
                    );
                }
                out.extend(pre);
                self.assign(b, left, value, out)?;
            }
            "update_expression" => {
                let text = f.text_of(e);
                let op = if text.contains("++") {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let Some(target) = e.named_child(0) else {
                    return Ok(());
                };
                let mut pre = Vec::new();
                let old = self.expr(b, target, &mut pre, None)?;
                out.extend(pre);
                let v = Expr::Bin(op, Box::new(old), Box::new(Expr::Int(1)));
                self.assign(b, target, v, out)?;
            }
            _ => {
                let mut pre = Vec::new();
                if let Some(s) = self.lock_call(b, e)? {
                    out.push(s);
                    return Ok(());
                }
                let v = self.expr(b, e, &mut pre, None)?;
                out.extend(pre);
                out.push(Stmt::Eval(v));
            }
        }
        Ok(())
    }

    /// `x.lock()` or `x.unlock()` when lock spans are regions.
    fn lock_call(&mut self, b: &mut Body<'a>, e: Node<'a>) -> Result<Option<Stmt>, SyntaxError> {
        if !self.options.lock_regions || e.kind() != "method_invocation" {
            return Ok(None);
        }
        let f = self.file(b.file);
        let name = e
            .child_by_field_name("name")
            .map(|n| f.text_of(n))
            .unwrap_or("");
        let no_args = e
            .child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() == 0);
        let Some(obj) = e.child_by_field_name("object") else {
            return Ok(None);
        };
        if !no_args {
            return Ok(None);
        }
        match name {
            "lock" | "lockInterruptibly" => {
                // The span ends at the first `recv.unlock()` after it in the file.
                let recv = f.text_of(obj);
                let after = &f.text[e.end_byte()..];
                let needle = format!("{recv}.unlock()");
                let end = match after.find(&needle) {
                    Some(i) => line(f, e) + after[..i].matches('\n').count() as u32,
                    None => line(f, e),
                };
                self.p.regions.push(RegionSrc {
                    file: b.file,
                    start: line(f, e),
                    end,
                    what: format!("lock span of `{recv}`"),
                });
                Ok(Some(Stmt::Lock((self.p.regions.len() - 1) as RegionSrcId)))
            }
            "unlock" => Ok(Some(Stmt::Unlock)),
            _ => Ok(None),
        }
    }

    fn target_hint(&self, b: &Body, left: Node) -> Option<String> {
        let f = self.file(b.file);
        let class = &self.p.classes[b.class as usize].name;
        match left.kind() {
            "identifier" => {
                let n = f.text_of(left);
                if b.lookup(n).is_some() {
                    Some(format!("{class}.{}.{n}", b.method_name))
                } else {
                    Some(format!("{class}.{n}"))
                }
            }
            "field_access" => left
                .child_by_field_name("field")
                .map(|x| format!("{class}.{}", f.text_of(x))),
            _ => None,
        }
    }

    fn assign(
        &mut self,
        b: &mut Body<'a>,
        left: Node<'a>,
        value: Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<(), SyntaxError> {
        let f = self.file(b.file);
        let mut pre = Vec::new();
        match left.kind() {
            "identifier" => {
                let n = f.text_of(left);
                if let Some(id) = b.lookup(n) {
                    out.push(Stmt::Set(id, value));
                } else {
                    match self.field_of_this(b, n) {
                        Some(Expr::Static(c, fld)) => out.push(Stmt::StoreStatic(c, fld, value)),
                        Some(Expr::Field(obj, fld)) => out.push(Stmt::Store(*obj, fld, value)),
                        _ => {
                            self.note(
                                b.file,
                                left,
                                &format!("assignment of unknown `{n}` ignored"),
                            );
                            out.push(Stmt::Eval(value));
                        }
                    }
                }
            }
            "field_access" => {
                let (Some(obj), Some(fld)) = (
                    left.child_by_field_name("object"),
                    left.child_by_field_name("field"),
                ) else {
                    return Ok(());
                };
                let fname = f.text_of(fld).to_owned();
                if let Some(c) = self.class_ref(b, obj) {
                    out.push(Stmt::StoreStatic(c, fname, value));
                    return Ok(());
                }
                let o = self.expr(b, obj, &mut pre, None)?;
                out.extend(pre);
                out.push(Stmt::Store(o, fname, value));
            }
            "array_access" => {
                let (Some(arr), Some(idx)) = (
                    left.child_by_field_name("array"),
                    left.child_by_field_name("index"),
                ) else {
                    return Ok(());
                };
                let a = self.expr(b, arr, &mut pre, None)?;
                let i = self.expr(b, idx, &mut pre, None)?;
                out.extend(pre);
                out.push(Stmt::StoreElem(a, i, value));
            }
            "parenthesized_expression" => {
                if let Some(inner) = left.named_child(0) {
                    self.assign(b, inner, value, out)?;
                }
            }
            _ => {
                self.note(b.file, left, "assignment target not followed");
                out.push(Stmt::Eval(value));
            }
        }
        Ok(())
    }

    /// `name` as a field of the current class (instance or static).
    fn field_of_this(&self, b: &Body, name: &str) -> Option<Expr> {
        let mut at = Some(b.class);
        let mut hops = 0;
        while let Some(c) = at {
            let cl = &self.p.classes[c as usize];
            if cl.static_fields.iter().any(|x| x == name) {
                return Some(Expr::Static(c, name.to_owned()));
            }
            if cl.fields.iter().any(|x| x == name) {
                if b.is_static {
                    return None;
                }
                return Some(Expr::Field(Box::new(Expr::Local(0)), name.to_owned()));
            }
            hops += 1;
            if hops > self.p.classes.len() {
                return None;
            }
            at = cl
                .superclass
                .as_deref()
                .and_then(|s| self.p.class_named(base_type(s)));
        }
        // A static field of an enclosing class (`Outer.Inner` sees `Outer`'s statics).
        let mut outer = self.p.classes[b.class as usize].name.clone();
        while let Some((o, _)) = outer.rsplit_once('.') {
            outer = o.to_owned();
            if let Some(i) = self.p.classes.iter().position(|c| c.name == outer) {
                if self.p.classes[i].static_fields.iter().any(|x| x == name) {
                    return Some(Expr::Static(i as ClassId, name.to_owned()));
                }
            }
        }
        None
    }

    /// A class of the program named by an expression used as a receiver (`Config.x`).
    fn class_ref(&self, b: &Body, n: Node) -> Option<ClassId> {
        let f = self.file(b.file);
        if !matches!(
            n.kind(),
            "identifier" | "scoped_identifier" | "field_access"
        ) {
            return None;
        }
        let text = f.text_of(n);
        if n.kind() == "identifier"
            && (b.lookup(text).is_some() || self.field_of_this(b, text).is_some())
        {
            return None;
        }
        let first = text.chars().next()?;
        if !first.is_uppercase() {
            return None;
        }
        self.p.class_named(base_type(text))
    }

    fn args(
        &mut self,
        b: &mut Body<'a>,
        args: Node<'a>,
        pre: &mut Vec<Stmt>,
    ) -> Result<Vec<Expr>, SyntaxError> {
        let mut c = args.walk();
        let nodes: Vec<Node> = args.named_children(&mut c).collect();
        let mut out = Vec::new();
        for a in nodes {
            if matches!(a.kind(), "line_comment" | "block_comment") {
                continue;
            }
            out.push(self.expr(b, a, pre, None)?);
        }
        Ok(out)
    }

    fn site(&mut self, kind: SiteKind, name: String, file: u32, line: u32) -> SiteId {
        let state = matches!(&kind, SiteKind::Collection(ty) if self.models.is_state(ty));
        self.p.sites.push(Site {
            kind,
            name,
            file,
            line,
            state,
            elem: None,
        });
        (self.p.sites.len() - 1) as SiteId
    }

    /// What stands for the elements of an array of `depth` dimensions of `ty` that the
    /// program stores none into: the inner array (named `name[]`, so its elements are
    /// `name[][]`), or for the last dimension one object of the element class (its
    /// constructor not run: it stands for elements never made). `None` for elements of a
    /// primitive or unknown type, which are values, not objects.
    fn default_elements(
        &mut self,
        ty: &str,
        depth: usize,
        name: &str,
        file: u32,
        line: u32,
    ) -> Option<SiteId> {
        if depth >= 2 {
            let inner = format!("{name}[]");
            let s = self.site(SiteKind::Array, inner.clone(), file, line);
            self.p.sites[s as usize].elem =
                self.default_elements(ty, depth - 1, &inner, file, line);
            return Some(s);
        }
        let c = self.p.class_named(ty)?;
        Some(self.site(SiteKind::Object(c), name.to_owned(), file, line))
    }

    fn expr_inner(
        &mut self,
        b: &mut Body<'a>,
        e: Node<'a>,
        pre: &mut Vec<Stmt>,
        hint: Option<&str>,
    ) -> Result<Expr, SyntaxError> {
        let f = self.file(b.file);
        let at = line(f, e);
        let default_hint = format!(
            "{}.{}:{at}",
            self.p.classes[b.class as usize].name, b.method_name
        );
        let default_hint = move || default_hint;
        Ok(match e.kind() {
            "parenthesized_expression" => match e.named_child(0) {
                Some(x) => self.expr(b, x, pre, hint)?,
                None => Expr::Unknown(Vec::new()),
            },
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => {
                let t = f.text_of(e).trim_end_matches(['l', 'L']).replace('_', "");
                match t.parse::<i64>() {
                    Ok(v) => Expr::Int(v),
                    Err(_) => Expr::Unknown(Vec::new()),
                }
            }
            "true" => Expr::Int(1),
            "false" => Expr::Int(0),
            "null_literal" => Expr::Null,
            "identifier" => {
                let n = f.text_of(e);
                if let Some(id) = b.lookup(n) {
                    Expr::Local(id)
                } else if let Some(x) = self.field_of_this(b, n) {
                    x
                } else {
                    Expr::Unknown(Vec::new())
                }
            }
            "this" => {
                if b.is_static {
                    Expr::Unknown(Vec::new())
                } else {
                    Expr::Local(0)
                }
            }
            "field_access" => {
                let (Some(obj), Some(fld)) = (
                    e.child_by_field_name("object"),
                    e.child_by_field_name("field"),
                ) else {
                    return Ok(Expr::Unknown(Vec::new()));
                };
                let name = f.text_of(fld).to_owned();
                if let Some(c) = self.class_ref(b, obj) {
                    return Ok(Expr::Static(c, name));
                }
                let o = self.expr(b, obj, pre, None)?;
                if name == "length" {
                    Expr::Unknown(vec![o])
                } else {
                    Expr::Field(Box::new(o), name)
                }
            }
            "array_access" => {
                let (Some(arr), Some(idx)) = (
                    e.child_by_field_name("array"),
                    e.child_by_field_name("index"),
                ) else {
                    return Ok(Expr::Unknown(Vec::new()));
                };
                let a = self.expr(b, arr, pre, None)?;
                let i = self.expr(b, idx, pre, None)?;
                Expr::Elem(Box::new(a), Box::new(i))
            }
            "binary_expression" => {
                let op = e
                    .child_by_field_name("operator")
                    .map(|o| f.text_of(o).to_owned())
                    .unwrap_or_default();
                let l = match e.child_by_field_name("left") {
                    Some(x) => self.expr(b, x, pre, None)?,
                    None => Expr::Unknown(Vec::new()),
                };
                let r = match e.child_by_field_name("right") {
                    Some(x) => self.expr(b, x, pre, None)?,
                    None => Expr::Unknown(Vec::new()),
                };
                Expr::Bin(bin_op(&op), Box::new(l), Box::new(r))
            }
            "unary_expression" => {
                let op = e
                    .child_by_field_name("operator")
                    .map(|o| f.text_of(o).to_owned())
                    .unwrap_or_default();
                let x = match e.child_by_field_name("operand") {
                    Some(x) => self.expr(b, x, pre, None)?,
                    None => Expr::Unknown(Vec::new()),
                };
                match op.as_str() {
                    "!" => Expr::Not(Box::new(x)),
                    "-" => Expr::Neg(Box::new(x)),
                    "+" => x,
                    _ => Expr::Unknown(vec![x]),
                }
            }
            "update_expression" | "assignment_expression" => {
                // As a value: its effect first, then the variable's value.
                let mut stmts = Vec::new();
                self.expr_stmt(b, e, &mut stmts)?;
                pre.extend(stmts);
                let target = e.child_by_field_name("left").or_else(|| e.named_child(0));
                match target {
                    Some(t) => self.expr(b, t, pre, None)?,
                    None => Expr::Unknown(Vec::new()),
                }
            }
            "cast_expression" => match e.child_by_field_name("value") {
                Some(x) => self.expr(b, x, pre, hint)?,
                None => Expr::Unknown(Vec::new()),
            },
            "ternary_expression" => {
                let mut parts = Vec::new();
                for k in ["condition", "consequence", "alternative"] {
                    parts.push(match e.child_by_field_name(k) {
                        Some(x) => self.expr(b, x, pre, hint)?,
                        None => Expr::Unknown(Vec::new()),
                    });
                }
                let c = parts.remove(0);
                let t = parts.remove(0);
                let o = parts.remove(0);
                Expr::Cond(Box::new(c), Box::new(t), Box::new(o))
            }
            "instanceof_expression" => {
                let x = match e.named_child(0) {
                    Some(x) => self.expr(b, x, pre, None)?,
                    None => Expr::Unknown(Vec::new()),
                };
                Expr::Unknown(vec![x])
            }
            "object_creation_expression" => {
                let ty = e
                    .child_by_field_name("type")
                    .map(|t| base_type(f.text_of(t)).to_owned())
                    .unwrap_or_default();
                let args = match e.child_by_field_name("arguments") {
                    Some(a) => self.args(b, a, pre)?,
                    None => Vec::new(),
                };
                let has_body = {
                    let mut c = e.walk();
                    let x = e.named_children(&mut c).any(|c| c.kind() == "class_body");
                    x
                };
                let name = hint.map(str::to_owned).unwrap_or_else(default_hint);
                if has_body {
                    self.note(
                        b.file,
                        e,
                        &format!("anonymous class of `{ty}` not followed"),
                    );
                    return Ok(Expr::Unknown(args));
                }
                let kind = if let Some(c) = self.p.class_named(&ty) {
                    SiteKind::Object(c)
                } else if ty == "Thread" {
                    SiteKind::Thread
                } else if self.models.is_model(&ty) {
                    SiteKind::Collection(ty.clone())
                } else if matches!(
                    ty.as_str(),
                    "ReentrantLock"
                        | "ReentrantReadWriteLock"
                        | "Object"
                        | "String"
                        | "Integer"
                        | "Random"
                ) {
                    return Ok(Expr::Unknown(args));
                } else {
                    self.note(
                        b.file,
                        e,
                        &format!("class `{ty}` unknown: its objects are opaque"),
                    );
                    return Ok(Expr::Unknown(args));
                };
                let s = self.site(kind, name, b.file, at);
                Expr::New(s, args)
            }
            "array_creation_expression" => {
                let mut dims = Vec::new();
                let mut c = e.walk();
                let parts: Vec<Node> = e.named_children(&mut c).collect();
                // Dimensions: sized ones (`[n]`) and empty ones (`[]`, in `dimensions`).
                let mut depth = 0usize;
                let mut initialised = false;
                for p in parts {
                    if p.kind() == "dimensions_expr" {
                        depth += 1;
                        if let Some(x) = p.named_child(0) {
                            dims.push(self.expr(b, x, pre, None)?);
                        }
                    } else if p.kind() == "dimensions" {
                        depth += f.text_of(p).matches('[').count();
                    } else if p.kind() == "array_initializer" {
                        initialised = true;
                        let mut c2 = p.walk();
                        let items: Vec<Node> = p.named_children(&mut c2).collect();
                        for i in items {
                            dims.push(self.expr(b, i, pre, None)?);
                        }
                    }
                }
                let name = hint.map(str::to_owned).unwrap_or_else(default_hint);
                let s = self.site(SiteKind::Array, name.clone(), b.file, at);
                if !initialised {
                    let ty = e
                        .child_by_field_name("type")
                        .map(|t| base_type(f.text_of(t)).to_owned())
                        .unwrap_or_default();
                    self.p.sites[s as usize].elem =
                        self.default_elements(&ty, depth, &name, b.file, at);
                }
                Expr::NewArray(s, dims)
            }
            "array_initializer" => {
                let mut c = e.walk();
                let items: Vec<Node> = e.named_children(&mut c).collect();
                let mut vals = Vec::new();
                for i in items {
                    vals.push(self.expr(b, i, pre, None)?);
                }
                let name = hint.map(str::to_owned).unwrap_or_else(default_hint);
                let s = self.site(SiteKind::Array, name, b.file, at);
                Expr::NewArray(s, vals)
            }
            "method_invocation" => self.invocation(b, e, pre, hint)?,
            "lambda_expression" => self.lambda(b, e)?,
            "string_literal"
            | "character_literal"
            | "decimal_floating_point_literal"
            | "hex_floating_point_literal"
            | "class_literal"
            | "text_block" => Expr::Unknown(Vec::new()),
            "switch_expression" => self.switch(b, e, pre)?,
            _ => {
                self.note(
                    b.file,
                    e,
                    &format!("{} not followed", e.kind().replace('_', " ")),
                );
                Expr::Unknown(Vec::new())
            }
        })
    }

    fn invocation(
        &mut self,
        b: &mut Body<'a>,
        e: Node<'a>,
        pre: &mut Vec<Stmt>,
        hint: Option<&str>,
    ) -> Result<Expr, SyntaxError> {
        let f = self.file(b.file);
        let at = line(f, e);
        let name = e
            .child_by_field_name("name")
            .map(|n| f.text_of(n).to_owned())
            .unwrap_or_default();
        let obj = e.child_by_field_name("object");
        if let Some(o) = obj {
            let text = f.text_of(o);
            if (text == "Executors" || text.ends_with(".Executors")) && name.starts_with("new") {
                let n = hint
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("executor:{at}"));
                let serial = match name.as_str() {
                    "newSingleThreadExecutor" | "newSingleThreadScheduledExecutor" => true,
                    "newFixedThreadPool" => e
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                        .is_some_and(|n| f.text_of(n) == "1"),
                    _ => false,
                };
                let s = self.site(SiteKind::Executor { serial }, n, b.file, at);
                return Ok(Expr::New(s, Vec::new()));
            }
            if o.kind() == "super" {
                let args = match e.child_by_field_name("arguments") {
                    Some(a) => self.args(b, a, pre)?,
                    None => Vec::new(),
                };
                self.note(b.file, e, "call through `super` not followed");
                return Ok(Expr::Unknown(args));
            }
            if let Some(c) = self.class_ref(b, o) {
                let args = match e.child_by_field_name("arguments") {
                    Some(a) => self.args(b, a, pre)?,
                    None => Vec::new(),
                };
                let id = self.call_id();
                return Ok(Expr::StaticCall {
                    id,
                    class: c,
                    name,
                    args,
                    line: at,
                });
            }
        }
        let recv = match obj {
            Some(o) => {
                let r = self.expr(b, o, pre, None)?;
                // `Thread.sleep`, `System.out.println`, `Math.max`: library code.
                if matches!(r, Expr::Unknown(ref v) if v.is_empty())
                    && f.text_of(o).chars().next().is_some_and(char::is_uppercase)
                {
                    let args = match e.child_by_field_name("arguments") {
                        Some(a) => self.args(b, a, pre)?,
                        None => Vec::new(),
                    };
                    return Ok(Expr::Unknown(args));
                }
                Some(Box::new(r))
            }
            None => None,
        };
        let args = match e.child_by_field_name("arguments") {
            Some(a) => self.args(b, a, pre)?,
            None => Vec::new(),
        };
        let id = self.call_id();
        self.call_nodes.insert((b.file, e.id()), id);
        if recv.is_none() && b.is_static {
            return Ok(Expr::StaticCall {
                id,
                class: b.class,
                name,
                args,
                line: at,
            });
        }
        Ok(Expr::Call {
            id,
            recv,
            name,
            args,
            line: at,
        })
    }

    /// A lambda becomes a method of the enclosing class whose first parameters are what it
    /// captures (`this`, then the enclosing locals it names).
    fn lambda(&mut self, b: &mut Body<'a>, e: Node<'a>) -> Result<Expr, SyntaxError> {
        let f = self.file(b.file);
        let mut own = Vec::new();
        if let Some(ps) = e.child_by_field_name("parameters") {
            if ps.kind() == "identifier" {
                own.push(f.text_of(ps).to_owned());
            } else {
                let mut c = ps.walk();
                for p in ps.named_children(&mut c) {
                    let n = p.child_by_field_name("name").unwrap_or(p);
                    own.push(f.text_of(n).to_owned());
                }
            }
        }
        // The enclosing locals named in the body, in order of first mention.
        let mut captured: Vec<(String, LocalId)> = Vec::new();
        let mut stack = vec![e.child_by_field_name("body")];
        while let Some(Some(n)) = stack.pop() {
            if n.kind() == "identifier" {
                let t = f.text_of(n);
                if !own.iter().any(|o| o == t) && !captured.iter().any(|c| c.0 == t) {
                    if let Some(id) = b.lookup(t) {
                        captured.push((t.to_owned(), id));
                    }
                }
            }
            let mut c = n.walk();
            let kids: Vec<Node> = n.children(&mut c).collect();
            for k in kids.into_iter().rev() {
                stack.push(Some(k));
            }
        }
        let mut lb = self.new_body(
            b.class,
            b.file,
            &format!("{}$lambda", b.method_name),
            b.is_static,
        );
        let mut outer: Vec<LocalId> = Vec::new();
        if !b.is_static {
            outer.push(0);
        }
        for (n, id) in &captured {
            lb.fresh(n);
            outer.push(*id);
        }
        for n in &own {
            lb.fresh(n);
        }
        let params = lb.locals;
        let body = match e.child_by_field_name("body") {
            Some(x) if x.kind() == "block" => self.block(&mut lb, x)?,
            Some(x) => {
                let mut pre = Vec::new();
                let v = self.expr(&mut lb, x, &mut pre, None)?;
                pre.push(Stmt::Return(Some(v)));
                pre
            }
            None => Vec::new(),
        };
        let id = self.p.methods.len() as MethodId;
        self.p.methods.push(Method {
            class: Some(b.class),
            name: format!("{}$lambda", b.method_name),
            params,
            param_types: own.iter().map(|_| String::new()).collect(),
            locals: lb.locals,
            body,
            region: None,
            is_public: false,
            is_static: b.is_static,
            is_constructor: false,
            file: b.file,
            line: line(f, e),
        });
        let s = self.site(
            SiteKind::Lambda(id),
            format!("lambda:{}", line(f, e)),
            b.file,
            line(f, e),
        );
        Ok(Expr::Lambda(s, outer))
    }
}

fn bin_op(op: &str) -> BinOp {
    match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "&&" => BinOp::And,
        "||" => BinOp::Or,
        _ => BinOp::Other,
    }
}

/// A loop that starts one thread per slot of a local array or list and a later loop that
/// joins every slot, found among the statements of one block.
#[derive(Debug)]
struct JoinedLoop {
    /// The index, among the block's statements, of the loop that joins.
    join_loop: usize,
    /// The `start()` invocations of the start loop (tree-sitter node ids).
    starts: Vec<usize>,
}

/// The join loops of a block's statements (`stmts`) after which every thread its start loop
/// started is surely joined. The shape, each part of which the argument needs:
///
/// ```java
/// Thread[] ts = new Thread[n];              // or List<Thread> ts = new ArrayList<>();
/// for (int i = 0; i < n; i++) {             // i only counted up by the update
///     ts[i] = new Worker(..);               // or T t = ..; ts[i] = t; / ts.add(t);
///     ts[i].start();                        // or t.start();
/// }
/// for (Thread t : ts) t.join();             // or for (int j = 0; j < ts.length; j++) ts[j].join();
/// ```
///
/// - The container is a local of this block, and every mention of it is one of the above
///   (or `ts.length`/`ts.size()`): it never escapes, so no other code (another method, another
///   thread, a lambda) reads or changes it, and only the start loop stores into it.
/// - The start loop has no `break`, `continue`, `return` or `throw`, and its slot store and its
///   `start()` are statements of its body itself (not under a branch): every iteration that
///   starts a thread stores it, and an array's index only grows, so each started thread has a
///   slot of its own that nothing overwrites (a list's `add` overwrites nothing).
/// - The join loop visits every slot (an enhanced `for` over the container, or a counter from
///   0 to its length, counted up only by the update), joins the slot's thread in a statement of
///   its body (or of a `try` that is), and has no `break` or `continue`.
///
/// So once the join loop ends normally, every thread the start loop started has been joined
/// (an exception leaves the block: what follows the loop does not run). A caught
/// `InterruptedException` is taken as not happening, as for a single `join()`.
fn joined_loops(f: &JavaFile, stmts: &[Node]) -> Vec<JoinedLoop> {
    let mut out = Vec::new();
    for (d, decl) in stmts.iter().enumerate() {
        let Some(container) = fresh_container(f, *decl) else {
            continue;
        };
        let name = f.text_of(container.name);
        let Some((s, starts)) = stmts
            .iter()
            .enumerate()
            .skip(d + 1)
            .find_map(|(i, l)| start_loop(f, *l, name, container.array).map(|st| (i, st)))
        else {
            continue;
        };
        let Some(j) = stmts
            .iter()
            .enumerate()
            .skip(s + 1)
            .find_map(|(i, l)| join_loop(f, *l, name, container.array).then_some(i))
        else {
            continue;
        };
        // Every mention of the container is a permitted one.
        let mut allowed = 0;
        let mut mentions = 0;
        for (i, st) in stmts.iter().enumerate().skip(d) {
            for id in identifiers(*st)
                .into_iter()
                .filter(|n| f.text_of(*n) == name)
            {
                mentions += 1;
                if (i == d && id == container.name)
                    || mention_allowed(f, id, container.array, i == s, i == j)
                {
                    allowed += 1;
                }
            }
        }
        if mentions == allowed {
            out.push(JoinedLoop {
                join_loop: j,
                starts,
            });
        }
    }
    out
}

struct Container<'t> {
    name: Node<'t>,
    array: bool,
}

/// `T[] x = new T[..];` or `List<T> x = new ArrayList<>();` (one declarator).
fn fresh_container<'t>(f: &JavaFile, decl: Node<'t>) -> Option<Container<'t>> {
    if decl.kind() != "local_variable_declaration" {
        return None;
    }
    let mut c = decl.walk();
    let ds: Vec<Node> = decl.children_by_field_name("declarator", &mut c).collect();
    let [d] = ds.as_slice() else { return None };
    let name = d.child_by_field_name("name")?;
    let value = d.child_by_field_name("value")?;
    match value.kind() {
        "array_creation_expression" => Some(Container { name, array: true }),
        "object_creation_expression" => {
            let ty = value.child_by_field_name("type")?;
            let ty = base_type(f.text_of(ty));
            let ty = ty.split('<').next().unwrap_or(ty);
            matches!(
                ty,
                "ArrayList" | "LinkedList" | "Vector" | "CopyOnWriteArrayList"
            )
            .then_some(Container { name, array: false })
        }
        _ => None,
    }
}

/// Every identifier node under `n`.
fn identifiers(n: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "identifier" {
            out.push(x);
        }
        let mut c = x.walk();
        stack.extend(x.children(&mut c));
    }
    out
}

/// Whether any node under `n` is of one of `kinds`.
fn contains_kind(n: Node, kinds: &[&str]) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if kinds.contains(&x.kind()) {
            return true;
        }
        let mut c = x.walk();
        stack.extend(x.children(&mut c));
    }
    false
}

/// Whether the local `var` is assigned or counted anywhere under `n`.
fn assigned(f: &JavaFile, n: Node, var: &str) -> bool {
    identifiers(n).into_iter().any(|id| {
        f.text_of(id) == var
            && id.parent().is_some_and(|p| {
                (p.kind() == "assignment_expression" && p.child_by_field_name("left") == Some(id))
                    || p.kind() == "update_expression"
            })
    })
}

/// The statements of a loop body (a block's, or the one statement).
fn body_statements(body: Node) -> Vec<Node> {
    if body.kind() == "block" {
        let mut c = body.walk();
        body.named_children(&mut c).collect()
    } else {
        vec![body]
    }
}

/// A counted `for` (`for (int i = ..; ..; i++)`): its counter's name, when the update is the
/// only thing that changes it.
fn counter<'t>(f: &'t JavaFile, l: Node) -> Option<&'t str> {
    if l.kind() != "for_statement" {
        return None;
    }
    let init = l.child_by_field_name("init")?;
    if init.kind() != "local_variable_declaration" {
        return None;
    }
    let var = f.text_of(
        init.child_by_field_name("declarator")?
            .child_by_field_name("name")?,
    );
    let mut c = l.walk();
    let updates: Vec<Node> = l.children_by_field_name("update", &mut c).collect();
    let [u] = updates.as_slice() else { return None };
    let text: String = f.text_of(*u).split_whitespace().collect();
    let counts_up = [format!("{var}++"), format!("++{var}"), format!("{var}+=1")];
    if !counts_up.contains(&text) || assigned(f, l.child_by_field_name("body")?, var) {
        return None;
    }
    Some(var)
}

/// The expression of an expression statement.
fn expression_of(s: Node) -> Option<Node> {
    (s.kind() == "expression_statement")
        .then(|| s.named_child(0))
        .flatten()
}

/// `recv.name()` with no arguments: its receiver.
fn no_arg_call<'t>(f: &JavaFile, e: Node<'t>, name: &str) -> Option<Node<'t>> {
    if e.kind() != "method_invocation"
        || f.text_of(e.child_by_field_name("name")?) != name
        || e.child_by_field_name("arguments")?.named_child_count() != 0
    {
        return None;
    }
    e.child_by_field_name("object")
}

/// `x[i]` with `x` and `i` the names given.
fn is_slot(f: &JavaFile, e: Node, x: &str, i: &str) -> bool {
    e.kind() == "array_access"
        && e.child_by_field_name("array")
            .is_some_and(|a| f.text_of(a) == x)
        && e.child_by_field_name("index")
            .is_some_and(|a| f.text_of(a) == i)
}

/// The start loop's `start()` invocations, if `l` is a start loop filling `x`.
fn start_loop(f: &JavaFile, l: Node, x: &str, array: bool) -> Option<Vec<usize>> {
    if l.kind() != "for_statement" {
        return None;
    }
    let body = l.child_by_field_name("body")?;
    if contains_kind(
        body,
        &[
            "break_statement",
            "continue_statement",
            "return_statement",
            "throw_statement",
            "yield_statement",
        ],
    ) {
        return None;
    }
    let i = if array { Some(counter(f, l)?) } else { None };
    let stmts = body_statements(body);
    // What each iteration stores into its own slot: `x[i] = e` or `x.add(e)`.
    let mut stored: Vec<Node> = Vec::new();
    for s in &stmts {
        let Some(e) = expression_of(*s) else { continue };
        match (e.kind(), i) {
            ("assignment_expression", Some(i)) => {
                let left = e.child_by_field_name("left")?;
                if is_slot(f, left, x, i) {
                    stored.push(e.child_by_field_name("right")?);
                }
            }
            ("method_invocation", None) => {
                let args = e.child_by_field_name("arguments")?;
                if e.child_by_field_name("object")
                    .is_some_and(|o| f.text_of(o) == x)
                    && e.child_by_field_name("name")
                        .is_some_and(|n| f.text_of(n) == "add")
                    && args.named_child_count() == 1
                {
                    stored.push(args.named_child(0)?);
                }
            }
            _ => {}
        }
    }
    let mut starts = Vec::new();
    for s in &stmts {
        let Some(e) = expression_of(*s) else { continue };
        let Some(recv) = no_arg_call(f, e, "start") else {
            continue;
        };
        let in_slot = match i {
            Some(i) => is_slot(f, recv, x, i),
            None => false,
        };
        // `t.start()` on a local of the body, stored once into a slot and never reassigned.
        let stored_local = recv.kind() == "identifier"
            && stored.iter().any(|v| f.text_of(*v) == f.text_of(recv))
            && !assigned(f, body, f.text_of(recv))
            && stmts.iter().any(|d| declares(f, *d, f.text_of(recv)));
        if in_slot || stored_local {
            starts.push(e.id());
        }
    }
    (!starts.is_empty()).then_some(starts)
}

/// Whether `d` declares the local `var` with a value.
fn declares(f: &JavaFile, d: Node, var: &str) -> bool {
    if d.kind() != "local_variable_declaration" {
        return false;
    }
    let mut c = d.walk();
    let found = d.children_by_field_name("declarator", &mut c).any(|v| {
        v.child_by_field_name("name")
            .is_some_and(|n| f.text_of(n) == var)
            && v.child_by_field_name("value").is_some()
    });
    found
}

/// Whether `l` joins every slot of `x`.
fn join_loop(f: &JavaFile, l: Node, x: &str, array: bool) -> bool {
    let Some(body) = l.child_by_field_name("body") else {
        return false;
    };
    if contains_kind(body, &["break_statement", "continue_statement"]) {
        return false;
    }
    // The join statement: one of the body's own, or of a `try` block that is.
    let joins = |is_elem: &dyn Fn(Node) -> bool| {
        body_statements(body).into_iter().any(|s| {
            let stmts = if s.kind() == "try_statement" {
                s.child_by_field_name("body")
                    .map(body_statements)
                    .unwrap_or_default()
            } else {
                vec![s]
            };
            stmts.into_iter().any(|s| {
                expression_of(s)
                    .and_then(|e| no_arg_call(f, e, "join"))
                    .is_some_and(is_elem)
            })
        })
    };
    match l.kind() {
        "enhanced_for_statement" => {
            let (Some(v), Some(n)) = (
                l.child_by_field_name("value"),
                l.child_by_field_name("name"),
            ) else {
                return false;
            };
            let var = f.text_of(n);
            f.text_of(v) == x
                && !assigned(f, body, var)
                && joins(&|r: Node| r.kind() == "identifier" && f.text_of(r) == var)
        }
        "for_statement" if array => {
            let Some(j) = counter(f, l) else { return false };
            let from_zero = l
                .child_by_field_name("init")
                .and_then(|i| i.child_by_field_name("declarator"))
                .and_then(|d| d.child_by_field_name("value"))
                .is_some_and(|v| f.text_of(v) == "0");
            let to_length = l.child_by_field_name("condition").is_some_and(|c| {
                let t: String = f.text_of(c).split_whitespace().collect();
                t == format!("{j}<{x}.length")
            });
            from_zero && to_length && joins(&|r: Node| is_slot(f, r, x, j))
        }
        _ => false,
    }
}

/// Whether a mention `id` of the container is one `joined_loops` permits: `x.length`,
/// `x.size()`, and inside the start loop (`in_start`) or the join loop (`in_join`) the
/// slot stores, starts, joins and the iteration the shapes have.
fn mention_allowed(f: &JavaFile, id: Node, array: bool, in_start: bool, in_join: bool) -> bool {
    let Some(p) = id.parent() else { return false };
    let is = |n: Option<Node>| n == Some(id);
    match p.kind() {
        "field_access" => {
            array
                && is(p.child_by_field_name("object"))
                && p.child_by_field_name("field")
                    .is_some_and(|n| f.text_of(n) == "length")
        }
        "method_invocation" if is(p.child_by_field_name("object")) => {
            let name = p.child_by_field_name("name").map_or("", |n| f.text_of(n));
            !array && (name == "size" || (in_start && name == "add"))
        }
        "array_access" if array && is(p.child_by_field_name("array")) => {
            let Some(g) = p.parent() else { return false };
            match g.kind() {
                "assignment_expression" => in_start && g.child_by_field_name("left") == Some(p),
                "method_invocation" => {
                    g.child_by_field_name("object") == Some(p)
                        && g.child_by_field_name("name").is_some_and(|n| {
                            (in_start && f.text_of(n) == "start")
                                || (in_join && f.text_of(n) == "join")
                        })
                }
                _ => false,
            }
        }
        "enhanced_for_statement" => in_join && is(p.child_by_field_name("value")),
        _ => false,
    }
}
