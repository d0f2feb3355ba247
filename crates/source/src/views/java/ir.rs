//! The lowered form of a Java program for views: classes, methods with locals numbered per
//! method, allocation sites, and the syntactic atomic regions, with statements reduced to the
//! few kinds the views need (local and heap assignments, branches, one loop form, `break`,
//! `continue`, `return`, atomic blocks, lock and unlock). Both the static analysis
//! (`analysis.rs`) and the interpreter that records a run (`interp.rs`) read this form, so what
//! one sees the other sees.

/// A method's local variable; in an instance method local 0 is `this`.
pub type LocalId = u32;
pub type SiteId = u32;
pub type MethodId = u32;
pub type ClassId = u32;
pub type RegionSrcId = u32;
/// A call, allocation or start site: what tells contexts apart.
pub type CallId = u32;

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub files: Vec<SourceFile>,
    pub classes: Vec<Class>,
    pub methods: Vec<Method>,
    pub sites: Vec<Site>,
    pub regions: Vec<RegionSrc>,
    /// `public static void main(String[])`, the first found.
    pub main: Option<MethodId>,
    /// Constructs left out or approximated, with where they are (`file:line: what`).
    pub notes: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub lines: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Class {
    pub name: String,
    pub superclass: Option<String>,
    /// Extends `Thread` (directly or through classes of the program).
    pub is_thread: bool,
    pub is_runnable: bool,
    pub fields: Vec<String>,
    pub static_fields: Vec<String>,
    /// The synthetic method that runs the field initialisers of an instance.
    pub init: Option<MethodId>,
    /// The synthetic method that runs the static initialisers.
    pub clinit: Option<MethodId>,
}

/// What an allocation site creates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SiteKind {
    Object(ClassId),
    Array,
    /// A JDK type of the models table (its name).
    Collection(String),
    /// A `java.lang.Thread` made with `new Thread(target)`.
    Thread,
    /// An `ExecutorService`; `serial` when it runs one task at a time, in the order they
    /// were submitted (`Executors.newSingleThreadExecutor()`, `newFixedThreadPool(1)`: the
    /// JDK documents that no two of its tasks are active at once).
    Executor {
        serial: bool,
    },
    /// A lambda: calling it runs the method, whose first parameters are the captured locals.
    Lambda(MethodId),
    /// The object a library-mode client calls the methods of.
    Library(ClassId),
}

#[derive(Clone, Debug)]
pub struct Site {
    pub kind: SiteKind,
    /// For arrays and collections, what their element variable is named after
    /// (`Buffer.items`, `Main.main:12`).
    pub name: String,
    pub file: u32,
    pub line: u32,
    /// A JDK object whose variable is its state (`state` in the models table).
    pub state: bool,
    /// For an array made with its sizes (`new Cell[n]`, `new int[w][w]`): what its elements
    /// are while the program stores none (an object of the element class, or the inner
    /// array), so that `table[i].value` reaches `Cell.value` as MoTH's class-and-field
    /// variables do.
    pub elem: Option<SiteId>,
}

impl Site {
    /// The name of the one variable of an array or JDK object: `Buffer.items[]` for elements
    /// or contents, `Connection.socket.<state>` for the state of a socket or stream.
    pub fn contents_var(&self) -> String {
        if self.state {
            format!("{}.<state>", self.name)
        } else {
            format!("{}[]", self.name)
        }
    }
}

#[derive(Clone, Debug)]
pub struct Method {
    pub class: Option<ClassId>,
    pub name: String,
    /// Parameters, `this` first for instance methods.
    pub params: u32,
    /// The declared types of the parameters (without `this`), as written.
    pub param_types: Vec<String>,
    pub locals: u32,
    pub body: Vec<Stmt>,
    /// A synchronized or `@Atomic` method's region.
    pub region: Option<RegionSrcId>,
    pub is_public: bool,
    pub is_static: bool,
    pub is_constructor: bool,
    pub file: u32,
    pub line: u32,
}

/// A syntactic atomic region: a synchronized or `@Atomic` method or block, or a lock span.
#[derive(Clone, Debug)]
pub struct RegionSrc {
    pub file: u32,
    pub start: u32,
    pub end: u32,
    /// `synchronized method Account.deposit`, `synchronized block`, `lock span`.
    pub what: String,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Set(LocalId, Expr),
    Store(Expr, String, Expr),
    StoreStatic(ClassId, String, Expr),
    StoreElem(Expr, Expr, Expr),
    Eval(Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// Runs its body until a `break` (a `while` is `loop { if !c break; body }`); `continue`
    /// runs the `update` statements first (a `for`'s update).
    Loop(Vec<Stmt>, Vec<Stmt>),
    Break,
    Continue,
    Return(Option<Expr>),
    Atomic(RegionSrcId, Vec<Stmt>),
    Lock(RegionSrcId),
    Unlock,
    /// Every thread started by these `start()` calls (in the current call context) has been
    /// joined: placed after a loop that joins each slot of a local array or list that a
    /// loop filled with one started thread per slot (`lower::joined_loops` says when).
    /// Nothing happens at run time: the join loop itself joins.
    JoinedAll(Vec<CallId>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// Any other operator: a value depending on both operands.
    Other,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Int(i64),
    Null,
    Local(LocalId),
    Field(Box<Expr>, String),
    Static(ClassId, String),
    Elem(Box<Expr>, Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// An object, array or collection: runs the constructor (`Object` sites) with the
    /// arguments.
    New(SiteId, Vec<Expr>),
    NewArray(SiteId, Vec<Expr>),
    /// A call on a receiver (`None`: on `this`, or a static method of the class when the
    /// caller is static).
    Call {
        id: CallId,
        recv: Option<Box<Expr>>,
        name: String,
        args: Vec<Expr>,
        line: u32,
    },
    StaticCall {
        id: CallId,
        class: ClassId,
        name: String,
        args: Vec<Expr>,
        line: u32,
    },
    /// A lambda's closure: its site, and the locals it captures (in its method's order).
    Lambda(SiteId, Vec<LocalId>),
    /// A value computed by code outside the program (an unknown method, `arr.length`, a
    /// string): depends on what it is given, touches no shared variable.
    Unknown(Vec<Expr>),
}

impl Program {
    pub fn class_named(&self, name: &str) -> Option<ClassId> {
        self.classes
            .iter()
            .position(|c| c.name == name || c.name.rsplit('.').next() == Some(name))
            .map(|i| i as ClassId)
    }

    /// The method `name` with `arity` parameters (without `this`) of `class` or the nearest
    /// superclass that has one.
    pub fn find_method(&self, class: ClassId, name: &str, arity: usize) -> Option<MethodId> {
        let mut at = Some(class);
        let mut hops = 0;
        while let Some(c) = at {
            let found = self.methods.iter().position(|m| {
                m.class == Some(c)
                    && m.name == name
                    && !m.is_constructor
                    && m.param_types.len() == arity
            });
            if let Some(i) = found {
                return Some(i as MethodId);
            }
            hops += 1;
            if hops > self.classes.len() {
                return None;
            }
            at = self.classes[c as usize]
                .superclass
                .as_deref()
                .and_then(|s| self.class_named(crate::java::base_type(s)));
        }
        None
    }

    pub fn constructor(&self, class: ClassId, arity: usize) -> Option<MethodId> {
        self.methods
            .iter()
            .position(|m| {
                m.class == Some(class) && m.is_constructor && m.param_types.len() == arity
            })
            .map(|i| i as MethodId)
    }

    /// `Class.field` for a field of an object of `class`: named after the class that declares
    /// it (the class itself or a superclass).
    pub fn field_owner(&self, class: ClassId, field: &str) -> String {
        let mut at = Some(class);
        let mut hops = 0;
        while let Some(c) = at {
            let cl = &self.classes[c as usize];
            if cl.fields.iter().any(|f| f == field) || cl.static_fields.iter().any(|f| f == field) {
                return cl.name.clone();
            }
            hops += 1;
            if hops > self.classes.len() {
                break;
            }
            at = cl
                .superclass
                .as_deref()
                .and_then(|s| self.class_named(crate::java::base_type(s)));
        }
        self.classes[class as usize].name.clone()
    }

    /// The name of the variable `field` of objects made at `site`: `Class.field`, or for the
    /// element field of an array or a collection `Name[]`.
    pub fn var_name(&self, site: SiteId, field: &str) -> String {
        let s = &self.sites[site as usize];
        match &s.kind {
            SiteKind::Object(c) | SiteKind::Library(c) => {
                format!("{}.{field}", self.field_owner(*c, field))
            }
            _ => s.contents_var(),
        }
    }

    /// `file:line` of a region, or `file:start-end`.
    pub fn region_lines(&self, r: RegionSrcId) -> String {
        let src = &self.regions[r as usize];
        let file = &self.files[src.file as usize].name;
        if src.start == src.end {
            format!("{file}:{}", src.start)
        } else {
            format!("{file}:{}-{}", src.start, src.end)
        }
    }

    /// The source text of a region's lines.
    pub fn region_body(&self, r: RegionSrcId) -> Vec<String> {
        let src = &self.regions[r as usize];
        let lines = &self.files[src.file as usize].lines;
        (src.start..=src.end)
            .filter_map(|l| lines.get(l as usize - 1))
            .cloned()
            .collect()
    }
}
