//! From real Java to composed operations: finds the composed operations of each class of a
//! parsed file (`crate::java`) and lowers them to the syntax tree of `ast.rs`.
//!
//! **Maps.** A map is a field or local whose declared type is a `java.util.concurrent` map
//! (`ConcurrentHashMap`, `ConcurrentMap`, `ConcurrentSkipListMap`, `ConcurrentNavigableMap`)
//! or that is initialised with a new one; in a class that extends such a map, unqualified
//! calls of its methods (and calls on `this`) act on it (the custom map of Fig. 5). A snippet
//! (methods with no class) keeps the language of the paper's figures: an undeclared receiver
//! of a map method is a map.
//!
//! **Operations.** In a class, a composed operation is a method with two or more calls on its
//! maps (iteration over a map counts); in a snippet every method is one.
//!
//! **Discovery.** A class sees the fields and methods of its superclasses and enclosing classes
//! among the files given ([`programs_of`] lowers them together); a getter that returns a map
//! field and a local initialised with one are that map; anonymous and local classes are classes
//! of their own. A field the class's code sets only ever to a new concurrent map (in its
//! constructor) is a map whatever its declared type ([`set_only_to_new_maps`]). A method a
//! class inherits is lowered as the class's too, and is its operation when it is one only
//! there: it reaches the map through a method the class overrides (an abstract `getMap()`),
//! so it runs on this class's map whenever it runs on one of its objects. A constructor is an
//! operation when it uses a static map (its object's own fields are its locals: nobody else
//! sees the object while it is built). A use of a map the lowering cannot count (the map
//! passed to unknown code, a lambda or class that uses it, a helper not followed, a map held
//! in a map) reports the method as `unsupported` however few calls it counted: an operation
//! seen is never silently absent.
//!
//! **Helpers.** A call of a method of the class that may use a map is inlined
//! ([`Lowering::inline`], `inline.rs`): its statements run just before the statement that
//! calls it (a loop's condition's, before each test), which is where Java runs them when the
//! call is reached unconditionally and nothing with an effect precedes it in the statement.
//! In the right of `&&`/`||` or a branch of `?:`, the whole expression is evaluated before the
//! statement as the `if`s Java runs ([`Lowering::short_circuit`], [`Lowering::choice`]), when
//! it could be hoisted itself ([`Lowering::packable`]). Anywhere else (a lambda, after another
//! call), recursively, past
//! [`INLINE_DEPTH`], or among overloads of one arity that the arguments' static types do not
//! tell apart ([`Lowering::overload`]: exact types, or the only overload each argument may be
//! passed to), it is `unsupported`. An assignment, `++` or
//! `--` inside an expression is hoisted the same way when its target is not read before it. Leaving such a call unknown would drop its map
//! calls, and with them the proof's soundness. A helper that uses no map is inlined only when
//! it is guards and one `return` (a key through it stays the key); otherwise it is an unknown
//! call, as any other. A static method of a utility class of the files given (see
//! [`Utilities`]) is a helper too, its map parameters the caller's maps; a lambda (or method
//! reference) passed to a helper is applied where the helper applies it (`inline.rs`).
//!
//! **What is not interpreted** becomes explicit, never an error: a call of anything other
//! than a map (another object, a static method, a method of the class not inlined, `super`) is
//! an unknown call — an arbitrary fresh value on every evaluation, with any effect on non-map state; a
//! constant of another class or a final field set by a constructor is an opaque value; casts
//! are their operand; `synchronized` blocks are their body (a lock the map's other clients
//! need not take orders nothing, even the map's own monitor, which no concurrent map takes). What would change the meaning if ignored is recorded: an
//! operation that iterates over a map other than by the traversals below, or lets a map escape
//! into unknown code, is `unsupported`, with the construct and its line; exceptional paths through `catch` are an
//! approximation that keeps the verdict from being a proof.
//!
//! **Traversals.** `for` over a map's `keySet()`, `values()` or `entrySet()`, `forEach((k, v)
//! -> body)` and `clear()` become a loop whose first step is the traversal's
//! ([`MapMethod::Next`], weakly consistent iteration; see [`traversal`]); `getKey()` and
//! `getValue()` of an entry are its parts, and `e.setValue(v)` as a statement is a `put` of its
//! key (`ConcurrentHashMap`'s entries write through). A `forEach` function's `return;` ends
//! its round. A traversal counts as one map call toward finding operations.
//!
//! **Derived keys.** A local declared at the top of the body, before any map call, from the
//! parameters, constants and final fields only, never assigned again and used as a map key
//! (`String key = url.toFullString();`) becomes an input of the operation like a parameter.
//! This is sound: nothing shared is read or written before it is computed, so the operation
//! behaves exactly as the one that receives its value from the caller; linearizability is a
//! property of every invocation with every input, so verifying the operation for every value
//! of the local covers every value the computation can give, even different values for equal
//! parameters (as an unknown call may give). Parameters used only to compute it are dropped.
//!
//! **Tuple keys.** A key written in place at the map calls as a tuple of parameters, constants
//! and final fields (`new Key(a, b)`, `a + ":" + b`, `List.of(a, b)`) is first hoisted to one
//! such local per distinct text, so it becomes a derived key: the parameters are never
//! assigned, so every occurrence gives an equal key, and the key is compared as the tuple of
//! its parts. For a constructor that holds only if its class's `equals` compares the fields set
//! from the arguments: that assumption is stated with the operation's verdict.
//!
//! **More inputs.** Parameters besides the key and the value that are only passed along
//! (stored, made part of a stored object, given to unknown calls) stay inputs; the classifier
//! reports `Inputs` only for one that is compared or used as a key (see `classify.rs`, and
//! `verify::extra_input` for why one value of its own each covers every value).
//!
//! **Null checks.** `Objects.requireNonNull(p, ..)` and `checkNotNull(p, ..)` of a parameter
//! are the parameter: the reduction's inputs are never null (a null key or value makes the map
//! throw as the check does), so a key that flows through them stays the key.
//! `Optional.ofNullable(x).orElse(d)` is `x != null ? x : d` for a local `x`, and
//! `getOrDefault(k, d)` for `x` a map's `get(k)` (without map calls in `d`).

use super::ast::*;
use super::inline::{returns_to_assignments, Renaming};
use crate::java::{self, ClassDecl, FieldDecl, JavaFile, MethodDecl};
use hindsight_syntax::{SyntaxError, MAX_NESTING};
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use tree_sitter::Node;

/// The classes of `file` that have composed operations, each with its fields and operations.
pub fn programs(file: &JavaFile) -> Result<Vec<Program>, SyntaxError> {
    programs_of(&[file]).pop().expect("one file")
}

/// The classes of each of `files` that have composed operations; a class sees the members of
/// its superclasses and enclosing classes among the classes of all of them.
pub fn programs_of(files: &[&JavaFile]) -> Vec<Result<Vec<Program>, SyntaxError>> {
    let mut classes = Vec::new();
    let mut results: Vec<Result<Vec<Program>, SyntaxError>> = Vec::new();
    for (i, file) in files.iter().enumerate() {
        match java::classes(file) {
            Ok(cs) => {
                classes.extend(cs.into_iter().map(|c| (i, c)));
                results.push(Ok(Vec::new()));
            }
            Err(e) => results.push(Err(e)),
        }
    }
    let set_to_maps = classes.iter().map(|_| OnceCell::new()).collect();
    let self_calls = classes.iter().map(|_| OnceCell::new()).collect();
    let utilities = Utilities::new(files, &classes);
    let project = Project {
        files,
        classes: &classes,
        set_to_maps,
        self_calls,
        utilities: &utilities,
    };
    for (i, class) in &classes {
        let program = lower_class(&project, *i, class);
        if program.operations.is_empty() {
            continue;
        }
        if let Ok(ps) = &mut results[*i] {
            ps.push(program);
        }
    }
    results
}

/// Parses `text` and lowers it (a snippet or whole classes).
pub fn parse(text: &str) -> Result<Vec<Program>, SyntaxError> {
    let file = java::parse(text)?;
    programs(&file)
}

/// Every class of the files given: where a class's superclasses and enclosing classes, and
/// so the fields and helpers it sees, are found.
struct Project<'p, 't> {
    files: &'p [&'t JavaFile],
    classes: &'p [(usize, ClassDecl<'t>)],
    /// Per class (in `classes`' order), its fields set only to new maps
    /// ([`set_only_to_new_maps`]): each class's code walked once, not once per class that
    /// sees it.
    set_to_maps: Vec<OnceCell<BTreeSet<String>>>,
    /// Per class, the names of the methods its code calls on itself (`h(..)`, `this.h(..)`),
    /// computed when first asked (only superclasses are).
    self_calls: Vec<OnceCell<BTreeSet<String>>>,
    utilities: &'p Utilities<'p>,
}

/// The classes of the files given whose static methods a call may inline, with what the
/// files import: `ConcurrentHashMapUtils.computeIfAbsent(map, key, k -> ..)` runs the
/// utility's map calls on the caller's map. A utility class is a top-level class whose
/// fields are all static, final and no maps: its static methods then read no shared state
/// but what they are passed (a constant of it is one value, as any other class's), so their
/// code runs in the caller exactly as written there.
struct Utilities<'a> {
    /// Per file given, its package and imports (how a class name written there resolves).
    imports: Vec<java::Imports>,
    classes: Vec<Utility<'a>>,
    /// The classes by simple name (every call on a type name asks).
    by_name: BTreeMap<&'a str, Vec<usize>>,
}

struct Utility<'a> {
    name: &'a str,
    file_index: usize,
    /// Its static methods (each with `utility` its index here).
    methods: Vec<Method<'a>>,
    /// Per method, what every call of it would find again (its code, lowered alone as its
    /// class's, is the same at every call): whether it may use a map, and, for one passed
    /// no map, whether its lowered body is guards and one `return` (inlined) or not.
    touches: Vec<OnceCell<bool>>,
    simple: Vec<OnceCell<bool>>,
}

impl<'a> Utilities<'a> {
    fn new(files: &'a [&'a JavaFile], classes: &'a [(usize, ClassDecl<'a>)]) -> Utilities<'a> {
        let mut out = Utilities {
            imports: files.iter().map(|f| java::imports(f)).collect(),
            classes: Vec::new(),
            by_name: BTreeMap::new(),
        };
        for (i, c) in classes {
            let fields_constant = c
                .fields
                .iter()
                .all(|f| f.is_static && f.is_final && !lower_field(files[*i], f).is_map);
            let top_level = !c.name.is_empty() && !c.name.contains('.');
            if !fields_constant || !top_level || !c.methods.iter().any(|m| m.is_static) {
                continue;
            }
            let index = out.classes.len();
            out.by_name.entry(c.name.as_str()).or_default().push(index);
            let methods: Vec<Method> = c
                .methods
                .iter()
                .filter(|m| m.is_static && !m.is_constructor)
                .map(|decl| Method {
                    file: files[*i],
                    decl,
                    class: 0,
                    file_index: *i,
                    class_name: c.name.as_str(),
                    utility: Some(index),
                })
                .collect();
            out.classes.push(Utility {
                name: c.name.as_str(),
                file_index: *i,
                touches: methods.iter().map(|_| OnceCell::new()).collect(),
                simple: methods.iter().map(|_| OnceCell::new()).collect(),
                methods,
            });
        }
        out
    }

    /// What [`Utility::touches`] and [`Utility::simple`] keep for `m`, a utility's method.
    fn cached(&self, m: &Method<'a>) -> Option<(&OnceCell<bool>, &OnceCell<bool>)> {
        let u = &self.classes[m.utility?];
        let i = u
            .methods
            .iter()
            .position(|x| std::ptr::eq(x.decl, m.decl))?;
        Some((&u.touches[i], &u.simple[i]))
    }

    /// The utility class that the type name `ty` (`Utils`, `a.b.Utils`), written in the
    /// file `file`, names as Java resolves it: a single-type import of that name, else a
    /// class of the file's own package, else the only one among the packages it imports on
    /// demand. `None` when it names no utility class of the files given (or it is unclear).
    fn class_named(&self, ty: &str, file: usize) -> Option<usize> {
        let imports = self.imports.get(file)?;
        let package_of = |i: usize| self.imports[self.classes[i].file_index].package.as_str();
        let named = |name: &str| self.by_name.get(name).map_or(&[][..], Vec::as_slice);
        let find = |package: &str, name: &str| {
            named(name)
                .iter()
                .copied()
                .find(|&i| package_of(i) == package)
        };
        if let Some((package, name)) = ty.rsplit_once('.') {
            return find(package, name);
        }
        let candidates = named(ty);
        if candidates.is_empty() {
            return None;
        }
        let single = imports
            .types
            .iter()
            .find(|t| t.rsplit_once('.').is_some_and(|(_, n)| n == ty));
        if let Some(single) = single {
            let (package, name) = single.rsplit_once('.')?;
            return find(package, name);
        }
        if let Some(same) = find(&imports.package, ty) {
            return Some(same);
        }
        let mut on_demand = candidates
            .iter()
            .copied()
            .filter(|&i| imports.on_demand.iter().any(|p| p == package_of(i)));
        match (on_demand.next(), on_demand.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    }
}

/// How many superclasses are followed up a chain (a cycle among the files given is not Java,
/// but costs nothing to survive).
const SUPERCLASS_DEPTH: usize = 32;

impl<'p, 't> Project<'p, 't> {
    /// The fields of `class` (one of `classes`) set only to new maps.
    fn set_to_maps(&self, class: &(usize, ClassDecl<'t>)) -> &BTreeSet<String> {
        self.set_to_maps[self.index(class)].get_or_init(|| {
            // Only a field declared without a value can be set elsewhere only.
            if class.1.fields.iter().all(|f| f.init.is_some()) {
                return BTreeSet::new();
            }
            set_only_to_new_maps(self.files[class.0], &class.1)
        })
    }

    /// The methods `class` (one of `classes`) calls on itself.
    fn self_calls(&self, class: &(usize, ClassDecl<'t>)) -> &BTreeSet<String> {
        self.self_calls[self.index(class)].get_or_init(|| self_calls(self.files[class.0], &class.1))
    }

    fn index(&self, class: &(usize, ClassDecl<'t>)) -> usize {
        // Its index, from its address in the slice (checked; else searched).
        let size = std::mem::size_of::<(usize, ClassDecl)>().max(1);
        let at = (class as *const _ as usize).wrapping_sub(self.classes.as_ptr() as usize) / size;
        let at = if self.classes.get(at).is_some_and(|c| std::ptr::eq(c, class)) {
            at
        } else {
            self.classes
                .iter()
                .position(|c| std::ptr::eq(c, class))
                .expect("a class of the project")
        };
        at
    }

    /// The class a type names (`Base<K>`, `pkg.Base`): by its simple name, in the same file
    /// first.
    fn class_named(&self, ty: &str, file: usize) -> Option<&'p (usize, ClassDecl<'t>)> {
        let simple = java::base_type(ty);
        let named = |c: &&(usize, ClassDecl)| {
            c.1.name.rsplit('.').next() == Some(simple) && !c.1.name.is_empty()
        };
        let classes = self.classes;
        classes
            .iter()
            .filter(named)
            .find(|c| c.0 == file)
            .or_else(|| classes.iter().find(named))
    }

    /// `class` and its superclasses among the files given, nearest first.
    fn chain(&self, file: usize, class: &'p ClassDecl<'t>) -> Vec<&'p (usize, ClassDecl<'t>)> {
        let mut out: Vec<&(usize, ClassDecl)> = Vec::new();
        let mut at = self
            .classes
            .iter()
            .find(|c| c.0 == file && std::ptr::eq(&c.1, class));
        while let Some(c) = at {
            if out.len() > SUPERCLASS_DEPTH || out.iter().any(|o| std::ptr::eq(*o, c)) {
                break;
            }
            out.push(c);
            at =
                c.1.superclass
                    .as_deref()
                    .and_then(|s| self.class_named(s, c.0));
        }
        out
    }

    /// The classes whose members `class` sees: itself and its superclasses, then each
    /// enclosing class (an inner class sees its outer class's fields) with its superclasses.
    fn visible(&self, file: usize, class: &'p ClassDecl<'t>) -> Vec<&'p (usize, ClassDecl<'t>)> {
        let mut out = self.chain(file, class);
        let mut name = class.name.as_str();
        while let Some((outer, _)) = name.rsplit_once('.') {
            name = outer;
            let found = self
                .classes
                .iter()
                .find(|c| c.0 == file && c.1.name == outer);
            if let Some(c) = found {
                for x in self.chain(c.0, &c.1) {
                    if !out.iter().any(|o| std::ptr::eq(*o, x)) {
                        out.push(x);
                    }
                }
            }
        }
        out
    }
}

const ITERATION: &[&str] = &[
    "keySet",
    "values",
    "entrySet",
    "forEach",
    "keys",
    "elements",
    "navigableKeySet",
    "descendingMap",
    "descendingKeySet",
    "headMap",
    "tailMap",
    "subMap",
    "forEachKey",
    "forEachValue",
    "forEachEntry",
    "reduce",
    "reduceKeys",
    "reduceValues",
    "search",
    "searchKeys",
    "searchValues",
];

/// What a class sees: its fields and methods (its own first, then inherited, then its
/// enclosing classes'; a name it declares hides the same name further out), whether its
/// unqualified map methods act on itself, and how many of the classes seen are its own chain
/// of superclasses (the methods of the others are its enclosing classes').
struct Members<'p> {
    fields: Vec<Field>,
    methods: Vec<Method<'p>>,
    custom_map: bool,
    chain: usize,
    /// The static fields among `fields`: a constructor's calls on one of them are on a map
    /// other threads share.
    statics: BTreeSet<String>,
    utilities: &'p Utilities<'p>,
    /// Whether the class declares a map (or extends one), or a method its superclasses'
    /// code calls (an override, an abstract method's body): only then can a method it
    /// inherits act on a map here that it does not act on in its own class.
    own_maps: bool,
}

fn members<'p, 't>(
    project: &Project<'p, 't>,
    file_index: usize,
    class: &'p ClassDecl<'t>,
) -> Members<'p> {
    let chain = project.chain(file_index, class);
    // A class that extends a concurrent map, directly or through classes of the files given;
    // or an interface that extends one, whose default methods call the map's own methods
    // (`default V computeIfAbsent(..) { .. get(key) .. putIfAbsent(key, v) .. }`), atomic as
    // `ConcurrentMap`'s contract makes every implementation's.
    let custom_map = chain.iter().any(|c| {
        c.1.superclass
            .as_deref()
            .is_some_and(java::is_concurrent_map_type)
            || c.1
                .extends_interfaces
                .iter()
                .any(|i| java::is_concurrent_map_type(i))
    });
    let mut fields: Vec<Field> = Vec::new();
    let mut methods: Vec<Method> = Vec::new();
    let mut statics = BTreeSet::new();
    let mut own_maps = false;
    let mut called_by_bases = BTreeSet::new();
    for base in chain.iter().skip(1) {
        called_by_bases.extend(project.self_calls(base).iter().cloned());
    }
    let called_here = class
        .methods
        .iter()
        .any(|m| !m.is_constructor && called_by_bases.contains(&m.name));
    for (seen, entry) in project.visible(file_index, class).into_iter().enumerate() {
        let (i, c) = entry;
        let f = project.files[*i];
        let set_to_maps = project.set_to_maps(entry);
        for field in &c.fields {
            if !fields.iter().any(|x| x.name == field.name) {
                let mut lowered = lower_field(f, field);
                if field.init.is_none() && set_to_maps.contains(&field.name) {
                    lowered.is_map = true;
                    lowered.init = None;
                }
                if field.is_static {
                    statics.insert(field.name.clone());
                }
                own_maps |= seen == 0 && lowered.is_map;
                fields.push(lowered);
            }
        }
        // An anonymous or local class sees the maps its enclosing code declared before it
        // (captured, so effectively final): its methods, run by whoever holds the object,
        // share them. They hide the enclosing classes' fields of the same names.
        if seen == 0 {
            for captured in captured_maps(f, class) {
                if !fields.iter().any(|x| x.name == captured.name) {
                    fields.push(captured);
                }
            }
        }
        for m in &c.methods {
            if !m.is_constructor {
                methods.push(Method {
                    file: f,
                    decl: m,
                    class: seen,
                    file_index: *i,
                    class_name: c.name.as_str(),
                    utility: None,
                });
            }
        }
    }
    Members {
        fields,
        methods,
        own_maps: own_maps
            || called_here
            || class
                .superclass
                .as_deref()
                .is_some_and(java::is_concurrent_map_type),
        custom_map,
        chain: chain.len(),
        statics,
        utilities: project.utilities,
    }
}

/// Whether `m`, lowered as a method of the class whose members are `seen`, is a composed
/// operation there (two or more map calls, or a use of a map not counted), with its body.
fn lower_method<'p>(seen: &Members<'p>, snippet: bool, m: Method<'p>) -> (bool, Lowered) {
    let mut lw = Lowering::new(
        m.file,
        &seen.fields,
        &seen.methods,
        seen.chain,
        snippet || seen.custom_map,
        snippet,
        m.decl,
    );
    lw.utilities = Some(seen.utilities);
    lw.file_index = m.file_index;
    lw.inlining.push(signature(m.decl));
    let body = lw.block(m.decl.body);
    let keep = snippet || lw.map_calls >= 2 || lw.unseen > 0;
    let lowered = Lowered {
        body,
        unsupported: lw.unsupported,
        approximations: lw.approximations,
        lambda_effects: lw.lambda_effects,
    };
    (keep, lowered)
}

/// A method's body as [`lower_method`] lowers it, with what it found.
struct Lowered {
    body: Vec<Stmt>,
    unsupported: Option<(Pos, String)>,
    approximations: Vec<(Pos, String)>,
    lambda_effects: Vec<(Pos, String)>,
}

fn lower_class<'p, 't>(
    project: &Project<'p, 't>,
    file_index: usize,
    class: &'p ClassDecl<'t>,
) -> Program {
    let snippet = class.name.is_empty();
    let seen = members(project, file_index, class);
    let mut program = Program {
        class: class.name.clone(),
        fields: seen.fields.clone(),
        operations: Vec::new(),
    };
    // Its own methods, then the methods it inherits that are operations only here: those
    // that reach a map through a method it overrides (an abstract `getMap()` of a base class
    // that this class implements with its map field), which the base class, lowered alone,
    // does not see as map calls. Such a method runs on this class's maps whenever it runs
    // on one of its objects, so it is this class's operation (named here, at its line in
    // the base class's file); one that is an operation of its base class already is
    // reported there, once.
    let own = seen
        .methods
        .iter()
        .filter(|m| m.class == 0)
        .copied()
        .collect::<Vec<_>>();
    let inherited = seen
        .methods
        .iter()
        .filter(|_| seen.own_maps)
        .filter(|m| m.class > 0 && m.class < seen.chain && !m.decl.is_static)
        .filter(|m| {
            // Not overridden by a nearer class of the chain.
            let sig = signature(m.decl);
            !seen
                .methods
                .iter()
                .any(|o| o.class < m.class && signature(o.decl) == sig)
        })
        .copied()
        .collect::<Vec<_>>();
    // Constructors: the object is not shared while it is built, so calls on its own maps
    // are no concurrent operation; calls on a static map are (another thread may run the
    // same constructor, or any method on that map, meanwhile).
    let static_maps = seen
        .fields
        .iter()
        .any(|f| f.is_map && seen.statics.contains(&f.name));
    let constructors = class
        .methods
        .iter()
        .filter(|m| m.is_constructor && static_maps)
        .map(|decl| Method {
            file: project.files[file_index],
            decl,
            class: 0,
            file_index,
            class_name: class.name.as_str(),
            utility: None,
        })
        .collect::<Vec<_>>();
    let mut names = BTreeSet::new();
    for (m, from_base) in own
        .into_iter()
        .chain(constructors)
        .map(|m| (m, false))
        .chain(inherited.into_iter().map(|m| (m, true)))
    {
        if from_base {
            let probe = Lowering::new(
                m.file,
                &seen.fields,
                &seen.methods,
                seen.chain,
                false,
                false,
                m.decl,
            );
            if !probe.may_touch_map(m) {
                continue;
            }
        }
        let (keep, mut lowered) = lower_method(&seen, snippet, m);
        if !keep {
            continue;
        }
        if m.decl.is_constructor {
            let mut used = BTreeSet::new();
            walk_stmts(&lowered.body, &mut |_, e| {
                if let Some(e) = e {
                    walk_expr(e, &mut |x| {
                        if let ExprKind::MapCall { map, .. } = &x.kind {
                            used.insert(map.clone());
                        }
                    });
                }
            });
            let mentions_static = |n: Node| {
                let mut stack = vec![n];
                while let Some(x) = stack.pop() {
                    let name = m.file.text_of(x);
                    let static_map = seen.statics.contains(name)
                        && seen.fields.iter().any(|f| f.name == name && f.is_map);
                    if x.kind() == "identifier" && static_map {
                        return true;
                    }
                    let mut c = x.walk();
                    stack.extend(x.named_children(&mut c));
                }
                false
            };
            let shared = used.iter().any(|u| seen.statics.contains(u));
            let own = used.iter().any(|u| !seen.statics.contains(u));
            let escapes_static = lowered.unsupported.is_some() && mentions_static(m.decl.body);
            if !shared && !escapes_static {
                continue;
            }
            if own && lowered.unsupported.is_none() {
                lowered.unsupported = Some((
                    m.decl.pos,
                    "a constructor that uses its object's own maps (not shared while it is built) besides static ones: not modelled".into(),
                ));
            }
            // The object's own fields are no shared state while it is built: locals of the
            // constructor, from their initial values.
            let mut assigned = BTreeSet::new();
            walk_stmts(&lowered.body, &mut |t, _| {
                if let Some(t) = t {
                    assigned.insert(t.to_owned());
                }
            });
            let own_fields: Vec<Stmt> = seen
                .fields
                .iter()
                .filter(|f| assigned.contains(&f.name) && !seen.statics.contains(&f.name))
                .filter(|f| !f.is_map && !m.decl.params.iter().any(|p| p.name == f.name))
                .map(|f| Stmt {
                    kind: StmtKind::Decl {
                        name: f.name.clone(),
                        init: Some(f.init.clone().unwrap_or(Expr {
                            kind: ExprKind::Null,
                            pos: f.pos,
                        })),
                    },
                    pos: m.decl.pos,
                })
                .collect();
            lowered.body.splice(0..0, own_fields);
        }
        let mut derived = Vec::new();
        let mut inherited_from = None;
        if from_base {
            // Its own class, lowered alone: there it is an operation already, or not one.
            let base = project
                .classes
                .iter()
                .find(|c| c.0 == m.file_index && c.1.name == m.class_name)
                .expect("a class of the chain is a class of the project");
            if lower_method(&members(project, base.0, &base.1), false, m).0 {
                continue;
            }
            derived.push((
                m.decl.pos,
                format!(
                    "a method of `{}`, inherited: its map calls act on the maps of `{}` (through the methods it overrides)",
                    m.class_name, class.name
                ),
            ));
            inherited_from = Some(Inherited {
                class: m.class_name.to_owned(),
                file: m.file_index,
            });
        }
        // Overloads: the first keeps the name, later ones say where they are.
        let name = if names.insert(m.decl.name.clone()) {
            m.decl.name.clone()
        } else {
            format!("{}@{}", m.decl.name, m.decl.pos.line)
        };
        let mut op = Operation {
            name,
            params: m
                .decl
                .params
                .iter()
                .map(|p| Param {
                    name: p.name.clone(),
                    ty: p.ty.clone(),
                    pos: p.pos,
                })
                .collect(),
            body: lowered.body,
            pos: m.decl.pos,
            end_line: m.decl.end_line,
            unsupported: lowered.unsupported,
            approximations: lowered.approximations,
            derived: Vec::new(),
            lambda_effects: lowered.lambda_effects,
            inherited_from,
        };
        let tuples = hoist_tuple_keys(&mut op, &program.fields);
        derive_keys(&mut op, &program.fields);
        op.derived.extend(tuples);
        op.derived.extend(derived);
        program.operations.push(op);
    }
    program
}

/// The maps an anonymous or local class captures: the locals and parameters of the code that
/// declares it, declared before it, that are concurrent maps (by type or initializer). None
/// for a class that is a member of another.
fn captured_maps(file: &JavaFile, class: &ClassDecl) -> Vec<Field> {
    if class.name.is_empty() {
        return Vec::new();
    }
    let node = class.node;
    let mut out = Vec::new();
    let map_field = |name: Node, ty: &str, pos: Pos| Field {
        name: file.text_of(name).to_owned(),
        ty: ty.to_owned(),
        is_final: true,
        init: None,
        is_map: true,
        pos,
    };
    let mut at = node;
    while let Some(parent) = at.parent() {
        match parent.kind() {
            // A member of a class: nothing captured beyond.
            "class_body" | "interface_body" | "enum_body" | "program" => break,
            "method_declaration" | "constructor_declaration" | "lambda_expression" => {
                let params = parent.child_by_field_name("parameters");
                let mut c = params.map(|p| p.walk());
                let ps: Vec<Node> = match (params, c.as_mut()) {
                    (Some(p), Some(c)) => p.named_children(c).collect(),
                    _ => Vec::new(),
                };
                for p in ps {
                    let ty = p
                        .child_by_field_name("type")
                        .map_or("", |t| file.text_of(t));
                    if let (true, Some(name)) = (
                        java::is_concurrent_map_type(ty),
                        p.child_by_field_name("name"),
                    ) {
                        out.push(map_field(name, ty, file.pos(name)));
                    }
                }
            }
            _ => {
                let mut c = parent.walk();
                let before: Vec<Node> = parent
                    .named_children(&mut c)
                    .filter(|k| k.end_byte() <= at.start_byte())
                    .filter(|k| k.kind() == "local_variable_declaration")
                    .collect();
                for d in before {
                    let ty = d
                        .child_by_field_name("type")
                        .map_or("", |t| file.text_of(t));
                    let mut c = d.walk();
                    for v in d.children_by_field_name("declarator", &mut c) {
                        let is_map = java::is_concurrent_map_type(ty)
                            || v.child_by_field_name("value")
                                .is_some_and(|i| is_new_concurrent_map(file, i));
                        if let (true, Some(name)) = (is_map, v.child_by_field_name("name")) {
                            out.push(map_field(name, ty, file.pos(name)));
                        }
                    }
                }
            }
        }
        at = parent;
    }
    out
}

/// The value type of a map type (`V` of `ConcurrentMap<K, V>`), as written.
fn value_type(ty: &str) -> Option<&str> {
    let args = ty.split_once('<')?.1.trim_end().strip_suffix('>')?;
    let mut depth = 0;
    for (i, c) in args.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => return Some(args[i + 1..].trim()),
            _ => {}
        }
    }
    None
}

/// The names of the methods `class`'s code calls on itself (`h(..)`, `this.h(..)`), its
/// nested classes' code apart.
fn self_calls(file: &JavaFile, class: &ClassDecl) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for m in &class.methods {
        let mut stack = vec![m.body];
        while let Some(x) = stack.pop() {
            if x.kind() == "class_body" {
                continue;
            }
            if x.kind() == "method_invocation"
                && x.child_by_field_name("object")
                    .is_none_or(|o| o.kind() == "this")
            {
                if let Some(n) = x.child_by_field_name("name") {
                    out.insert(file.text_of(n).to_owned());
                }
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
    }
    out
}

/// The fields of `class` that its code sets (`this.m = ..` or `m = ..`, in constructors or
/// methods) only ever to a new `java.util.concurrent` map, at least once
/// (`private final Map<K, V> m; A() { this.m = new ConcurrentHashMap<>(); }`): each holds
/// one, whatever its declared type says. One set to anything else, anywhere in the class, is
/// not one (it may hold a `HashMap`).
fn set_only_to_new_maps(file: &JavaFile, class: &ClassDecl) -> BTreeSet<String> {
    let mut maps = BTreeSet::new();
    let mut other = BTreeSet::new();
    for m in &class.methods {
        let params: BTreeSet<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
        let mut locals = BTreeSet::new();
        let mut stack = vec![m.body];
        let mut sets = Vec::new();
        while let Some(x) = stack.pop() {
            match x.kind() {
                // Their own fields.
                "class_body" | "lambda_expression" => continue,
                "variable_declarator" => {
                    if let Some(n) = x.child_by_field_name("name") {
                        locals.insert(file.text_of(n));
                    }
                }
                "assignment_expression" => sets.push(x),
                _ => {}
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        for x in sets {
            let (Some(left), Some(right)) = (
                x.child_by_field_name("left"),
                x.child_by_field_name("right"),
            ) else {
                continue;
            };
            let name = match left.kind() {
                "identifier" => {
                    let name = file.text_of(left);
                    if params.contains(name) || locals.contains(name) {
                        continue;
                    }
                    name
                }
                "field_access"
                    if left
                        .child_by_field_name("object")
                        .is_some_and(|o| o.kind() == "this") =>
                {
                    match left.child_by_field_name("field") {
                        Some(f) => file.text_of(f),
                        None => continue,
                    }
                }
                _ => continue,
            };
            if !class.fields.iter().any(|f| f.name == name) {
                continue;
            }
            let op = x
                .child_by_field_name("operator")
                .map_or("=", |o| file.text_of(o));
            if op == "=" && is_new_concurrent_map(file, right) {
                maps.insert(name.to_owned());
            } else {
                other.insert(name.to_owned());
            }
        }
    }
    maps.retain(|m| !other.contains(m));
    maps
}

fn is_new_concurrent_map(file: &JavaFile, node: Node) -> bool {
    node.kind() == "object_creation_expression"
        && node
            .child_by_field_name("type")
            .is_some_and(|t| java::is_concurrent_map_type(file.text_of(t)))
}

fn lower_field(file: &JavaFile, f: &FieldDecl) -> Field {
    let is_map = java::is_concurrent_map_type(&f.ty)
        || f.init.is_some_and(|i| is_new_concurrent_map(file, i));
    let init = if is_map {
        None
    } else {
        match f.init.and_then(|i| constant(file, i, 0)) {
            Some(e) => Some(e),
            // A final field set by a constructor or by code: one value, not interpreted.
            None if f.is_final => Some(Expr {
                kind: ExprKind::Opaque(format!("this.{}", f.name)),
                pos: f.pos,
            }),
            None => None,
        }
    };
    Field {
        name: f.name.clone(),
        ty: f.ty.clone(),
        is_final: f.is_final,
        init,
        is_map,
        pos: f.pos,
    }
}

/// A field initializer the analysis can evaluate: a literal, a negated number, or `new T(..)`
/// of literals (one object, the same for every operation).
fn constant(file: &JavaFile, node: Node, depth: usize) -> Option<Expr> {
    if depth > MAX_NESTING {
        return None;
    }
    let pos = file.pos(node);
    let kind = match node.kind() {
        "parenthesized_expression" => return constant(file, node.named_child(0)?, depth + 1),
        "object_creation_expression" => {
            if java::anonymous_body(node).is_some() {
                return None;
            }
            let ty = java::base_type(file.text_of(node.child_by_field_name("type")?)).to_owned();
            let args = node.child_by_field_name("arguments")?;
            let mut c = args.walk();
            let mut out = Vec::new();
            for a in args.named_children(&mut c) {
                out.push(constant(file, a, depth + 1)?);
            }
            ExprKind::New {
                class: ty,
                args: out,
            }
        }
        "unary_expression" if file.text_of(node).starts_with('-') => ExprKind::Neg(Box::new(
            constant(file, node.child_by_field_name("operand")?, depth + 1)?,
        )),
        _ => literal(file, node)?,
    };
    Some(Expr { kind, pos })
}

fn literal(file: &JavaFile, node: Node) -> Option<ExprKind> {
    let text = file.text_of(node);
    Some(match node.kind() {
        "null_literal" => ExprKind::Null,
        "true" => ExprKind::Bool(true),
        "false" => ExprKind::Bool(false),
        "decimal_integer_literal"
        | "hex_integer_literal"
        | "octal_integer_literal"
        | "binary_integer_literal" => match integer(text) {
            Some(n) => ExprKind::Int(n),
            None => ExprKind::Opaque(text.to_owned()),
        },
        "decimal_floating_point_literal" | "hex_floating_point_literal" => {
            ExprKind::Opaque(text.to_owned())
        }
        "string_literal" => ExprKind::Str(string_body(text)),
        "character_literal" => ExprKind::Str(text.trim_matches('\'').to_owned()),
        _ => return None,
    })
}

fn integer(text: &str) -> Option<i64> {
    let t: String = text
        .chars()
        .filter(|c| *c != '_' && *c != 'l' && *c != 'L')
        .collect();
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or(t.strip_prefix("0X")) {
        (h.to_owned(), 16)
    } else if let Some(b) = t.strip_prefix("0b").or(t.strip_prefix("0B")) {
        (b.to_owned(), 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (t[1..].to_owned(), 8)
    } else {
        (t, 10)
    };
    i64::from_str_radix(&digits, radix).ok()
}

/// A string literal's text between its quotes (escapes kept as written).
fn string_body(text: &str) -> String {
    if let Some(block) = text.strip_prefix("\"\"\"") {
        return block.strip_suffix("\"\"\"").unwrap_or(block).to_owned();
    }
    let inner = text.strip_prefix('"').unwrap_or(text);
    inner.strip_suffix('"').unwrap_or(inner).to_owned()
}

struct Lowering<'a> {
    file: &'a JavaFile,
    fields: &'a [Field],
    /// Unqualified map methods and calls on `this` act on the class's own map.
    this_is_map: bool,
    snippet: bool,
    /// Declared locals and parameters with their types.
    locals: BTreeMap<String, String>,
    /// Locals that are maps: the map they are (a field's name, or their own).
    map_locals: BTreeMap<String, String>,
    map_calls: usize,
    unsupported: Option<(Pos, String)>,
    approximations: Vec<(Pos, String)>,
    lambda_effects: Vec<(Pos, String)>,
    depth: usize,
    /// The method's parameters: a null check of one is the parameter itself.
    params: BTreeSet<String>,
    /// The methods of the class (its own, inherited and enclosing ones): calls of them are
    /// inlined (see [`Lowering::inline`]).
    methods: &'a [Method<'a>],
    /// How many of the classes `methods` come from are the class and its superclasses (the
    /// others enclose it): Java looks a method's name up among those first.
    chain: usize,
    /// Where the statements of an inlined helper go: before the statement being lowered,
    /// when its call is reached there unconditionally (`None` elsewhere).
    hoist: Option<Hoist<'a>>,
    /// The methods being inlined, outermost first (the operation itself first): a call of
    /// one of them is recursion.
    inlining: Vec<String>,
    /// Helpers inlined so far in the operation: each call's locals get names of their own.
    inlined: usize,
    /// Uses of a map whose calls the lowering cannot count (the map passed to unknown code,
    /// a lambda or class that uses it, a helper not followed): the method is reported
    /// (`unsupported`) however few calls it counted.
    unseen: usize,
    /// Locals that are entries of a traversal of `entrySet()`: `setValue` on one writes
    /// through to the map.
    entries: BTreeMap<String, String>,
    /// Locals holding a view of a map (`Set<K> keys = m.keySet();`): traversed by a `for`,
    /// any other use is one the lowering does not follow.
    view_locals: BTreeMap<String, (String, View)>,
    /// The utility classes whose static methods a call may inline, and the index of the
    /// file being lowered among the files given (how it names classes).
    utilities: Option<&'a Utilities<'a>>,
    file_index: usize,
    /// Lowering a utility class's method: the class, whose constants (names not declared
    /// in the method) are named by it, apart from the caller's names.
    utility_class: Option<&'a str>,
    /// Lowering a helper: its parameters to which the caller passes a lambda (applied when
    /// the helper is inlined, see `inline::Renaming::functions`).
    functions: BTreeSet<String>,
}

/// A method of the class, or of a class whose members it sees, with the file it is in.
#[derive(Clone, Copy)]
struct Method<'a> {
    file: &'a JavaFile,
    decl: &'a MethodDecl<'a>,
    /// Which of the classes the class sees declares it (0: the class itself).
    class: usize,
    /// The file's index among the files given, and the declaring class's name.
    file_index: usize,
    class_name: &'a str,
    /// For a static method of a utility class, which one (see [`Utilities`]): its code is
    /// lowered with that class's members, not the caller's.
    utility: Option<usize>,
}

/// The statement whose expressions are being lowered, and the statements of the helpers
/// inlined in them so far, which run before it.
/// Overloads of one name and arity in one class: which one a call names is not followed.
struct Ambiguous;

struct Hoist<'a> {
    statement: Node<'a>,
    stmts: Vec<Stmt>,
    /// The byte ranges of the calls inlined: their effects are among `stmts`, in order.
    inlined: Vec<std::ops::Range<usize>>,
}

/// How deep helpers are inlined into helpers: past it a helper that uses a map is
/// `unsupported`.
const INLINE_DEPTH: usize = 4;

fn expr_at(kind: ExprKind, pos: Pos) -> Expr {
    Expr { kind, pos }
}

/// `if (!cond) break;`
fn exit_unless(cond: Expr) -> Stmt {
    let pos = cond.pos;
    Stmt {
        kind: StmtKind::If {
            cond: expr_at(ExprKind::Not(Box::new(cond)), pos),
            then: vec![Stmt {
                kind: StmtKind::Break,
                pos,
            }],
            els: Vec::new(),
        },
        pos,
    }
}

/// A loop testing `cond` before each round, with `pre` run before each test: with nothing to
/// run, the plain loop; else a loop whose round starts with `pre` and the test (`continue`
/// runs `update` and comes back to both, as Java's test follows the update).
fn tested_loop(pre: Vec<Stmt>, cond: Option<Expr>, body: Vec<Stmt>, update: Vec<Stmt>) -> StmtKind {
    if pre.is_empty() {
        return StmtKind::Loop { cond, body, update };
    }
    let mut round = pre;
    round.extend(cond.map(exit_unless));
    round.extend(body);
    StmtKind::Loop {
        cond: None,
        body: round,
        update,
    }
}

/// A method's name and erased parameter types: overloads of one name are different methods,
/// so a call of one from another is no recursion.
fn signature(m: &MethodDecl) -> String {
    let params: Vec<String> = m.params.iter().map(|p| erasure(&p.ty)).collect();
    format!("{}({})", m.name, params.join(", "))
}

/// The type `null` has: any reference type's value.
const NULL_TYPE: &str = "null";

fn is_primitive(ty: &str) -> bool {
    matches!(
        ty,
        "int" | "long" | "short" | "byte" | "char" | "boolean" | "double" | "float"
    )
}

/// Whether an argument of static type `arg` (erased; [`NULL_TYPE`] for `null`) may be passed
/// to a parameter of type `param` (erased), by Java's method invocation conversions (identity,
/// widening, boxing and unboxing, subtyping). Exact for primitives, their boxes, `String` and
/// arrays against the types of `java.lang` and `java.io` they can convert to; any other pair
/// may (an unknown class may extend or implement anything, a type variable may be anything):
/// "may" is never wrong, only less precise.
fn may_pass(arg: &str, param: &str) -> bool {
    const NUMERIC: [&str; 7] = ["byte", "short", "char", "int", "long", "float", "double"];
    // What a primitive widens to (JLS 5.1.2), itself included.
    fn widens(from: &str, to: &str) -> bool {
        let rank = |t: &str| NUMERIC.iter().position(|n| *n == t);
        match (from, to) {
            _ if from == to => true,
            ("char", "short") | ("short", "char") | ("byte", "char") => false,
            ("boolean", _) | (_, "boolean") => false,
            _ => matches!((rank(from), rank(to)), (Some(a), Some(b)) if a < b),
        }
    }
    fn boxed(primitive: &str) -> Option<&'static str> {
        Some(match primitive {
            "byte" => "Byte",
            "short" => "Short",
            "char" => "Character",
            "int" => "Integer",
            "long" => "Long",
            "float" => "Float",
            "double" => "Double",
            "boolean" => "Boolean",
            _ => return None,
        })
    }
    // The supertypes of a box or of `String` among the types a parameter may name.
    fn above(class: &str, param: &str) -> bool {
        let common = [
            "Object",
            "Serializable",
            "java.io.Serializable",
            "Comparable",
        ];
        common.contains(&param)
            || param == class
            || matches!(param, "Constable" | "ConstantDesc")
            || (param == "Number"
                && matches!(
                    class,
                    "Byte" | "Short" | "Integer" | "Long" | "Float" | "Double"
                ))
            || (param == "CharSequence" && class == "String")
    }
    let known_class = |t: &str| {
        t == "String"
            || [
                "byte", "short", "char", "int", "long", "float", "double", "boolean",
            ]
            .iter()
            .any(|p| boxed(p) == Some(t))
    };
    let unboxed = |t: &str| {
        [
            "byte", "short", "char", "int", "long", "float", "double", "boolean",
        ]
        .into_iter()
        .find(|p| boxed(p) == Some(t))
    };
    if arg == NULL_TYPE {
        return !is_primitive(param);
    }
    if is_primitive(arg) {
        return if is_primitive(param) {
            widens(arg, param)
        } else {
            let b = boxed(arg).expect("a primitive has a box");
            above(b, param) || !(known_class(param) || param.ends_with("[]") || is_jdk_class(param))
        };
    }
    if known_class(arg) {
        return match unboxed(arg) {
            Some(p) if is_primitive(param) => widens(p, param),
            None if is_primitive(param) => false,
            _ => {
                above(arg, param)
                    || !(known_class(param) || param.ends_with("[]") || is_jdk_class(param))
            }
        };
    }
    if arg.ends_with("[]") {
        return !is_primitive(param)
            && (param.ends_with("[]")
                || matches!(
                    param,
                    "Object" | "Cloneable" | "Serializable" | "java.io.Serializable"
                )
                || !(known_class(param) || is_jdk_class(param)));
    }
    true
}

/// Types of `java.lang`, `java.io` and `java.util` a parameter commonly names, whose relation
/// to a box, a string or an array [`may_pass`] knows exactly (their supertypes among these,
/// or none).
fn is_jdk_class(ty: &str) -> bool {
    matches!(
        ty,
        "List"
            | "Map"
            | "Set"
            | "Collection"
            | "Class"
            | "Iterable"
            | "Optional"
            | "Runnable"
            | "Object"
            | "Number"
            | "CharSequence"
            | "Comparable"
            | "Serializable"
            | "java.io.Serializable"
            | "Cloneable"
            | "Constable"
            | "ConstantDesc"
    )
}

/// A type's text without its type arguments, annotations' spacing or `final`.
fn erasure(ty: &str) -> String {
    let ty = ty.trim().trim_start_matches("final ").trim();
    let ty = ty.split('<').next().unwrap_or(ty).trim();
    ty.to_owned()
}

/// The body of a `forEach` function as a loop body: each `return;` ends the round
/// (`continue`). False when one is inside a loop of the body, where `continue` would be that
/// loop's.
fn returns_as_continues(stmts: &mut [Stmt]) -> bool {
    fn inside_loop(stmts: &[Stmt]) -> bool {
        stmts.iter().any(|s| match &s.kind {
            StmtKind::Return(_) => true,
            StmtKind::If { then, els, .. } => inside_loop(then) || inside_loop(els),
            StmtKind::Loop { body, update, .. } => inside_loop(body) || inside_loop(update),
            StmtKind::Block(b) => inside_loop(b),
            _ => false,
        })
    }
    let mut ok = true;
    for s in stmts {
        match &mut s.kind {
            StmtKind::Return(_) => s.kind = StmtKind::Continue,
            StmtKind::If { then, els, .. } => {
                ok &= returns_as_continues(then);
                ok &= returns_as_continues(els);
            }
            StmtKind::Block(b) => ok &= returns_as_continues(b),
            StmtKind::Loop { body, update, .. } => {
                ok &= !inside_loop(body) && !inside_loop(update);
            }
            _ => {}
        }
    }
    ok
}

/// What a traversal binds for each entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Keys,
    Values,
    Entries,
}

/// A weakly consistent traversal of `map` running `body` for each entry, with each local of
/// `binds` set to the entry's part its view names: a cursor (`null` before the first entry),
/// then a loop whose first step is the traversal's step ([`MapMethod::Next`]) and which ends
/// when that gives `null` (`ConcurrentHashMap` holds no null key, so no entry is `null`).
/// `break` and `continue` in `body` are the loop's.
fn traversal(map: String, binds: Vec<(String, View)>, body: Vec<Stmt>, pos: Pos) -> Stmt {
    let cursor = format!("{TRAVERSAL_ENTRY}{}_{}", pos.line, pos.col);
    let var = || expr_at(ExprKind::Var(cursor.clone()), pos);
    let stmt = |kind| Stmt { kind, pos };
    let mut round = vec![
        stmt(StmtKind::Assign {
            name: cursor.clone(),
            value: expr_at(
                ExprKind::MapCall {
                    map,
                    method: MapMethod::Next,
                    args: vec![var()],
                },
                pos,
            ),
        }),
        stmt(StmtKind::If {
            cond: expr_at(
                ExprKind::Binary(
                    BinOp::Eq,
                    Box::new(var()),
                    Box::new(expr_at(ExprKind::Null, pos)),
                ),
                pos,
            ),
            then: vec![stmt(StmtKind::Break)],
            els: Vec::new(),
        }),
    ];
    for (name, view) in binds {
        let part = |getter: &str| ExprKind::Call {
            recv: Box::new(var()),
            name: getter.to_owned(),
            args: Vec::new(),
        };
        let init = match view {
            View::Entries => ExprKind::Var(cursor.clone()),
            View::Keys => part("getKey"),
            View::Values => part("getValue"),
        };
        round.push(stmt(StmtKind::Decl {
            name,
            init: Some(expr_at(init, pos)),
        }));
    }
    round.extend(body);
    stmt(StmtKind::Block(vec![
        stmt(StmtKind::Decl {
            name: cursor.clone(),
            init: Some(expr_at(ExprKind::Null, pos)),
        }),
        stmt(StmtKind::Loop {
            cond: None,
            body: round,
            update: Vec::new(),
        }),
    ]))
}

impl<'a> Lowering<'a> {
    /// The lowering of `method`'s body (an operation's, or a helper's to inline).
    fn new(
        file: &'a JavaFile,
        fields: &'a [Field],
        methods: &'a [Method<'a>],
        chain: usize,
        this_is_map: bool,
        snippet: bool,
        method: &MethodDecl,
    ) -> Lowering<'a> {
        let mut lw = Lowering {
            file,
            fields,
            this_is_map,
            snippet,
            locals: BTreeMap::new(),
            map_locals: BTreeMap::new(),
            map_calls: 0,
            unsupported: None,
            approximations: Vec::new(),
            lambda_effects: Vec::new(),
            depth: 0,
            params: method.params.iter().map(|p| p.name.clone()).collect(),
            methods,
            chain,
            hoist: None,
            inlining: Vec::new(),
            inlined: 0,
            unseen: 0,
            entries: BTreeMap::new(),
            view_locals: BTreeMap::new(),
            utilities: None,
            file_index: 0,
            utility_class: None,
            functions: BTreeSet::new(),
        };
        for p in &method.params {
            lw.declare_local(&p.name, &p.ty, None);
        }
        lw
    }

    fn pos(&self, n: Node<'a>) -> Pos {
        self.file.pos(n)
    }

    fn text(&self, n: Node<'a>) -> &'a str {
        self.file.text_of(n)
    }

    /// The text of `n`'s child `field`, empty where it has none.
    fn field_text(&self, n: Node<'a>, field: &str) -> String {
        n.child_by_field_name(field)
            .map(|x| self.text(x).to_owned())
            .unwrap_or_default()
    }

    fn unsupported(&mut self, n: Node<'a>, what: String) {
        if self.unsupported.is_none() {
            self.unsupported = Some((self.pos(n), what));
        }
    }

    /// A use of a map the lowering cannot follow (its calls are not counted): the operation
    /// is `unsupported` with `what`, and reported however few calls it counted.
    fn unseen_use(&mut self, n: Node<'a>, what: String) {
        self.unseen += 1;
        self.unsupported(n, what);
    }

    fn approximate(&mut self, n: Node<'a>, what: String) {
        self.approximations.push((self.pos(n), what));
    }

    fn declare_local(&mut self, name: &str, ty: &str, init: Option<Node>) {
        self.locals.insert(name.to_owned(), ty.to_owned());
        self.entries.remove(name);
        self.view_locals.remove(name);
        let initialised_map = init.and_then(|i| {
            if is_new_concurrent_map(self.file, i) {
                return Some(name.to_owned());
            }
            self.map_of(i)
        });
        if let Some(m) = initialised_map {
            self.map_locals.insert(name.to_owned(), m);
        } else if java::is_concurrent_map_type(ty) {
            self.map_locals.insert(name.to_owned(), name.to_owned());
        } else {
            self.map_locals.remove(name);
        }
    }

    fn field(&self, name: &str) -> Option<&'a Field> {
        if self.locals.contains_key(name) {
            return None;
        }
        self.fields.iter().find(|f| f.name == name)
    }

    /// The map an expression denotes, if it is one: a map field (`m`, `this.m`) or map local.
    fn map_of(&self, n: Node<'a>) -> Option<String> {
        // Through parentheses and casts, iteratively: they may nest as deep as the input.
        let mut n = n;
        while matches!(n.kind(), "parenthesized_expression" | "cast_expression") {
            n = n
                .child_by_field_name("value")
                .or_else(|| n.named_child(n.named_child_count().saturating_sub(1)))?;
        }
        match n.kind() {
            "identifier" => {
                let name = self.text(n);
                if let Some(m) = self.map_locals.get(name) {
                    return Some(m.clone());
                }
                self.field(name)
                    .filter(|f| f.is_map)
                    .map(|f| f.name.clone())
            }
            "field_access" => {
                let obj = n.child_by_field_name("object")?;
                let field = n.child_by_field_name("field")?;
                if obj.kind() == "this" {
                    let name = self.text(field);
                    self.fields
                        .iter()
                        .find(|f| f.name == name && f.is_map)
                        .map(|f| f.name.clone())
                } else {
                    None
                }
            }
            "this" if self.this_is_map && !self.snippet => Some(THIS_MAP.to_owned()),
            // A getter of the class that returns a map field (`getMap().get(k)`).
            "method_invocation" => {
                let own = n
                    .child_by_field_name("object")
                    .is_none_or(|o| o.kind() == "this");
                let no_args = n
                    .child_by_field_name("arguments")
                    .is_some_and(|a| a.named_child_count() == 0);
                if !own || !no_args {
                    return None;
                }
                let m = self
                    .helper(self.text(n.child_by_field_name("name")?), 0)
                    .ok()??;
                self.getter_of(m)
            }
            _ => None,
        }
    }

    /// The map field `m` returns, if its body is `return f;` or `return this.f;` alone.
    fn getter_of(&self, m: Method) -> Option<String> {
        let stmts = code_children(m.decl.body);
        let [ret] = stmts.as_slice() else {
            return None;
        };
        let e = if ret.kind() == "return_statement" {
            ret.named_child(0)?
        } else {
            return None;
        };
        let name = match e.kind() {
            "identifier" => m.file.text_of(e),
            "field_access" if e.child_by_field_name("object")?.kind() == "this" => {
                m.file.text_of(e.child_by_field_name("field")?)
            }
            _ => return None,
        };
        self.fields
            .iter()
            .find(|f| f.name == name && f.is_map)
            .map(|f| f.name.clone())
    }

    fn enter(&mut self, n: Node<'a>) -> bool {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            self.unsupported(n, format!("code nested more than {MAX_NESTING} deep"));
            return false;
        }
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ---- statements ----

    fn block(&mut self, n: Node<'a>) -> Vec<Stmt> {
        let mut out = Vec::new();
        if matches!(n.kind(), "block" | "constructor_body") {
            let mut c = n.walk();
            let kids: Vec<Node<'a>> = n.named_children(&mut c).collect();
            for k in kids {
                self.stmt(k, &mut out);
            }
        } else {
            self.stmt(n, &mut out);
        }
        out
    }

    fn stmt(&mut self, n: Node<'a>, out: &mut Vec<Stmt>) {
        if !self.enter(n) {
            return;
        }
        self.stmt_inner(n, out);
        self.leave();
    }

    fn stmt_inner(&mut self, n: Node<'a>, out: &mut Vec<Stmt>) {
        let pos = self.pos(n);
        let mk = |kind| Stmt { kind, pos };
        match n.kind() {
            "block" => {
                let b = self.block(n);
                out.push(mk(StmtKind::Block(b)));
            }
            "local_variable_declaration" => self.declaration(n, out),
            "expression_statement" => {
                if let Some(e) = n.named_child(0) {
                    let mut stmts = Vec::new();
                    self.hoisting(n, out, |lw| lw.expression_statement(e, &mut stmts));
                    out.extend(stmts);
                }
            }
            "if_statement" => {
                let cond = match n.child_by_field_name("condition") {
                    Some(c) => self.hoisting(c, out, |lw| lw.cond(n)),
                    None => self.cond(n),
                };
                let then = n
                    .child_by_field_name("consequence")
                    .map(|c| self.block(c))
                    .unwrap_or_default();
                let els = n
                    .child_by_field_name("alternative")
                    .map(|c| self.block(c))
                    .unwrap_or_default();
                out.push(mk(StmtKind::If { cond, then, els }));
            }
            "while_statement" => {
                let (pre, cond) = self.loop_cond(n.child_by_field_name("condition"), pos);
                let body = n
                    .child_by_field_name("body")
                    .map(|b| self.block(b))
                    .unwrap_or_default();
                out.push(mk(tested_loop(pre, Some(cond), body, Vec::new())));
            }
            "do_statement" => {
                // `continue` goes to the update, which tests the condition: as Java's.
                let body = n
                    .child_by_field_name("body")
                    .map(|b| self.block(b))
                    .unwrap_or_default();
                let (mut update, cond) = self.loop_cond(n.child_by_field_name("condition"), pos);
                update.push(exit_unless(cond));
                out.push(mk(StmtKind::Loop {
                    cond: None,
                    body,
                    update,
                }));
            }
            "for_statement" => self.for_statement(n, out),
            "enhanced_for_statement" => self.enhanced_for(n, out),
            // Returning the map hands it to the caller, whose calls on it are its own
            // operations (a getter): no use here.
            "return_statement" if n.named_child(0).is_some_and(|e| self.map_of(e).is_some()) => {
                out.push(mk(StmtKind::Return(Some(expr_at(ExprKind::Null, pos)))));
            }
            "return_statement" => {
                let e = n
                    .named_child(0)
                    .map(|e| self.hoisting(n, out, |lw| lw.expr(e)));
                out.push(mk(StmtKind::Return(e)));
            }
            "throw_statement" => {
                let e = match n.named_child(0) {
                    Some(e) => self.hoisting(n, out, |lw| lw.expr(e)),
                    None => expr_at(ExprKind::Null, pos),
                };
                out.push(mk(StmtKind::Throw(e)));
            }
            "break_statement" | "continue_statement" => {
                if n.named_child(0).is_some() {
                    self.unsupported(
                        n,
                        format!("a labelled `{}`", self.text(n).trim_end_matches(';')),
                    );
                }
                out.push(mk(if n.kind() == "break_statement" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                }));
            }
            "synchronized_statement" => {
                // The lock, even the map itself (`synchronized (cache)`), only orders the
                // threads that take it: no `java.util.concurrent` map locks its own monitor,
                // and taking it hands the map to no code, so it is neither a map call nor an
                // escape.
                if let Some(b) = n.child_by_field_name("body") {
                    let b = self.block(b);
                    out.push(mk(StmtKind::Block(b)));
                }
            }
            "try_statement" | "try_with_resources_statement" => self.try_statement(n, out),
            "labeled_statement" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).find(|k| k.kind() != "identifier");
                if let Some(s) = inner {
                    self.stmt(s, out);
                }
            }
            ";" | "empty_statement" | "assert_statement" | "line_comment" | "block_comment" => {}
            "local_class_declaration"
            | "class_declaration"
            | "record_declaration"
            | "enum_declaration"
            | "interface_declaration" => {
                if self.mentions_map(n) {
                    self.unseen_use(n, "a local class that uses the map".into());
                }
            }
            "explicit_constructor_invocation" => {
                let e = self.unknown_call_of(n, "super(..)");
                out.push(mk(StmtKind::Expr(e)));
            }
            "switch_expression" | "switch_statement" => self.opaque_statement(n, "`switch`", out),
            "yield_statement" => self.unsupported(n, "`yield`".into()),
            other => self.opaque_statement(n, &format!("the {}", other.replace('_', " ")), out),
        }
    }

    /// A statement not interpreted (`switch`): allowed when it neither calls a map nor leaves
    /// the statement; every local it assigns then holds an unknown value after it.
    fn opaque_statement(&mut self, n: Node<'a>, what: &str, out: &mut Vec<Stmt>) {
        if self.mentions_map(n) {
            self.unseen_use(n, format!("{what} with map calls in it"));
            return;
        }
        if contains_kind(
            n,
            &[
                "return_statement",
                "throw_statement",
                "break_statement",
                "continue_statement",
                "yield_statement",
            ],
        ) {
            self.unsupported(
                n,
                format!("{what} with a `return`, `throw`, `break` or `continue`"),
            );
            return;
        }
        let pos = self.pos(n);
        let mut assigned = BTreeSet::new();
        assigned_locals(self.file, n, &mut assigned);
        let what_text = what.to_owned();
        // Reads what it reads: its operands are evaluated as an unknown call's arguments.
        let e = self.unknown(&what_text, None, Vec::new(), pos);
        out.push(Stmt {
            kind: StmtKind::Expr(e),
            pos,
        });
        for name in assigned {
            if self.locals.contains_key(&name) {
                let value = self.unknown(&what_text, None, Vec::new(), pos);
                out.push(Stmt {
                    kind: StmtKind::Assign { name, value },
                    pos,
                });
            }
        }
    }

    /// A loop's condition (`true` when it has none), and what runs before each test of it:
    /// the assignments and helpers in it that can run as statements just before it
    /// ([`Lowering::hoisting`] with the condition as the statement).
    fn loop_cond(&mut self, c: Option<Node<'a>>, pos: Pos) -> (Vec<Stmt>, Expr) {
        let Some(c) = c else {
            return (Vec::new(), expr_at(ExprKind::Bool(true), pos));
        };
        let mut pre = Vec::new();
        let e = self.hoisting(c, &mut pre, |lw| lw.expr(c));
        (pre, e)
    }

    fn cond(&mut self, n: Node<'a>) -> Expr {
        match n.child_by_field_name("condition") {
            Some(c) => self.expr(c),
            None => expr_at(ExprKind::Bool(true), self.pos(n)),
        }
    }

    fn declaration(&mut self, n: Node<'a>, out: &mut Vec<Stmt>) {
        let ty = self.field_text(n, "type");
        let mut c = n.walk();
        let decls: Vec<Node<'a>> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let Some(name) = d.child_by_field_name("name") else {
                continue;
            };
            let name = self.text(name).to_owned();
            let value = d.child_by_field_name("value");
            // `Set<K> keys = m.keySet();`: a view traversed by a `for` later.
            if let Some(view) = value.and_then(|v| self.map_view(v)) {
                self.declare_local(&name, &ty, None);
                self.view_locals.insert(name, view);
                continue;
            }
            // A map held in a map (`Map<K, V> inner = outer.get(k);` where the outer map's
            // values are concurrent maps): calls on it are on a map the reduction does not
            // model (one map, its keys and values), so the operation is listed unsupported.
            if let Some(v) = value.filter(|v| self.is_map_from_map(*v, &ty)) {
                self.unseen_use(
                    v,
                    format!(
                        "`{name}` is a map held in a map (`{}`): maps of maps are not modelled",
                        self.text(v)
                    ),
                );
            }
            let mut pre = Vec::new();
            let init = self.hoisting(d, &mut pre, |lw| value.map(|v| lw.initializer(v)));
            out.extend(pre);
            self.declare_local(&name, &ty, value);
            if self.map_locals.contains_key(&name) {
                continue;
            }
            out.push(Stmt {
                kind: StmtKind::Decl { name, init },
                pos: self.pos(d),
            });
        }
    }

    /// Whether `v`, the initializer of a local of type `ty`, is a map held in a map: a call
    /// of a map whose declared values are concurrent maps, or of any map when the local is
    /// declared as a concurrent map itself.
    fn is_map_from_map(&self, v: Node<'a>, ty: &str) -> bool {
        if v.kind() != "method_invocation" {
            return false;
        }
        // A concurrent map a helper that uses a map gives (`ConcurrentHashMapUtils.
        // computeIfAbsent(outer, k, x -> new ConcurrentHashMap<>())`): a map's value, as no
        // getter of a map field is one (those are the map itself).
        if java::is_concurrent_map_type(ty) && self.map_of(v).is_none() && self.calls_map_helper(v)
        {
            return true;
        }
        let map = match v.child_by_field_name("object") {
            Some(o) => self.map_of(o),
            None if self.this_is_map && !self.snippet => Some(THIS_MAP.to_owned()),
            None => None,
        };
        let Some(map) = map else {
            return false;
        };
        let name = self.field_text(v, "name");
        if !MapMethod::is_name(&name) {
            return false;
        }
        let values_are_maps = self
            .fields
            .iter()
            .find(|f| f.name == map)
            .and_then(|f| value_type(&f.ty))
            .is_some_and(java::is_concurrent_map_type);
        values_are_maps || java::is_concurrent_map_type(ty)
    }

    /// Whether the call `v` is of a helper of the class, or of a utility class's static
    /// method, that may use a map (it names one, or is passed one).
    fn calls_map_helper(&self, v: Node<'a>) -> bool {
        let name = self.field_text(v, "name");
        let args = v
            .child_by_field_name("arguments")
            .map(code_children)
            .unwrap_or_default();
        let candidates = match v.child_by_field_name("object") {
            None => self.overloads(&name, args.len()),
            Some(o) if o.kind() == "this" => self.overloads(&name, args.len()),
            Some(o) => match self.utility_overloads(o, &name, args.len()) {
                Some((overloads, _)) => overloads,
                None => return false,
            },
        };
        !candidates.is_empty()
            && (args.iter().any(|a| self.map_of(*a).is_some())
                || candidates.iter().any(|m| self.may_touch_map(*m)))
    }

    /// A local's initializer (an array's items are an unknown call's arguments; a map alias
    /// is no value: its calls act on the map it denotes).
    fn initializer(&mut self, v: Node<'a>) -> Expr {
        if v.kind() == "array_initializer" {
            let items = self.children_exprs(v);
            self.unknown("an array", None, items, self.pos(v))
        } else if self.map_of(v).is_some() || is_new_concurrent_map(self.file, v) {
            expr_at(ExprKind::Null, self.pos(v))
        } else {
            self.expr(v)
        }
    }

    fn children_exprs(&mut self, n: Node<'a>) -> Vec<Expr> {
        code_children(n)
            .into_iter()
            .map(|k| {
                if k.kind() == "array_initializer" {
                    let inner = self.children_exprs(k);
                    self.unknown("an array", None, inner, self.pos(k))
                } else {
                    self.expr(k)
                }
            })
            .collect()
    }

    fn expression_statement(&mut self, e: Node<'a>, out: &mut Vec<Stmt>) {
        let pos = self.pos(e);
        match e.kind() {
            "assignment_expression" => {
                if let Some(s) = self.assignment(e) {
                    out.push(s);
                }
            }
            "update_expression" => {
                let text = self.text(e);
                let op = if text.contains("++") {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let Some(target) = e.named_child(0) else {
                    return;
                };
                let current = self.expr(target);
                let value = expr_at(
                    ExprKind::Binary(
                        op,
                        Box::new(current),
                        Box::new(expr_at(ExprKind::Int(1), pos)),
                    ),
                    pos,
                );
                if let Some(s) = self.store(target, value, pos) {
                    out.push(s);
                }
            }
            "method_invocation" if self.traversal_statement(e, out) => {}
            _ => {
                let x = self.expr(e);
                out.push(Stmt {
                    kind: StmtKind::Expr(x),
                    pos,
                });
            }
        }
    }

    /// The statements that traverse a map, lowered to a [`traversal`]: `m.forEach((k, v) ->
    /// body)` (a `return;` of the body ends its round), `m.clear()` (`ConcurrentHashMap`'s
    /// removes each entry as its traversal reaches it) and `e.setValue(x)` of an entry of a
    /// traversal (a `put` of the entry's key). Whether `e` is one of them.
    fn traversal_statement(&mut self, e: Node<'a>, out: &mut Vec<Stmt>) -> bool {
        let pos = self.pos(e);
        let Some(name) = e.child_by_field_name("name").map(|n| self.text(n)) else {
            return false;
        };
        let args: Vec<Node<'a>> = e
            .child_by_field_name("arguments")
            .map(code_children)
            .unwrap_or_default();
        let obj = e.child_by_field_name("object");
        if name == "setValue" && args.len() == 1 {
            let Some(map) = obj
                .filter(|o| o.kind() == "identifier")
                .and_then(|o| self.entries.get(self.text(o)).cloned())
            else {
                return false;
            };
            let entry = obj.map(|o| self.text(o).to_owned()).unwrap_or_default();
            self.map_calls += 1;
            self.escapes(args[0]);
            let value = self.expr(args[0]);
            let key = expr_at(
                ExprKind::Call {
                    recv: Box::new(expr_at(ExprKind::Var(entry), pos)),
                    name: "getKey".into(),
                    args: Vec::new(),
                },
                pos,
            );
            out.push(Stmt {
                kind: StmtKind::Expr(expr_at(
                    ExprKind::MapCall {
                        map,
                        method: MapMethod::Put,
                        args: vec![key, value],
                    },
                    pos,
                )),
                pos,
            });
            return true;
        }
        let map = match obj {
            Some(o) if o.kind() == "this" && self.this_is_map => Some(THIS_MAP.to_owned()),
            Some(o) => self.map_of(o),
            None if self.this_is_map => Some(THIS_MAP.to_owned()),
            None => None,
        };
        let Some(map) = map else {
            return match (obj, name, args.as_slice()) {
                (Some(o), "forEach", [f]) => self.collection_for_each(o, *f, out),
                _ => false,
            };
        };
        match (name, args.as_slice()) {
            ("clear", []) => {
                self.map_calls += 1;
                let key = format!("{TRAVERSAL_KEY}{}_{}", pos.line, pos.col);
                self.declare_local(&key, "", None);
                let remove = Stmt {
                    kind: StmtKind::Expr(expr_at(
                        ExprKind::MapCall {
                            map: map.clone(),
                            method: MapMethod::Remove,
                            args: vec![expr_at(ExprKind::Var(key.clone()), pos)],
                        },
                        pos,
                    )),
                    pos,
                };
                out.push(traversal(map, vec![(key, View::Keys)], vec![remove], pos));
                true
            }
            ("forEach", [f]) if f.kind() == "lambda_expression" => {
                self.map_calls += 1;
                let params = self.lambda_params(*f);
                if params.len() != 2 {
                    self.unsupported(
                        *f,
                        format!("`forEach` with a function of {} parameter(s)", params.len()),
                    );
                    return true;
                }
                for p in &params {
                    self.declare_local(p, "", None);
                }
                let Some(b) = f.child_by_field_name("body") else {
                    return true;
                };
                let mut body = if b.kind() == "block" {
                    self.block(b)
                } else {
                    let mut stmts = Vec::new();
                    self.expression_statement(b, &mut stmts);
                    stmts
                };
                if !returns_as_continues(&mut body) {
                    self.unsupported(
                        *f,
                        "a `return` inside a loop of a `forEach` function".into(),
                    );
                }
                let binds = vec![
                    (params[0].clone(), View::Keys),
                    (params[1].clone(), View::Values),
                ];
                out.push(traversal(map, binds, body, pos));
                true
            }
            _ => false,
        }
    }

    fn assignment(&mut self, e: Node<'a>) -> Option<Stmt> {
        let pos = self.pos(e);
        let left = e.child_by_field_name("left")?;
        let right = e.child_by_field_name("right")?;
        let op = e
            .child_by_field_name("operator")
            .map(|o| self.text(o))
            .unwrap_or("=");
        let rhs = self.expr(right);
        let value = if op == "=" {
            rhs
        } else {
            let current = self.expr(left);
            let bin = match op {
                "+=" => Some(BinOp::Add),
                "-=" => Some(BinOp::Sub),
                "*=" => Some(BinOp::Mul),
                "/=" => Some(BinOp::Div),
                "%=" => Some(BinOp::Rem),
                _ => None,
            };
            match bin {
                Some(b) => expr_at(ExprKind::Binary(b, Box::new(current), Box::new(rhs)), pos),
                None => self.unknown(op, Some(current), vec![rhs], pos),
            }
        };
        self.store(left, value, pos)
    }

    /// `target = value` as a statement.
    fn store(&mut self, target: Node<'a>, value: Expr, pos: Pos) -> Option<Stmt> {
        let name = match target.kind() {
            "identifier" => Some(self.text(target).to_owned()),
            "field_access"
                if target
                    .child_by_field_name("object")
                    .is_some_and(|o| o.kind() == "this") =>
            {
                target
                    .child_by_field_name("field")
                    .map(|f| self.text(f).to_owned())
            }
            _ => None,
        };
        // `this.f = ..` where a local or parameter `f` hides the field (`this.channel =
        // channel`): not that local; the field is set as an unknown effect, below.
        let hidden = target.kind() == "field_access"
            && name.as_ref().is_some_and(|n| self.locals.contains_key(n));
        if let Some(name) = name.filter(|_| !hidden) {
            if self.locals.contains_key(&name) || self.fields.iter().any(|f| f.name == name) {
                if self.map_locals.contains_key(&name)
                    || self.field(&name).is_some_and(|f| f.is_map)
                {
                    self.unseen_use(target, format!("the map `{name}` is reassigned"));
                    return None;
                }
                return Some(Stmt {
                    kind: StmtKind::Assign { name, value },
                    pos,
                });
            }
        }
        // A field of another object, an array element, an inherited field: an unknown
        // effect on non-map state, as a call `recv.set(value)` would be.
        let (recv, what) = match target.kind() {
            "field_access" => (
                target.child_by_field_name("object").map(|o| self.expr(o)),
                format!(
                    "set {}",
                    target
                        .child_by_field_name("field")
                        .map(|f| self.text(f))
                        .unwrap_or("")
                ),
            ),
            "array_access" => {
                let idx = target.child_by_field_name("index").map(|i| self.expr(i));
                let arr = target.child_by_field_name("array").map(|a| self.expr(a));
                let mut args = Vec::new();
                args.extend(idx);
                args.push(value);
                let recv = arr.unwrap_or_else(|| expr_at(ExprKind::This, pos));
                let e = expr_at(
                    ExprKind::Call {
                        recv: Box::new(recv),
                        name: "[]=".into(),
                        args,
                    },
                    pos,
                );
                return Some(Stmt {
                    kind: StmtKind::Expr(e),
                    pos,
                });
            }
            _ => (None, format!("set {}", self.text(target))),
        };
        let e = self.unknown(&what, recv, vec![value], pos);
        Some(Stmt {
            kind: StmtKind::Expr(e),
            pos,
        })
    }

    fn for_statement(&mut self, n: Node<'a>, out: &mut Vec<Stmt>) {
        let pos = self.pos(n);
        let mut c = n.walk();
        let inits: Vec<Node<'a>> = n.children_by_field_name("init", &mut c).collect();
        let mut outer = Vec::new();
        for i in inits {
            if i.kind() == "local_variable_declaration" {
                self.declaration(i, &mut outer);
            } else {
                self.expression_statement(i, &mut outer);
            }
        }
        let cond = n
            .child_by_field_name("condition")
            .map(|c| self.loop_cond(Some(c), pos));
        let body = n
            .child_by_field_name("body")
            .map(|b| self.block(b))
            .unwrap_or_default();
        let mut c = n.walk();
        let updates: Vec<Node<'a>> = n.children_by_field_name("update", &mut c).collect();
        let mut update = Vec::new();
        for u in updates {
            self.unhoisted(|lw| lw.expression_statement(u, &mut update));
        }
        let (pre, cond) = match cond {
            Some((pre, c)) => (pre, Some(c)),
            None => (Vec::new(), None),
        };
        outer.push(Stmt {
            kind: tested_loop(pre, cond, body, update),
            pos,
        });
        out.push(Stmt {
            kind: StmtKind::Block(outer),
            pos,
        });
    }

    /// `for (T x : items)`: iterating over a map is not modelled; over anything else, each
    /// round's `hasNext` and `next` are unknown calls.
    fn enhanced_for(&mut self, n: Node<'a>, out: &mut Vec<Stmt>) {
        let pos = self.pos(n);
        let Some(items) = n.child_by_field_name("value") else {
            return;
        };
        if let Some((map, view)) = self.map_view(items) {
            self.map_calls += 1;
            let name = self.field_text(n, "name");
            let ty = self.field_text(n, "type");
            self.declare_local(&name, &ty, None);
            if view == View::Entries {
                self.entries.insert(name.clone(), map.clone());
            }
            let body = match n.child_by_field_name("body") {
                Some(b) => self.block(b),
                None => Vec::new(),
            };
            out.push(traversal(map, vec![(name, view)], body, pos));
            return;
        }
        if self.iterates_map(items) {
            self.map_calls += 1;
            self.unsupported(
                items,
                format!(
                    "iteration over the map (`{}`): weakly consistent iterators are not modelled",
                    self.text(items)
                ),
            );
            // Its body still counts toward finding the operation.
            if let Some(b) = n.child_by_field_name("body") {
                self.block(b);
            }
            return;
        }
        let mut pre = Vec::new();
        let items_e = self.hoisting(items, &mut pre, |lw| lw.expr(items));
        out.extend(pre);
        let name = self.field_text(n, "name");
        let ty = self.field_text(n, "type");
        self.declare_local(&name, &ty, None);
        let (it, next) = self.iterator(format!("$it{}", pos.line), pos);
        let mut body = vec![Stmt {
            kind: StmtKind::Decl {
                name,
                init: Some(next),
            },
            pos,
        }];
        if let Some(b) = n.child_by_field_name("body") {
            body.extend(self.block(b));
        }
        out.push(self.iterator_loop(it, items_e, body, pos));
    }

    /// The iterator `it` of a loop over a collection at `pos`: declared, with the element a
    /// round reaches (`it.current()`, after the round's `it.next()`: see
    /// [`Self::iterator_loop`]).
    fn iterator(&mut self, it: String, pos: Pos) -> (String, Expr) {
        self.locals.insert(it.clone(), "Iterator".into());
        let var = expr_at(ExprKind::Var(it.clone()), pos);
        let next = self.unknown("current", Some(var), Vec::new(), pos);
        (it, next)
    }

    /// `for (.. : items) body` over a collection that is no map: `it = items.iterator();
    /// while (it.hasNext()) { it.next(); body }`, `body` starting with its element,
    /// `it.current()`; each an unknown call. `it.next();` as a statement is part of the
    /// iterator's identity from then on, so each round's `hasNext()` and element are calls
    /// of their own (the bounded check takes each round's test both ways, not the first
    /// round's answer for every round).
    fn iterator_loop(&mut self, it: String, items: Expr, body: Vec<Stmt>, pos: Pos) -> Stmt {
        let var = expr_at(ExprKind::Var(it.clone()), pos);
        let has_next = self.unknown("hasNext", Some(var.clone()), Vec::new(), pos);
        let advance = Stmt {
            kind: StmtKind::Expr(self.unknown("next", Some(var), Vec::new(), pos)),
            pos,
        };
        let body = std::iter::once(advance).chain(body).collect();
        let iterator = self.unknown("iterator", Some(items), Vec::new(), pos);
        Stmt {
            kind: StmtKind::Block(vec![
                Stmt {
                    kind: StmtKind::Decl {
                        name: it,
                        init: Some(iterator),
                    },
                    pos,
                },
                Stmt {
                    kind: StmtKind::Loop {
                        cond: Some(has_next),
                        body,
                        update: Vec::new(),
                    },
                    pos,
                },
            ]),
            pos,
        }
    }

    /// `items.forEach(x -> body)` (or `(k, v) -> body`) on a collection or map that is no
    /// concurrent map, whose function uses one: the loop `for (x : items) body` (over the
    /// entries, `k` and `v` their key and value), a `return;` of the body ending its round,
    /// as `Iterable.forEach`, `Map.forEach` and a sequential stream's `forEach` run it, on
    /// the calling thread; said in the notes. Whether `e` was lowered so.
    fn collection_for_each(&mut self, items: Node<'a>, f: Node<'a>, out: &mut Vec<Stmt>) -> bool {
        let params = self.lambda_params(f);
        let runs_here = !self.text(items).contains("parallel") && !self.iterates_map(items);
        if f.kind() != "lambda_expression"
            || !(1..=2).contains(&params.len())
            || !runs_here
            || !self.mentions_map(f)
        {
            return false;
        }
        let pos = self.pos(f);
        let Some(b) = f.child_by_field_name("body") else {
            return false;
        };
        let mut pre = Vec::new();
        let items_e = self.hoisting(items, &mut pre, |lw| lw.expr(items));
        out.extend(pre);
        self.lambda_effects.push((
            pos,
            format!(
                "`{}.forEach(..)` is taken to run its function on each element in turn, on the calling thread (as `Iterable.forEach`, `Map.forEach` and a sequential stream's do)",
                self.text(items)
            ),
        ));
        // Named by line and column: one may be nested in another on the same line.
        let (it, next) = self.iterator(format!("$it{}_{}", pos.line, pos.col), pos);
        let mut body = Vec::new();
        let bind = |name: &str, init: Expr| Stmt {
            kind: StmtKind::Decl {
                name: name.to_owned(),
                init: Some(init),
            },
            pos,
        };
        if let [item] = params.as_slice() {
            self.declare_local(item, "", None);
            body.push(bind(item, next));
        } else {
            let entry = format!("{it}.entry");
            self.declare_local(&entry, "", None);
            body.push(bind(&entry, next));
            for (p, part) in params.iter().zip(["getKey", "getValue"]) {
                self.declare_local(p, "", None);
                let of = expr_at(ExprKind::Var(entry.clone()), pos);
                let value = self.unknown(part, Some(of), Vec::new(), pos);
                body.push(bind(p, value));
            }
        }
        if b.kind() == "block" {
            body.extend(self.block(b));
        } else {
            self.expression_statement(b, &mut body);
        }
        if !returns_as_continues(&mut body) {
            self.unsupported(f, "a `return` inside a loop of a `forEach` function".into());
        }
        out.push(self.iterator_loop(it, items_e, body, pos));
        true
    }

    /// The map and view of `m.keySet()`, `m.values()` or `m.entrySet()` (on the class's own
    /// map, `keySet()`...): the views whose traversal is modelled.
    fn map_view(&self, n: Node<'a>) -> Option<(String, View)> {
        if n.kind() == "identifier" {
            return self.view_locals.get(self.text(n)).cloned();
        }
        if n.kind() != "method_invocation" {
            return None;
        }
        let args = n.child_by_field_name("arguments")?;
        if args.named_child_count() != 0 {
            return None;
        }
        let view = match self.text(n.child_by_field_name("name")?) {
            "keySet" | "navigableKeySet" => View::Keys,
            "values" => View::Values,
            "entrySet" => View::Entries,
            _ => return None,
        };
        let map = match n.child_by_field_name("object") {
            Some(o) if o.kind() == "this" && self.this_is_map => THIS_MAP.to_owned(),
            Some(o) => self.map_of(o)?,
            None if self.this_is_map => THIS_MAP.to_owned(),
            None => return None,
        };
        Some((map, view))
    }

    /// Whether `n` is a view of a map (`m.values()`, `m.entrySet()`, the map itself).
    fn iterates_map(&self, n: Node<'a>) -> bool {
        // Down a chain of calls, iteratively: chains may be as long as the input.
        let mut n = n;
        loop {
            if self.map_of(n).is_some() {
                return true;
            }
            if n.kind() != "method_invocation" {
                return false;
            }
            match n.child_by_field_name("object") {
                Some(obj) => n = obj,
                None => {
                    return self.this_is_map
                        && n.child_by_field_name("name")
                            .is_some_and(|m| ITERATION.contains(&self.text(m)))
                }
            }
        }
    }

    fn try_statement(&mut self, n: Node<'a>, out: &mut Vec<Stmt>) {
        let pos = self.pos(n);
        let mut stmts = Vec::new();
        if let Some(res) = n.child_by_field_name("resources") {
            let mut c = res.walk();
            let kids: Vec<Node<'a>> = res.named_children(&mut c).collect();
            for r in kids {
                if let (Some(name), Some(value)) = (
                    r.child_by_field_name("name"),
                    r.child_by_field_name("value"),
                ) {
                    let name = self.text(name).to_owned();
                    let ty = self.field_text(r, "type");
                    let init = self.expr(value);
                    self.declare_local(&name, &ty, None);
                    stmts.push(Stmt {
                        kind: StmtKind::Decl {
                            name,
                            init: Some(init),
                        },
                        pos: self.pos(r),
                    });
                }
            }
        }
        if let Some(b) = n.child_by_field_name("body") {
            stmts.extend(self.block(b));
        }
        let mut c = n.walk();
        let kids: Vec<Node<'a>> = n.named_children(&mut c).collect();
        for k in kids {
            match k.kind() {
                "catch_clause" => {
                    let body_calls_map = self.mentions_map(k);
                    if body_calls_map {
                        self.unseen_use(k, "a `catch` block that uses the map".into());
                    } else {
                        self.approximate(
                            k,
                            format!(
                                "the exceptional paths through the `catch` at line {} are not modelled",
                                self.pos(k).line
                            ),
                        );
                    }
                }
                "finally_clause" => {
                    if self.mentions_map(k) {
                        self.unseen_use(k, "a `finally` block that uses the map".into());
                    }
                    if let Some(b) = k.named_child(0) {
                        stmts.extend(self.block(b));
                    }
                }
                _ => {}
            }
        }
        out.push(Stmt {
            kind: StmtKind::Block(stmts),
            pos,
        });
    }

    /// Whether `n` names a map (a call, a use as a value) or calls a helper that may use one.
    fn mentions_map(&self, n: Node<'a>) -> bool {
        if self.mentions_map_directly(n) {
            return true;
        }
        // Or calls a helper that may use one: code not lowered must not hide its map calls.
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            let own = x.kind() == "method_invocation"
                && x.child_by_field_name("object")
                    .is_none_or(|o| o.kind() == "this");
            if let (true, Some(name)) = (own, x.child_by_field_name("name")) {
                let name = self.text(name);
                let helpers = self.methods.iter().filter(|m| m.decl.name == name);
                if helpers.copied().any(|m| self.may_touch_map(m)) {
                    return true;
                }
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        false
    }

    /// Whether a map is named inside `n` itself (helpers it calls not followed).
    fn mentions_map_directly(&self, n: Node<'a>) -> bool {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if self.map_of(x).is_some() {
                return true;
            }
            if x.kind() == "method_invocation"
                && x.child_by_field_name("object").is_none()
                && self.this_is_map
                && x.child_by_field_name("name").is_some_and(|m| {
                    MapMethod::is_name(self.text(m)) || ITERATION.contains(&self.text(m))
                })
            {
                return true;
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        false
    }

    /// A map used as a value where unknown code receives it: that code may do anything to it.
    fn escapes(&mut self, n: Node<'a>) {
        if let Some(m) = self.map_of(n) {
            if m != THIS_MAP {
                self.unseen_use(
                    n,
                    format!("the map `{m}` is passed to code the analysis does not see"),
                );
            }
        }
    }

    // ---- expressions ----

    fn unknown(&mut self, what: &str, recv: Option<Expr>, args: Vec<Expr>, pos: Pos) -> Expr {
        let recv = recv.unwrap_or_else(|| expr_at(ExprKind::This, pos));
        expr_at(
            ExprKind::Call {
                recv: Box::new(recv),
                name: what.to_owned(),
                args,
            },
            pos,
        )
    }

    fn unknown_call_of(&mut self, n: Node<'a>, what: &str) -> Expr {
        let pos = self.pos(n);
        let args = match n.child_by_field_name("arguments") {
            Some(a) => self.arguments(a),
            None => Vec::new(),
        };
        self.unknown(what, None, args, pos)
    }

    fn arguments(&mut self, args: Node<'a>) -> Vec<Expr> {
        code_children(args)
            .into_iter()
            .map(|a| {
                self.escapes(a);
                self.expr(a)
            })
            .collect()
    }

    fn expr(&mut self, n: Node<'a>) -> Expr {
        // Parentheses and casts are their operand, positioned as it is.
        let inner = match n.kind() {
            "parenthesized_expression" => n.named_child(0),
            "cast_expression" => n.child_by_field_name("value"),
            _ => None,
        };
        if let Some(inner) = inner {
            if !self.enter(n) {
                return expr_at(ExprKind::Null, self.pos(n));
            }
            let e = self.expr(inner);
            self.leave();
            return e;
        }
        // A binary expression stands at its operator and a call at its method's name, so that
        // a reason points at what it is about.
        let at = match n.kind() {
            "binary_expression" => n.child_by_field_name("operator"),
            "method_invocation" => n.child_by_field_name("name"),
            _ => None,
        };
        let pos = self.pos(at.unwrap_or(n));
        if !self.enter(n) {
            return expr_at(ExprKind::Null, pos);
        }
        let kind = self.expr_kind(n, pos);
        self.leave();
        expr_at(kind, pos)
    }

    fn expr_kind(&mut self, n: Node<'a>, pos: Pos) -> ExprKind {
        if let Some(l) = literal(self.file, n) {
            return l;
        }
        match n.kind() {
            "this" | "super" => ExprKind::This,
            "identifier" => self.name(n),
            "parenthesized_expression" => match n.named_child(0) {
                Some(inner) => self.expr(inner).kind,
                None => ExprKind::Null,
            },
            "cast_expression" => match n.child_by_field_name("value") {
                Some(v) => self.expr(v).kind,
                None => ExprKind::Null,
            },
            "unary_expression" => {
                let operand = n
                    .child_by_field_name("operand")
                    .map(|o| self.expr(o))
                    .unwrap_or_else(|| expr_at(ExprKind::Null, pos));
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                match op {
                    "!" => ExprKind::Not(Box::new(operand)),
                    "-" => ExprKind::Neg(Box::new(operand)),
                    "+" => operand.kind,
                    _ => self.unknown(op, Some(operand), Vec::new(), pos).kind,
                }
            }
            "binary_expression" => self.binary(n, pos),
            "ternary_expression" => {
                let c = n.child_by_field_name("condition");
                let a = n.child_by_field_name("consequence");
                let b = n.child_by_field_name("alternative");
                match (c, a, b) {
                    (Some(c), Some(a), Some(b)) => {
                        let c = self.expr(c);
                        if (self.needs_hoisting(a) || self.needs_hoisting(b)) && self.packable(n) {
                            return self.choice(n, c, a, b, pos);
                        }
                        let (a, b) = self.unhoisted(|lw| (lw.expr(a), lw.expr(b)));
                        ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b))
                    }
                    _ => ExprKind::Null,
                }
            }
            "method_invocation" => self.call(n, pos),
            "object_creation_expression" => {
                let class = n
                    .child_by_field_name("type")
                    .map(|t| java::base_type(self.text(t)).to_owned())
                    .unwrap_or_default();
                if let Some(body) = java::anonymous_body(n) {
                    if self.mentions_map(body) {
                        self.unseen_use(body, "an anonymous class that uses the map".into());
                    }
                }
                let args = match n.child_by_field_name("arguments") {
                    Some(a) => self.arguments(a),
                    None => Vec::new(),
                };
                ExprKind::New { class, args }
            }
            "field_access" => {
                let obj = n.child_by_field_name("object");
                let field = self.field_text(n, "field");
                match obj {
                    // A field hidden by a local of its name: read as an unknown value
                    // (any value), never as that local.
                    Some(o) if o.kind() == "this" && self.locals.contains_key(&field) => {
                        if self.fields.iter().any(|f| f.name == field && f.is_map) {
                            self.unseen_use(n, format!("the map `{field}` used as a value"));
                        }
                        self.unknown(&format!("get {field}"), None, Vec::new(), pos)
                            .kind
                    }
                    Some(o) if o.kind() == "this" || o.kind() == "super" => {
                        if let Some(f) = self.fields.iter().find(|f| f.name == field) {
                            if f.is_map {
                                self.unseen_use(n, format!("the map `{field}` used as a value"));
                            }
                            ExprKind::Var(field)
                        } else {
                            ExprKind::Opaque(self.text(n).to_owned())
                        }
                    }
                    Some(o) if self.is_type_name(o) => ExprKind::Opaque(self.text(n).to_owned()),
                    Some(o) => {
                        let recv = self.expr(o);
                        self.unknown(&format!("get {field}"), Some(recv), Vec::new(), pos)
                            .kind
                    }
                    None => ExprKind::Opaque(self.text(n).to_owned()),
                }
            }
            "class_literal" | "method_reference" => ExprKind::Opaque(self.text(n).to_owned()),
            "lambda_expression" => {
                if self.mentions_map(n) {
                    self.unseen_use(
                        n,
                        "a lambda that uses the map, passed to code the analysis does not see"
                            .into(),
                    );
                }
                ExprKind::Opaque(format!("lambda@{}", pos.line))
            }
            "array_access" => {
                let arr = n.child_by_field_name("array").map(|a| self.expr(a));
                let idx = n.child_by_field_name("index").map(|i| self.expr(i));
                self.unknown("[]", arr, idx.into_iter().collect(), pos).kind
            }
            "array_creation_expression" | "array_initializer" => {
                let args = self.children_exprs(n);
                self.unknown("new array", None, args, pos).kind
            }
            "instanceof_expression" => {
                let left = n.child_by_field_name("left").map(|l| self.expr(l));
                if let Some(name) = n.child_by_field_name("name") {
                    let name = self.text(name).to_owned();
                    self.declare_local(&name, "", None);
                    self.unsupported(n, "an `instanceof` pattern that declares a variable".into());
                }
                let ty = self.field_text(n, "right");
                self.unknown(&format!("instanceof {ty}"), left, Vec::new(), pos)
                    .kind
            }
            "update_expression" if self.hoistable_assignment(n) => {
                // `++x` is `x` after it; `x++` is a copy taken before it.
                let Some(target) = n.named_child(0) else {
                    return ExprKind::Null;
                };
                let name = self.text(target).to_owned();
                let text = self.text(n).trim_start();
                let prefix = text.starts_with("++") || text.starts_with("--");
                let op = if text.contains("++") {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let current = self.expr(target);
                let mut stmts = Vec::new();
                let value = if prefix {
                    ExprKind::Var(name)
                } else {
                    let copy = format!("$old{}_{}", pos.line, pos.col);
                    self.locals.insert(copy.clone(), String::new());
                    stmts.push(Stmt {
                        kind: StmtKind::Decl {
                            name: copy.clone(),
                            init: Some(current.clone()),
                        },
                        pos,
                    });
                    ExprKind::Var(copy)
                };
                let one = expr_at(ExprKind::Int(1), pos);
                let next = expr_at(ExprKind::Binary(op, Box::new(current), Box::new(one)), pos);
                stmts.extend(self.store(target, next, pos));
                let h = self.hoist.as_mut().expect("hoistable");
                h.stmts.extend(stmts);
                h.inlined.push(n.byte_range());
                value
            }
            "assignment_expression" if self.hoistable_assignment(n) => match self.assignment(n) {
                Some(s) => {
                    let name = match &s.kind {
                        StmtKind::Assign { name, .. } => Some(name.clone()),
                        _ => None,
                    };
                    let h = self.hoist.as_mut().expect("hoistable");
                    h.stmts.push(s);
                    h.inlined.push(n.byte_range());
                    match name {
                        Some(name) => ExprKind::Var(name),
                        None => ExprKind::Null,
                    }
                }
                None => ExprKind::Null,
            },
            "assignment_expression" | "update_expression" => {
                self.unsupported(
                    n,
                    format!("an assignment inside an expression (`{}`)", self.text(n)),
                );
                // Its map calls still count toward finding the operation.
                if let Some(r) = n.child_by_field_name("right") {
                    self.expr(r);
                }
                ExprKind::Null
            }
            "switch_expression" => {
                if self.mentions_map(n) {
                    self.unseen_use(n, "a `switch` expression with map calls in it".into());
                }
                self.unknown("switch", None, Vec::new(), pos).kind
            }
            "string_literal" | "text_block" => ExprKind::Str(string_body(self.text(n))),
            other => {
                if self.mentions_map(n) {
                    self.unseen_use(
                        n,
                        format!("the {} with map calls in it", other.replace('_', " ")),
                    );
                }
                ExprKind::Opaque(self.text(n).to_owned())
            }
        }
    }

    fn is_type_name(&self, n: Node<'a>) -> bool {
        match n.kind() {
            "identifier" => {
                let t = self.text(n);
                !self.locals.contains_key(t)
                    && !self.fields.iter().any(|f| f.name == t)
                    && t.starts_with(|c: char| c.is_ascii_uppercase())
            }
            "scoped_identifier" | "type_identifier" | "generic_type" => true,
            // `a.b.C`: down the chain iteratively (it may be as long as the input).
            "field_access" => {
                let mut n = n;
                while let Some(o) = n.child_by_field_name("object") {
                    if o.kind() != "field_access" {
                        return self.is_type_name(o) || self.is_package(o);
                    }
                    n = o;
                }
                false
            }
            _ => false,
        }
    }

    fn is_package(&self, n: Node<'a>) -> bool {
        n.kind() == "identifier" && {
            let t = self.text(n);
            !self.locals.contains_key(t)
                && !self.fields.iter().any(|f| f.name == t)
                && t.starts_with(|c: char| c.is_ascii_lowercase())
        }
    }

    fn name(&mut self, n: Node<'a>) -> ExprKind {
        let name = self.text(n).to_owned();
        if let Some((map, _)) = self.view_locals.get(&name) {
            let what =
                format!("`{name}`, a view of the map `{map}`, used other than by a `for` over it");
            self.unseen_use(n, what);
            return ExprKind::Null;
        }
        if self.locals.contains_key(&name) {
            if self.map_locals.contains_key(&name) {
                self.unseen_use(n, format!("the map `{name}` used as a value"));
            }
            return ExprKind::Var(name);
        }
        match self.field(&name) {
            Some(f) if f.is_map => {
                self.unseen_use(n, format!("the map `{name}` used as a value"));
                ExprKind::Var(name)
            }
            Some(_) => ExprKind::Var(name),
            // Not declared here: a constant of an enclosing class, a static import, an
            // inherited field. Taken as one value.
            None => match self.utility_class {
                Some(class) => ExprKind::Opaque(format!("{class}.{name}")),
                None => ExprKind::Opaque(name),
            },
        }
    }

    fn binary(&mut self, n: Node<'a>, pos: Pos) -> ExprKind {
        let (Some(l), Some(r)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return ExprKind::Null;
        };
        let op = n
            .child_by_field_name("operator")
            .map(|o| self.text(o))
            .unwrap_or("");
        let a = self.expr(l);
        // The right of `&&` and `||` runs only on some paths: what it assigns or inlines can
        // only run as statements inside a test of the left (see [`Lowering::short_circuit`]);
        // else nothing is hoisted from it.
        if matches!(op, "&&" | "||") && self.needs_hoisting(r) && self.packable(n) {
            return self.short_circuit(n, op == "&&", a, r, pos);
        }
        let b = if matches!(op, "&&" | "||") {
            self.unhoisted(|lw| lw.expr(r))
        } else {
            self.expr(r)
        };
        let bin = match op {
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
            other => return self.unknown(other, Some(a), vec![b], pos).kind,
        };
        ExprKind::Binary(bin, Box::new(a), Box::new(b))
    }

    fn call(&mut self, n: Node<'a>, pos: Pos) -> ExprKind {
        let name = self.field_text(n, "name");
        let obj = n.child_by_field_name("object");
        let arg_nodes: Vec<Node<'a>> = n
            .child_by_field_name("arguments")
            .map(code_children)
            .unwrap_or_default();
        // Which map, if the receiver is one.
        let map = match obj {
            Some(o) if o.kind() == "this" && self.this_is_map => Some(THIS_MAP.to_owned()),
            Some(o) => self.map_of(o).or_else(|| {
                // A snippet's undeclared receiver of a map method is a map (as in the paper's
                // figures, where declarations are left out).
                let undeclared = o.kind() == "identifier"
                    && !self.locals.contains_key(self.text(o))
                    && !self.fields.iter().any(|f| f.name == self.text(o));
                (self.snippet && undeclared && MapMethod::is_name(&name))
                    .then(|| self.text(o).to_owned())
            }),
            None if self.this_is_map
                && (MapMethod::is_name(&name) || ITERATION.contains(&name.as_str())) =>
            {
                Some(THIS_MAP.to_owned())
            }
            None => None,
        };
        if let Some(map) = map {
            self.map_calls += 1;
            return self.map_call(n, map, &name, &arg_nodes);
        }
        if name == "equals" && arg_nodes.len() == 1 {
            if let Some(o) = obj {
                let a = self.expr(o);
                let b = self.expr(arg_nodes[0]);
                return ExprKind::Equals(Box::new(a), Box::new(b));
            }
        }
        // `Objects.requireNonNull(p, ..)`, Guava's `checkNotNull(p, ..)`: the parameter itself.
        // Inputs are never null in what is verified (a null key or value makes the map throw
        // as the check does), so the check only ever returns its argument.
        let null_check = matches!(name.as_str(), "requireNonNull" | "checkNotNull")
            && obj.is_none_or(|o| {
                matches!(
                    self.text(o),
                    "Objects" | "Preconditions" | "java.util.Objects"
                ) || self.text(o).ends_with(".Preconditions")
            });
        if null_check {
            if let Some(&a) = arg_nodes.first() {
                if a.kind() == "identifier" && self.params.contains(self.text(a)) {
                    return ExprKind::Var(self.text(a).to_owned());
                }
            }
        }
        // `Optional.ofNullable(x).orElse(d)`: `x` unless it is null, then `d`.
        if let (Some(o), "orElse", [d]) = (obj, name.as_str(), arg_nodes.as_slice()) {
            if let Some(e) = self.or_else(o, *d) {
                return e;
            }
        }
        let own = obj.is_none_or(|o| o.kind() == "this");
        if own {
            let chosen = match self.helper(&name, arg_nodes.len()) {
                Ok(m) => m,
                Err(Ambiguous) => {
                    let m = self.overload(&name, &arg_nodes);
                    let uses_map = m.is_none()
                        && self
                            .methods
                            .iter()
                            .filter(|m| {
                                m.decl.name == name && m.decl.params.len() == arg_nodes.len()
                            })
                            .any(|m| self.may_touch_map(*m));
                    if uses_map {
                        self.unseen += 1;
                        self.unsupported(
                            n,
                            format!(
                                "`{}` calls one of the overloads of `{name}` with {} parameter(s), which use the map: which one is not followed",
                                self.text(n),
                                arg_nodes.len()
                            ),
                        );
                    }
                    m
                }
            };
            if let Some(m) = chosen {
                if let Some(e) = self.inline(n, m, &arg_nodes, pos) {
                    return e;
                }
            }
        }
        if let Some(m) = obj.and_then(|o| self.utility_method(n, o, &name, &arg_nodes)) {
            if let Some(e) = self.inline(n, m, &arg_nodes, pos) {
                return e;
            }
        }
        let recv = match obj {
            Some(o) if self.is_type_name(o) || o.kind() == "super" => Some(expr_at(
                ExprKind::Opaque(self.text(o).to_owned()),
                self.pos(o),
            )),
            Some(o) => Some(self.expr(o)),
            None => None,
        };
        let mut args = Vec::new();
        for a in arg_nodes {
            self.escapes(a);
            args.push(self.expr(a));
        }
        self.unknown(&name, recv, args, pos).kind
    }

    /// The method of the class a call `name(..)` of `arity` arguments names, when only one
    /// may be ([`Self::overloads`]), or an error when several (overloads are told apart by
    /// types: [`Self::overload`]).
    fn helper(&self, name: &str, arity: usize) -> Result<Option<Method<'a>>, Ambiguous> {
        match self.overloads(name, arity).as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            _ => Err(Ambiguous),
        }
    }

    /// The static method of a utility class of the files given (see [`Utilities`]) that the
    /// call `n`, `Type.name(args)` with `ty` its `Type`, names: the only one of its name and
    /// arity, or the overload the arguments' types tell. Among overloads not told apart of
    /// which one may use a map, the operation is `unsupported`.
    fn utility_method(
        &mut self,
        n: Node<'a>,
        ty: Node<'a>,
        name: &str,
        args: &[Node<'a>],
    ) -> Option<Method<'a>> {
        let (overloads, varargs) = self.utility_overloads(ty, name, args.len())?;
        if let [one] = overloads.as_slice() {
            // A variable arity one may take its last arguments as an array: not followed.
            return (!one.decl.varargs).then_some(*one);
        }
        let chosen = self.overload_among(&overloads, varargs, args);
        let uses_map = || {
            overloads.iter().any(|m| self.may_touch_map(*m))
                || args.iter().any(|a| self.map_of(*a).is_some())
        };
        if chosen.is_none() && !overloads.is_empty() && uses_map() {
            self.unseen += 1;
            self.unsupported(
                n,
                format!(
                    "`{}` calls one of the overloads of `{name}` with {} parameter(s), which use the map: which one is not followed",
                    self.text(n),
                    args.len()
                ),
            );
        }
        chosen
    }

    /// When `ty` names a utility class of the files given, its static methods `name` of
    /// `arity` parameters, and whether any method of the name has variable arity.
    fn utility_overloads(
        &self,
        ty: Node<'a>,
        name: &str,
        arity: usize,
    ) -> Option<(Vec<Method<'a>>, bool)> {
        if !self.is_type_name(ty) {
            return None;
        }
        let utilities = self.utilities?;
        let class = &utilities.classes[utilities.class_named(self.text(ty), self.file_index)?];
        let of_name = || class.methods.iter().filter(|m| m.decl.name == name);
        let overloads = of_name()
            .filter(|m| m.decl.params.len() == arity)
            .copied()
            .collect();
        Some((overloads, of_name().any(|m| m.decl.varargs)))
    }

    /// The methods a call `name(..)` of `arity` arguments may name, as Java looks them up:
    /// those of the class and its superclasses when one of them declares the name (each
    /// signature once, the nearest declaration: an override hides what it overrides), else
    /// those of the nearest enclosing class that declares it.
    fn overloads(&self, name: &str, arity: usize) -> Vec<Method<'a>> {
        let Some(first) = self.methods.iter().find(|m| m.decl.name == name) else {
            return Vec::new();
        };
        let in_scope = |m: &Method<'a>| {
            if first.class < self.chain {
                m.class < self.chain
            } else {
                m.class == first.class
            }
        };
        let mut out: Vec<Method<'a>> = Vec::new();
        for m in self.methods.iter().filter(|m| m.decl.name == name) {
            let overridden = out.iter().any(|o| signature(o.decl) == signature(m.decl));
            if in_scope(m) && m.decl.params.len() == arity && !overridden {
                out.push(*m);
            }
        }
        out
    }

    /// Among the overloads of `name` with as many parameters as `args` ([`Self::overloads`]),
    /// the only one whose parameter types are the arguments' static types
    /// exactly (`null` standing for any reference type), when every argument's type is known
    /// (a literal, a declared local or parameter, a field, `new T(..)`, `Integer.valueOf(..)`).
    /// Java's resolution picks that one in a program that compiles: it is applicable in the
    /// first phase, and an overload more specific than it would match as exactly. `None` when
    /// none or several match, or some argument's type is not known.
    fn overload_by_types(&self, overloads: &[Method<'a>], args: &[Node<'a>]) -> Option<Method<'a>> {
        let types: Vec<String> = args
            .iter()
            .map(|a| self.argument_type(*a))
            .collect::<Option<_>>()?;
        let mut exact = overloads.iter().filter(|m| {
            m.decl.params.iter().zip(&types).all(|(p, t)| {
                let p = erasure(&p.ty);
                p == *t || (t == NULL_TYPE && !is_primitive(&p))
            })
        });
        let found = exact.next()?;
        exact.next().is_none().then_some(*found)
    }

    /// The overload of `name` a call with `args` names, when the arguments' static types
    /// tell: [`Self::overload_by_types`], else [`Self::overload_by_applicability`].
    fn overload(&self, name: &str, args: &[Node<'a>]) -> Option<Method<'a>> {
        let overloads = self.overloads(name, args.len());
        let varargs = self
            .methods
            .iter()
            .any(|m| m.decl.name == name && m.decl.varargs);
        self.overload_among(&overloads, varargs, args)
    }

    /// The one of `overloads` (a name's methods of one arity) a call with `args` names, when
    /// the arguments' static types tell: [`Self::overload_by_types`], else (no method of the
    /// name has variable arity: `varargs` false) [`Self::overload_by_applicability`].
    fn overload_among(
        &self,
        overloads: &[Method<'a>],
        varargs: bool,
        args: &[Node<'a>],
    ) -> Option<Method<'a>> {
        self.overload_by_types(overloads, args).or_else(|| {
            (!varargs)
                .then(|| self.overload_by_applicability(overloads, args))
                .flatten()
        })
    }

    /// Among the overloads of `name` with as many parameters as `args` ([`Self::overloads`]),
    /// the only one each argument may be passed to, the types of some
    /// arguments unknown (`getParameter(KEY, "")` among `getParameter(String, String)`,
    /// `getParameter(String, int)`, ...). Java picks an applicable overload in a program that
    /// compiles; when only one can be applicable, it is that one. [`may_pass`] errs towards
    /// "may", so the one left is never a guess. `None` when none or several are left. Not
    /// asked when a method of the name has variable arity (Java's third phase could pick it
    /// whatever its arity).
    fn overload_by_applicability(
        &self,
        overloads: &[Method<'a>],
        args: &[Node<'a>],
    ) -> Option<Method<'a>> {
        let types: Vec<Option<String>> = args.iter().map(|a| self.argument_type(*a)).collect();
        let mut applicable = overloads.iter().filter(|m| {
            m.decl
                .params
                .iter()
                .zip(&types)
                .all(|(p, t)| t.as_deref().is_none_or(|t| may_pass(t, &erasure(&p.ty))))
        });
        let found = applicable.next()?;
        applicable.next().is_none().then_some(*found)
    }

    /// [`Self::static_type`], or [`NULL_TYPE`] for `null`.
    fn argument_type(&self, a: Node<'a>) -> Option<String> {
        if a.kind() == "null_literal" {
            return Some(NULL_TYPE.to_owned());
        }
        self.static_type(a)
    }

    /// The static type of an argument, erased, when the text says it.
    fn static_type(&self, n: Node<'a>) -> Option<String> {
        let ty = match n.kind() {
            "string_literal" => "String".to_owned(),
            "decimal_integer_literal" | "hex_integer_literal" => {
                if self.text(n).ends_with(['l', 'L']) {
                    "long".to_owned()
                } else {
                    "int".to_owned()
                }
            }
            "true" | "false" => "boolean".to_owned(),
            "character_literal" => "char".to_owned(),
            "identifier" => {
                let name = self.text(n);
                match self.locals.get(name) {
                    Some(t) => t.clone(),
                    None => self.fields.iter().find(|f| f.name == name)?.ty.clone(),
                }
            }
            "object_creation_expression" => self.text(n.child_by_field_name("type")?).to_owned(),
            "cast_expression" => self.text(n.child_by_field_name("type")?).to_owned(),
            // `new T[n][]`, `new T[] {..}`: an array of as many dimensions as brackets.
            "array_creation_expression" => {
                let ty = self.text(n.child_by_field_name("type")?);
                let mut c = n.walk();
                let dims: usize = n
                    .named_children(&mut c)
                    .map(|d| match d.kind() {
                        "dimensions_expr" => 1,
                        "dimensions" => self.text(d).matches('[').count(),
                        _ => 0,
                    })
                    .sum();
                format!("{ty}{}", "[]".repeat(dims.max(1)))
            }
            "parenthesized_expression" => return self.static_type(n.named_child(0)?),
            // `a + b` is a String when either side is one (Java's string concatenation).
            "binary_expression" => {
                let plus = n
                    .child_by_field_name("operator")
                    .is_some_and(|o| self.text(o) == "+");
                let (l, r) = (
                    n.child_by_field_name("left")?,
                    n.child_by_field_name("right")?,
                );
                let string = |x| self.static_type(x).is_some_and(|t| t == "String");
                if !(plus && (string(l) || string(r))) {
                    return None;
                }
                "String".to_owned()
            }
            // A method of the class: its declared result type, when the call names one
            // method (an overload or a generic result stays unknown).
            "method_invocation"
                if n.child_by_field_name("object")
                    .is_none_or(|o| o.kind() == "this") =>
            {
                let name = self.text(n.child_by_field_name("name")?);
                let arity = n
                    .child_by_field_name("arguments")
                    .map_or(0, |a| code_children(a).len());
                let m = self.helper(name, arity).ok()??;
                let generic = m
                    .decl
                    .body
                    .parent()
                    .and_then(|d| d.child_by_field_name("type_parameters"))
                    .is_some();
                if generic || m.decl.ret == "void" {
                    return None;
                }
                m.decl.ret.clone()
            }
            // The boxing factories of java.lang: `Integer.valueOf(x)` is an Integer.
            "method_invocation" => {
                let class = self.text(n.child_by_field_name("object")?);
                let boxes = [
                    "Integer",
                    "Long",
                    "Short",
                    "Byte",
                    "Character",
                    "Boolean",
                    "Double",
                    "Float",
                    "String",
                ];
                let named = self.text(n.child_by_field_name("name")?) == "valueOf";
                if !(named && boxes.contains(&class)) {
                    return None;
                }
                class.to_owned()
            }
            _ => return None,
        };
        let ty = erasure(&ty);
        // `var` and lambda parameters have no declared type.
        (!ty.is_empty() && ty != "var").then_some(ty)
    }

    /// Whether running `m` may act on a map: it names one, runs code that receives one, or
    /// calls a method of the class that may (checked on the text, before anything is
    /// lowered; each method once, so recursion ends).
    fn may_touch_map(&self, m: Method<'a>) -> bool {
        match self.utilities.and_then(|u| u.cached(&m)) {
            Some((touches, _)) => *touches.get_or_init(|| self.may_touch_map_uncached(m)),
            None => self.may_touch_map_uncached(m),
        }
    }

    fn may_touch_map_uncached(&self, m: Method<'a>) -> bool {
        let mut seen: Vec<Method<'a>> = Vec::new();
        let mut todo = vec![m];
        while let Some(m) = todo.pop() {
            if seen.iter().any(|s| std::ptr::eq(s.decl, m.decl)) {
                continue;
            }
            seen.push(m);
            let sub = self.sub(m);
            if sub.mentions_map_directly(m.decl.body) {
                return true;
            }
            let mut stack = vec![m.decl.body];
            while let Some(x) = stack.pop() {
                let own = x.kind() == "method_invocation"
                    && x.child_by_field_name("object")
                        .is_none_or(|o| o.kind() == "this");
                if let (true, Some(n)) = (own, x.child_by_field_name("name")) {
                    let name = m.file.text_of(n);
                    todo.extend(sub.methods.iter().filter(|h| h.decl.name == name));
                }
                let mut c = x.walk();
                stack.extend(x.named_children(&mut c));
            }
        }
        false
    }

    /// A lowering of `m`'s body as the class's code (a utility class's method as its own
    /// class's code, see [`Utilities`]), within this one's nesting.
    fn sub(&self, m: Method<'a>) -> Lowering<'a> {
        let utility = m
            .utility
            .zip(self.utilities)
            .map(|(u, all)| &all.classes[u]);
        let mut sub = match utility {
            Some(u) => {
                let mut sub = Lowering::new(m.file, &[], &u.methods, 1, false, false, m.decl);
                sub.utility_class = Some(u.name);
                sub
            }
            None => Lowering::new(
                m.file,
                self.fields,
                self.methods,
                self.chain,
                self.this_is_map,
                self.snippet,
                m.decl,
            ),
        };
        sub.utilities = self.utilities;
        sub.file_index = m.file_index;
        sub.depth = self.depth;
        sub.inlining = self.inlining.clone();
        sub.inlined = self.inlined;
        sub
    }

    /// A call of the class's method `m` (a helper) in place: its arguments evaluated into its
    /// parameters, its body run as statements before the statement being lowered, its result
    /// the call's value, its map calls the operation's own. Only where that runs exactly what
    /// Java runs: the call is reached unconditionally by its statement, and nothing with an
    /// effect is evaluated before it there (else its statements would run too early). A helper
    /// that uses no map is inlined only when its body is guards and one `return` (a key that
    /// flows through it stays the key); with more, it stays an unknown call, as before.
    /// `None`: not inlined, and the call is an unknown call (the helper uses no map);
    /// a helper that may use a map and cannot be inlined makes the operation `unsupported`.
    fn inline(
        &mut self,
        call: Node<'a>,
        m: Method<'a>,
        args: &[Node<'a>],
        pos: Pos,
    ) -> Option<ExprKind> {
        let touches = self.may_touch_map(m);
        let why_not = if self.inlining.contains(&signature(m.decl)) {
            Some("a recursive call: not followed")
        } else if self.inlining.len() > INLINE_DEPTH {
            Some("helpers nested deeper than the inlining bound (4)")
        } else {
            match &self.hoist {
                None => Some("a call evaluated conditionally or repeatedly (a branch of `&&`, `||`, `?:`, a lambda)"),
                Some(h) if effect_before(h, call) => Some("a call after other calls in its statement"),
                Some(_) => None,
            }
        };
        if let Some(why) = why_not {
            if touches {
                self.unseen += 1;
                self.unsupported(
                    call,
                    format!(
                        "`{}` calls the helper `{}` that uses the map, in {why}",
                        self.text(call),
                        m.decl.name
                    ),
                );
            }
            return None;
        }
        // A utility's method that uses no map and is passed none is lowered alike at every
        // call: whether it is inlined is known after the first.
        // Per argument, the map it is or the arity of the function it is (found once).
        let passed: Vec<(Option<String>, Option<usize>)> = args
            .iter()
            .zip(&m.decl.params)
            .map(|(a, p)| match self.map_of(*a) {
                Some(map) => (Some(map), None),
                None => (None, self.passed_function_arity(*a, &p.ty)),
            })
            .collect();
        let passed_no_map = passed.iter().all(|(map, _)| map.is_none());
        let simple = (!touches && passed_no_map)
            .then(|| self.utilities.and_then(|u| u.cached(&m)))
            .flatten()
            .map(|(_, simple)| simple);
        if simple.and_then(|s| s.get()) == Some(&false) {
            return None;
        }
        // The body first (its shape decides whether to inline), then the arguments, in
        // order, in the caller's context; a map argument makes the parameter an alias of that
        // map, a function one applied where the helper applies it.
        let mut sub = self.sub(m);
        for (p, passed) in m.decl.params.iter().zip(&passed) {
            match passed {
                (Some(map), _) => {
                    sub.map_locals.insert(p.name.clone(), map.clone());
                }
                (None, Some(_)) => {
                    sub.functions.insert(p.name.clone());
                }
                (None, None) => {}
            }
        }
        sub.inlining.push(signature(m.decl));
        let body = sub.block(m.decl.body);
        if let Some(s) = simple {
            let _ = s.set(sub.simple_body(&body));
        }
        if !touches && !sub.simple_body(&body) {
            // Lowered for nothing: the call stays unknown, and what the lowering saw of it
            // (unsupported constructs included) is dropped with it.
            return None;
        }
        self.inlined = sub.inlined;
        let mut bound = Vec::new();
        let mut functions = Vec::new();
        for ((a, p), (_, function)) in args.iter().zip(&m.decl.params).zip(&passed) {
            if sub.map_locals.contains_key(&p.name) {
                continue;
            }
            if let Some(arity) = *function {
                let f = self.unhoisted(|lw| lw.function_inner(*a, arity, &m.decl.name));
                functions.push((p.name.clone(), f));
            } else {
                bound.push((p.name.clone(), self.expr(*a)));
            }
        }
        self.inlined += 1;
        let tag = format!("{}#{}", m.decl.name, self.inlined);
        self.map_calls += sub.map_calls;
        self.unseen += sub.unseen;
        // What the lowering of a helper of another class's file, or of a utility class,
        // found is said at the call (its lines are not the operation's).
        let elsewhere = m.file_index != self.file_index || m.utility.is_some();
        let here = |(at, why): (Pos, String)| {
            if !elsewhere {
                return (at, why);
            }
            let why = format!(
                "in `{}.{}` (line {} of its file): {why}",
                m.class_name, m.decl.name, at.line
            );
            (pos, why)
        };
        if self.unsupported.is_none() {
            self.unsupported = sub.unsupported.take().map(here);
        }
        self.approximations
            .extend(sub.approximations.drain(..).map(here));
        self.lambda_effects
            .extend(sub.lambda_effects.drain(..).map(here));
        // The helper's names, its own.
        let mut assigned = BTreeSet::new();
        walk_stmts(&body, &mut |t, _| {
            if let Some(t) = t {
                assigned.insert(t.to_owned());
            }
        });
        let mut renaming = Renaming::default();
        let mut pre = Vec::new();
        for (name, value) in bound {
            // A value that cannot change while the helper runs is the parameter itself: a
            // constant, a local of the caller (the helper cannot see it), or a final field.
            let fixed = match &value.kind {
                ExprKind::Null
                | ExprKind::Bool(_)
                | ExprKind::Int(_)
                | ExprKind::Str(_)
                | ExprKind::Opaque(_)
                | ExprKind::This => true,
                ExprKind::Var(v) => {
                    self.locals.contains_key(v)
                        || self.fields.iter().any(|f| &f.name == v && f.is_final)
                }
                _ => false,
            };
            if fixed && !assigned.contains(&name) {
                renaming.values.insert(name, value);
            } else {
                let local = format!("{tag}.{name}");
                renaming.locals.insert(name.clone(), local.clone());
                pre.push(Stmt {
                    kind: StmtKind::Decl {
                        name: local,
                        init: Some(value),
                    },
                    pos,
                });
            }
        }
        for name in sub.locals.keys() {
            if !renaming.values.contains_key(name) && !renaming.locals.contains_key(name) {
                renaming
                    .locals
                    .insert(name.clone(), format!("{tag}.{name}"));
            }
        }
        renaming.functions.extend(functions);
        if elsewhere {
            renaming.at = Some(pos);
        }
        let mut body = body;
        renaming.stmts(&mut body);
        // A statement that only names a value (`Objects.requireNonNull(func);`, the lambda
        // now an opaque value) does nothing: no step of its own.
        body.retain(|s| {
            !matches!(&s.kind, StmtKind::Expr(e)
                if matches!(e.kind, ExprKind::Opaque(_) | ExprKind::Var(_) | ExprKind::Null))
        });
        // Its result: the returned expression in place when it is the body's last statement,
        // its only `return`, and free of effects; else a local of its own.
        let mut value = expr_at(ExprKind::Null, pos);
        let last_only = matches!(body.last(), Some(Stmt { kind: StmtKind::Return(Some(e)), .. })
                if !has_map_call(e) && !has_unknown_call(e) && !self.reads_mutable_field(e))
            && count_returns(&body) == 1;
        if last_only {
            if let Some(Stmt {
                kind: StmtKind::Return(Some(e)),
                ..
            }) = body.pop()
            {
                value = e;
            }
        } else {
            let result = tag.clone();
            let done = format!("{tag}.returned");
            let (stmts, uses_done) = returns_to_assignments(body, Some(&result), &done);
            pre.push(Stmt {
                kind: StmtKind::Decl {
                    name: result.clone(),
                    init: None,
                },
                pos,
            });
            if uses_done {
                pre.push(Stmt {
                    kind: StmtKind::Decl {
                        name: done,
                        init: Some(expr_at(ExprKind::Bool(false), pos)),
                    },
                    pos,
                });
            }
            body = stmts;
            value = expr_at(ExprKind::Var(result.clone()), pos);
            self.locals.insert(result, String::new());
        }
        pre.extend(body);
        let h = self.hoist.as_mut().expect("checked above");
        h.stmts.extend(pre);
        h.inlined.push(call.byte_range());
        Some(value.kind)
    }

    /// The arity of the function `a` passed to a helper's parameter of type `ty`, when the
    /// helper may apply it in place: a lambda (its own parameters), or a method reference
    /// to a parameter of one of `java.util.function`'s common types; neither using a map.
    fn passed_function_arity(&self, a: Node<'a>, ty: &str) -> Option<usize> {
        if self.mentions_map(a) {
            return None;
        }
        match a.kind() {
            "lambda_expression" => Some(self.lambda_params(a).len()),
            "method_reference" => match java::base_type(ty) {
                "Supplier" | "Callable" => Some(0),
                "Function" | "UnaryOperator" | "Predicate" | "Consumer" | "ToIntFunction"
                | "ToLongFunction" => Some(1),
                "BiFunction" | "BinaryOperator" | "BiPredicate" | "BiConsumer" => Some(2),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the assignment expression `n` (`(x = m.get(k)) == null`) can run as a statement
    /// of its own just before the statement it is in: it is reached unconditionally (as a
    /// helper is inlined), nothing with an effect precedes it in the statement, its target is
    /// a plain name, and that name is not read before it in the statement (which would see the
    /// old value). Then its value is the name's value after it.
    fn hoistable_assignment(&self, n: Node<'a>) -> bool {
        let Some(h) = &self.hoist else {
            return false;
        };
        let Some(left) = n.child_by_field_name("left").or_else(|| n.named_child(0)) else {
            return false;
        };
        if left.kind() != "identifier" || effect_before(h, n) {
            return false;
        }
        let name = self.text(left);
        let start = n.start_byte();
        let mut stack = vec![h.statement];
        while let Some(x) = stack.pop() {
            if x.start_byte() >= start {
                continue;
            }
            if x.kind() == "identifier" && x.end_byte() <= start && self.text(x) == name {
                return false;
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        true
    }

    /// Whether lowering `n` may put statements before its statement: it holds an assignment,
    /// `++`/`--`, or a call of a method of the class (a helper that may be inlined).
    fn needs_hoisting(&self, n: Node<'a>) -> bool {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            match x.kind() {
                "assignment_expression" | "update_expression" => return true,
                // A lambda's or a class's body runs elsewhere.
                "lambda_expression" | "class_body" => continue,
                "method_invocation"
                    if x.child_by_field_name("object")
                        .is_none_or(|o| o.kind() == "this") =>
                {
                    let name = self.field_text(x, "name");
                    if self.methods.iter().any(|m| m.decl.name == name) {
                        return true;
                    }
                }
                _ => {}
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        false
    }

    /// Whether the expression `n` (an `&&`, `||` or `?:`) can be evaluated whole as
    /// statements just before the statement it is in: it is reached unconditionally there,
    /// nothing with an effect precedes it in the statement, and nothing read before it in the
    /// statement is a local it assigns or a field another thread may change (which would be
    /// read after, not before, its map calls).
    fn packable(&self, n: Node<'a>) -> bool {
        let Some(h) = &self.hoist else {
            return false;
        };
        if effect_before(h, n) {
            return false;
        }
        let mut assigned = BTreeSet::new();
        assigned_locals(self.file, n, &mut assigned);
        let start = n.start_byte();
        let mut stack = vec![h.statement];
        while let Some(x) = stack.pop() {
            if x.start_byte() >= start {
                continue;
            }
            if x.kind() == "identifier" && x.end_byte() <= start {
                let name = self.text(x);
                let mutable_field = !self.locals.contains_key(name)
                    && self.fields.iter().any(|f| f.name == name && !f.is_final);
                if assigned.contains(name) || mutable_field {
                    return false;
                }
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        true
    }

    /// A fresh local for the value of the expression at `pos` evaluated as statements.
    fn packed_local(&mut self, pos: Pos) -> String {
        let name = format!("$cond{}_{}", pos.line, pos.col);
        self.locals.insert(name.clone(), "boolean".into());
        name
    }

    /// `a && r` (`and`) or `a || r` whose right `r` assigns or calls a helper, evaluated as
    /// Java does, left to right and short-circuit, into a local before the statement:
    /// `t = false; if (a) { <r's statements> if (r) t = true; }` (for `||`: `t = true; if (!a)
    /// { <r's statements> if (!r) t = false; }`). The local is set from constants only: the
    /// conditions that decide it are the `if`s', so each is classified as a condition, as it
    /// would be in the source's own `if`. `packable(n)` holds.
    fn short_circuit(
        &mut self,
        n: Node<'a>,
        and: bool,
        a: Expr,
        r: Node<'a>,
        pos: Pos,
    ) -> ExprKind {
        let mut inner = Vec::new();
        let b = self.hoisting(r, &mut inner, |lw| lw.expr(r));
        if inner.is_empty() {
            // Nothing to run first after all (a helper left an unknown call): as written.
            let op = if and { BinOp::And } else { BinOp::Or };
            return ExprKind::Binary(op, Box::new(a), Box::new(b));
        }
        let local = self.packed_local(pos);
        let stmt = |kind| Stmt { kind, pos };
        let set = |value: bool| {
            vec![stmt(StmtKind::Assign {
                name: local.clone(),
                value: expr_at(ExprKind::Bool(value), pos),
            })]
        };
        let test = |e: Expr| {
            if and {
                e
            } else {
                let at = e.pos;
                expr_at(ExprKind::Not(Box::new(e)), at)
            }
        };
        inner.push(stmt(StmtKind::If {
            cond: test(b),
            then: set(and),
            els: Vec::new(),
        }));
        let stmts = vec![
            stmt(StmtKind::Decl {
                name: local.clone(),
                init: Some(expr_at(ExprKind::Bool(!and), pos)),
            }),
            stmt(StmtKind::If {
                cond: test(a),
                then: inner,
                els: Vec::new(),
            }),
        ];
        let h = self.hoist.as_mut().expect("packable");
        h.stmts.extend(stmts);
        h.inlined.push(n.byte_range());
        ExprKind::Var(local)
    }

    /// `c ? a : b` whose branch assigns or calls a helper: `if (c) { <a's statements> t = a; }
    /// else { <b's statements> t = b; }` before the statement (`c` lowered already, where
    /// it runs). `packable(n)` holds.
    fn choice(&mut self, n: Node<'a>, c: Expr, a: Node<'a>, b: Node<'a>, pos: Pos) -> ExprKind {
        let branch = |lw: &mut Self, x: Node<'a>| {
            let mut stmts = Vec::new();
            let value = lw.hoisting(x, &mut stmts, |lw| lw.expr(x));
            (stmts, value)
        };
        let (mut then, a) = branch(self, a);
        let (mut els, b) = branch(self, b);
        if then.is_empty() && els.is_empty() {
            // Nothing to run first after all (a helper left an unknown call): as written.
            return ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b));
        }
        let local = self.packed_local(pos);
        let set = |value| Stmt {
            kind: StmtKind::Assign {
                name: local.clone(),
                value,
            },
            pos,
        };
        then.push(set(a));
        els.push(set(b));
        let stmts = vec![
            Stmt {
                kind: StmtKind::Decl {
                    name: local.clone(),
                    init: None,
                },
                pos,
            },
            Stmt {
                kind: StmtKind::If { cond: c, then, els },
                pos,
            },
        ];
        let h = self.hoist.as_mut().expect("packable");
        h.stmts.extend(stmts);
        h.inlined.push(n.byte_range());
        ExprKind::Var(local)
    }

    /// Whether `e` reads a field that is not final (a helper's result read in place would
    /// see the field as later statements leave it).
    fn reads_mutable_field(&self, e: &Expr) -> bool {
        let mut vars = BTreeSet::new();
        expr_vars(e, &mut vars);
        vars.iter().any(|v| {
            !self.locals.contains_key(v) && self.fields.iter().any(|f| &f.name == v && !f.is_final)
        })
    }

    /// Whether a helper's lowered body, that uses no map, is guards (`if (..) throw ..;`)
    /// and one final `return`: inlined, it adds no branch the operation did not have.
    fn simple_body(&self, body: &[Stmt]) -> bool {
        let Some((last, guards)) = body.split_last() else {
            return false;
        };
        matches!(last.kind, StmtKind::Return(Some(_)))
            && guards.iter().all(|s| matches!(&s.kind, StmtKind::If { then, els, .. }
                if els.is_empty() && matches!(then.as_slice(), [Stmt { kind: StmtKind::Throw(_), .. }])))
    }

    /// Lowers `f` (the expressions of `statement`) with the statements of the helpers inlined
    /// in them put in `out` first.
    fn hoisting<T>(
        &mut self,
        statement: Node<'a>,
        out: &mut Vec<Stmt>,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let saved = self.hoist.replace(Hoist {
            statement,
            stmts: Vec::new(),
            inlined: Vec::new(),
        });
        let t = f(self);
        let h = std::mem::replace(&mut self.hoist, saved).expect("set above");
        out.extend(h.stmts);
        t
    }

    /// Lowers `f` where a helper's statements cannot be hoisted (a part evaluated
    /// conditionally or repeatedly).
    fn unhoisted<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.hoist.take();
        let t = f(self);
        self.hoist = saved;
        t
    }

    /// `Optional.ofNullable(x).orElse(d)` with `o` the `ofNullable` call: for a local `x`,
    /// `x != null ? x : d`; for `x` a map's `get(k)` and `d` free of map calls,
    /// `getOrDefault(k, d)` (`ConcurrentHashMap` holds no null value, so `get` is null
    /// exactly when the key is absent, and `d` is evaluated either way, after the `get` in the
    /// one and before `getOrDefault` in the other, which without map calls in `d` is
    /// the same). Anything else: `None`, an unknown call.
    fn or_else(&mut self, o: Node<'a>, d: Node<'a>) -> Option<ExprKind> {
        if o.kind() != "method_invocation" {
            return None;
        }
        let inner = o
            .child_by_field_name("name")
            .map(|n| self.text(n).to_owned())?;
        let owner = o
            .child_by_field_name("object")
            .map(|n| self.text(n).to_owned())?;
        if inner != "ofNullable" || !matches!(owner.as_str(), "Optional" | "java.util.Optional") {
            return None;
        }
        let args = o.child_by_field_name("arguments")?;
        let xs = code_children(args);
        let [x] = xs.as_slice() else {
            return None;
        };
        if x.kind() == "identifier"
            && (self.locals.contains_key(self.text(*x)) || self.params.contains(self.text(*x)))
        {
            let pos = self.pos(*x);
            let xe = self.expr(*x);
            let de = self.expr(d);
            let test = expr_at(
                ExprKind::Binary(
                    BinOp::Ne,
                    Box::new(xe.clone()),
                    Box::new(expr_at(ExprKind::Null, pos)),
                ),
                pos,
            );
            return Some(ExprKind::Cond(Box::new(test), Box::new(xe), Box::new(de)));
        }
        // Only a map's `get(k)`, seen before anything is lowered.
        let is_get = x.kind() == "method_invocation"
            && x.child_by_field_name("name")
                .is_some_and(|n| self.text(n) == "get")
            && x.child_by_field_name("object")
                .is_some_and(|m| self.map_of(m).is_some());
        if !is_get {
            return None;
        }
        let before = self.map_calls;
        let xe = self.expr(*x);
        let ExprKind::MapCall {
            map,
            method: MapMethod::Get,
            args,
        } = xe.kind
        else {
            self.map_calls = before;
            return None;
        };
        let de = self.expr(d);
        if has_map_call(&de) {
            // Not the same order of map calls: an unknown call, lowered afresh by the caller.
            self.map_calls = before;
            return None;
        }
        let mut args = args;
        args.push(de);
        Some(ExprKind::MapCall {
            map,
            method: MapMethod::GetOrDefault,
            args,
        })
    }

    fn map_call(&mut self, n: Node<'a>, map: String, name: &str, args: &[Node<'a>]) -> ExprKind {
        let pos = self.pos(n);
        // `isEmpty()` is `size() == 0`; `mappingCount()` is `size()` as a long.
        match (name, args.len()) {
            ("isEmpty", 0) => {
                let size = ExprKind::MapCall {
                    map,
                    method: MapMethod::Size,
                    args: Vec::new(),
                };
                return ExprKind::Binary(
                    BinOp::Eq,
                    Box::new(expr_at(size, pos)),
                    Box::new(expr_at(ExprKind::Int(0), pos)),
                );
            }
            // A sequence of puts, one per entry of the argument, whose entries the analysis
            // does not see: one put of an unknown key and value, the other sizes left out.
            ("putAll", 1) => {
                self.approximate(
                    n,
                    format!(
                        "`{}` is modelled as one put of an unknown entry of its argument (other sizes are left out)",
                        self.text(n)
                    ),
                );
                self.escapes(args[0]);
                let src = self.expr(args[0]);
                let part = |name: &str| {
                    expr_at(
                        ExprKind::Call {
                            recv: Box::new(src.clone()),
                            name: name.to_owned(),
                            args: Vec::new(),
                        },
                        pos,
                    )
                };
                return ExprKind::MapCall {
                    map,
                    method: MapMethod::Put,
                    args: vec![part("anEntryKey"), part("anEntryValue")],
                };
            }
            // `ConcurrentHashMap.containsValue` traverses the map: the traversal, run just
            // before the statement (as a helper is), leaves whether it met the value.
            ("containsValue", 1) if self.hoist.as_ref().is_some_and(|h| !effect_before(h, n)) => {
                self.escapes(args[0]);
                let wanted = self.expr(args[0]);
                let found = format!("$found{}_{}", pos.line, pos.col);
                let value = format!("$value{}_{}", pos.line, pos.col);
                self.declare_local(&found, "boolean", None);
                self.declare_local(&value, "", None);
                let var = |name: &str| expr_at(ExprKind::Var(name.to_owned()), pos);
                let stmt = |kind| Stmt { kind, pos };
                let hit = stmt(StmtKind::If {
                    cond: expr_at(
                        ExprKind::Equals(Box::new(var(&value)), Box::new(wanted)),
                        pos,
                    ),
                    then: vec![
                        stmt(StmtKind::Assign {
                            name: found.clone(),
                            value: expr_at(ExprKind::Bool(true), pos),
                        }),
                        stmt(StmtKind::Break),
                    ],
                    els: Vec::new(),
                });
                let stmts = vec![
                    stmt(StmtKind::Decl {
                        name: found.clone(),
                        init: Some(expr_at(ExprKind::Bool(false), pos)),
                    }),
                    traversal(map, vec![(value, View::Values)], vec![hit], pos),
                ];
                let h = self.hoist.as_mut().expect("checked in the guard");
                h.stmts.extend(stmts);
                h.inlined.push(n.byte_range());
                return ExprKind::Var(found);
            }
            ("mappingCount", 0) => {
                return ExprKind::MapCall {
                    map,
                    method: MapMethod::Size,
                    args: Vec::new(),
                }
            }
            _ => {}
        }
        let Some(method) = MapMethod::from_name(name, args.len()) else {
            let what = if ITERATION.contains(&name) {
                format!(
                    "`{}`: iteration over the map is not modelled (weakly consistent)",
                    self.text(n)
                )
            } else {
                format!(
                    "`{}`: `{name}` with {} argument(s) is not a modelled map method",
                    self.text(n),
                    args.len()
                )
            };
            self.unsupported(n, what);
            return ExprKind::Null;
        };
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if method.takes_function() && i == args.len() - 1 {
                out.push(self.function(*a, method));
            } else {
                self.escapes(*a);
                out.push(self.expr(*a));
            }
        }
        ExprKind::MapCall {
            map,
            method,
            args: out,
        }
    }

    /// The function of an atomic method: a lambda with an expression body (or a block that
    /// only returns one), a constructor reference, or anything else as an unknown function.
    fn function(&mut self, n: Node<'a>, method: MapMethod) -> Expr {
        // Its body runs inside the map's step, when the map decides: nothing is hoisted.
        let arity = if method == MapMethod::ComputeIfAbsent {
            1
        } else {
            2
        };
        self.unhoisted(|lw| lw.function_inner(n, arity, method.name()))
    }

    /// The function of an atomic method of the map, or one passed to the helper `owner`
    /// (applied where the helper applies it: see `inline::Renaming::functions`), taking
    /// `arity` arguments.
    fn function_inner(&mut self, n: Node<'a>, arity: usize, owner: &str) -> Expr {
        let pos = self.pos(n);
        let generic: Vec<String> = (0..arity)
            .map(|i| format!("$arg{}_{i}", pos.line))
            .collect();
        let lambda = |params: Vec<String>, body: Expr| {
            expr_at(
                ExprKind::Lambda {
                    params,
                    body: Box::new(body),
                },
                pos,
            )
        };
        if self.mentions_map(n) {
            // Its map calls are not counted: listed however few the operation has.
            self.unseen_use(
                n,
                format!(
                    "the function of `{}` uses the map (ConcurrentHashMap forbids it)",
                    owner
                ),
            );
            return lambda(generic, expr_at(ExprKind::Null, pos));
        }
        match n.kind() {
            "lambda_expression" => {
                let params = self.lambda_params(n);
                if params.len() != arity {
                    self.unsupported(
                        n,
                        format!(
                            "a function of {} parameter(s) for `{}`",
                            params.len(),
                            owner
                        ),
                    );
                    return lambda(generic, expr_at(ExprKind::Null, pos));
                }
                for p in &params {
                    self.locals.insert(p.clone(), String::new());
                }
                let body_node = n.child_by_field_name("body");
                let body = match body_node {
                    Some(b) if b.kind() == "block" => {
                        let stmts = code_children(b);
                        match stmts.as_slice() {
                            [only] if only.kind() == "return_statement" => {
                                match only.named_child(0) {
                                    Some(e) => self.expr(e),
                                    None => expr_at(ExprKind::Null, pos),
                                }
                            }
                            _ => {
                                // Statements run inside the map's lock: their effects on other
                                // state are not atomic with the operation's other steps.
                                self.lambda_effects.push((
                                    pos,
                                    format!(
                                        "the function of `{}` at line {} runs statements; its result is taken as unknown and its effects on other state are not modelled",
                                        owner,
                                        pos.line
                                    ),
                                ));
                                let args = params
                                    .iter()
                                    .map(|p| expr_at(ExprKind::Var(p.clone()), pos))
                                    .collect();
                                self.unknown(&format!("lambda@{}", pos.line), None, args, pos)
                            }
                        }
                    }
                    Some(e) => self.expr(e),
                    None => expr_at(ExprKind::Null, pos),
                };
                let mut effects = Vec::new();
                unknown_calls(&body, &params, &mut effects);
                for e in effects {
                    self.lambda_effects.push((
                        pos,
                        format!(
                            "the function of `{}` at line {} calls `{e}`, whose effects on other state happen inside the map's atomic step",
                            owner,
                            pos.line
                        ),
                    ));
                }
                lambda(params, body)
            }
            "method_reference" => {
                let text = self.text(n).to_owned();
                let args: Vec<Expr> = generic
                    .iter()
                    .map(|p| expr_at(ExprKind::Var(p.clone()), pos))
                    .collect();
                for p in &generic {
                    self.locals.insert(p.clone(), String::new());
                }
                let body = if let Some(class) = text.strip_suffix("::new") {
                    expr_at(
                        ExprKind::New {
                            class: java::base_type(class).to_owned(),
                            args,
                        },
                        pos,
                    )
                } else {
                    self.lambda_effects.push((
                        pos,
                        format!("the function `{text}` of `{}` is not seen: its result is unknown and its effects happen inside the map's atomic step", owner),
                    ));
                    self.unknown(&text, None, args, pos)
                };
                lambda(generic, body)
            }
            _ => {
                let f = self.expr(n);
                for p in &generic {
                    self.locals.insert(p.clone(), String::new());
                }
                // A lambda the caller passed: applied when the helper is inlined, and what
                // its body does is said there.
                let passed = n.kind() == "identifier" && self.functions.contains(self.text(n));
                let args = generic
                    .iter()
                    .map(|p| expr_at(ExprKind::Var(p.clone()), pos))
                    .collect();
                if !passed {
                    self.lambda_effects.push((
                        pos,
                        format!(
                            "the function `{}` of `{}` is not seen: its result is unknown and its effects happen inside the map's atomic step",
                            self.text(n),
                            owner
                        ),
                    ));
                }
                let body = self.unknown("apply", Some(f), args, pos);
                lambda(generic, body)
            }
        }
    }

    fn lambda_params(&self, n: Node<'a>) -> Vec<String> {
        let Some(p) = n.child_by_field_name("parameters") else {
            return Vec::new();
        };
        if p.kind() == "identifier" {
            return vec![self.text(p).to_owned()];
        }
        let mut out = Vec::new();
        let mut c = p.walk();
        for k in p.named_children(&mut c) {
            match k.kind() {
                "identifier" => out.push(self.text(k).to_owned()),
                "formal_parameter" | "inferred_parameters" => {
                    if let Some(name) = k.child_by_field_name("name") {
                        out.push(self.text(name).to_owned());
                    } else {
                        let mut c2 = k.walk();
                        for x in k.named_children(&mut c2) {
                            if x.kind() == "identifier" {
                                out.push(self.text(x).to_owned());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// The unknown calls of a lambda body that could act on other state (calls on its own
/// parameters' values and constructors of fresh objects are left out: they act on what the
/// map step alone sees).
fn unknown_calls(e: &Expr, params: &[String], out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Call { recv, args, .. } => {
            let on_param = matches!(&recv.kind, ExprKind::Var(v) if params.contains(v));
            if !on_param {
                out.push(super::ir::show(e));
                return;
            }
            unknown_calls(recv, params, out);
            args.iter().for_each(|a| unknown_calls(a, params, out));
        }
        ExprKind::Not(a) | ExprKind::Neg(a) => unknown_calls(a, params, out),
        ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => {
            unknown_calls(a, params, out);
            unknown_calls(b, params, out);
        }
        ExprKind::Cond(a, b, c) => {
            unknown_calls(a, params, out);
            unknown_calls(b, params, out);
            unknown_calls(c, params, out);
        }
        ExprKind::New { args, .. } | ExprKind::MapCall { args, .. } => {
            args.iter().for_each(|a| unknown_calls(a, params, out))
        }
        _ => {}
    }
}

/// Whether something with an effect (a call, an assignment) is evaluated before `call` in the
/// statement `h` is lowering, other than helpers inlined already (their statements are hoisted
/// in order).
fn effect_before(h: &Hoist, call: Node) -> bool {
    let start = call.start_byte();
    let mut stack = vec![h.statement];
    while let Some(x) = stack.pop() {
        if x.start_byte() >= start || h.inlined.iter().any(|r| r.contains(&x.start_byte())) {
            continue;
        }
        if x.end_byte() <= start
            && matches!(
                x.kind(),
                "method_invocation" | "assignment_expression" | "update_expression"
            )
        {
            return true;
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    false
}

fn has_unknown_call(e: &Expr) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Call { .. }));
    found
}

fn count_returns(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Return(_) => 1,
            StmtKind::If { then, els, .. } => count_returns(then) + count_returns(els),
            StmtKind::Loop { body, update, .. } => count_returns(body) + count_returns(update),
            StmtKind::Block(b) => count_returns(b),
            _ => 0,
        })
        .sum()
}

fn contains_kind(n: Node, kinds: &[&str]) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if kinds.contains(&x.kind()) {
            return true;
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    false
}

fn assigned_locals(file: &JavaFile, n: Node, out: &mut BTreeSet<String>) {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        let target = match x.kind() {
            "assignment_expression" => x.child_by_field_name("left"),
            "update_expression" => x.named_child(0),
            _ => None,
        };
        if let Some(t) = target {
            if t.kind() == "identifier" {
                out.insert(file.text_of(t).to_owned());
            }
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
}

// ---- derived keys ----

fn expr_vars(e: &Expr, out: &mut BTreeSet<String>) {
    match &e.kind {
        ExprKind::Var(v) => {
            out.insert(v.clone());
        }
        ExprKind::Not(a) | ExprKind::Neg(a) => expr_vars(a, out),
        ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => {
            expr_vars(a, out);
            expr_vars(b, out);
        }
        ExprKind::Cond(a, b, c) => {
            expr_vars(a, out);
            expr_vars(b, out);
            expr_vars(c, out);
        }
        ExprKind::MapCall { args, .. } | ExprKind::New { args, .. } => {
            args.iter().for_each(|a| expr_vars(a, out))
        }
        ExprKind::Call { recv, args, .. } => {
            expr_vars(recv, out);
            args.iter().for_each(|a| expr_vars(a, out));
        }
        ExprKind::Lambda { body, .. } => expr_vars(body, out),
        _ => {}
    }
}

fn has_map_call(e: &Expr) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| {
        found |= matches!(x.kind, ExprKind::MapCall { .. })
    });
    found
}

fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Not(a) | ExprKind::Neg(a) => walk_expr(a, f),
        ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Cond(a, b, c) => {
            walk_expr(a, f);
            walk_expr(b, f);
            walk_expr(c, f);
        }
        ExprKind::MapCall { args, .. } | ExprKind::New { args, .. } => {
            args.iter().for_each(|a| walk_expr(a, f))
        }
        ExprKind::Call { recv, args, .. } => {
            walk_expr(recv, f);
            args.iter().for_each(|a| walk_expr(a, f));
        }
        ExprKind::Lambda { body, .. } => walk_expr(body, f),
        _ => {}
    }
}

/// Every expression and assignment target of `stmts`.
fn walk_stmts(stmts: &[Stmt], f: &mut dyn FnMut(Option<&str>, Option<&Expr>)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Decl { name, init } => f(Some(name), init.as_ref()),
            StmtKind::Assign { name, value } => f(Some(name), Some(value)),
            StmtKind::Expr(e) | StmtKind::Throw(e) | StmtKind::Return(Some(e)) => f(None, Some(e)),
            StmtKind::If { cond, then, els } => {
                f(None, Some(cond));
                walk_stmts(then, f);
                walk_stmts(els, f);
            }
            StmtKind::Loop { cond, body, update } => {
                f(None, cond.as_ref());
                walk_stmts(body, f);
                walk_stmts(update, f);
            }
            StmtKind::Block(b) => walk_stmts(b, f),
            _ => {}
        }
    }
}

/// Static methods that build a value from their arguments alone, equal for equal arguments:
/// a key made with them is a tuple of its parts.
const TUPLE_BUILDERS: &[(&str, &str)] = &[
    ("List", "of"),
    ("Set", "of"),
    ("Arrays", "asList"),
    ("Map", "entry"),
    ("Pair", "of"),
    ("ImmutablePair", "of"),
    ("Tuple", "of"),
    ("Tuples", "of"),
    ("String", "valueOf"),
    ("String", "join"),
    ("String", "format"),
    ("Objects", "hash"),
    ("Collections", "singletonList"),
    ("ImmutableList", "of"),
];

/// Whether `e` is a key built from the parameters, constants and final fields only by string
/// concatenation, a tuple builder or a constructor, with at least one parameter: equal parts
/// give an equal key. `assumes` gets the constructors, whose `equals` it takes on trust.
fn tuple_key(
    e: &Expr,
    params: &BTreeSet<String>,
    fields: &[Field],
    assumes: &mut Vec<String>,
) -> bool {
    let mut uses_param = false;
    let mut ok = true;
    walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Var(v) => {
            if params.contains(v) {
                uses_param = true;
            } else if !fields
                .iter()
                .any(|f| &f.name == v && f.is_final && !f.is_map)
            {
                ok = false;
            }
        }
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::Str(_)
        | ExprKind::Opaque(_)
        | ExprKind::Binary(BinOp::Add, ..) => {}
        ExprKind::New { class, .. } => assumes.push(class.clone()),
        ExprKind::Call { recv, name, .. } => {
            let builder = matches!(&recv.kind, ExprKind::Opaque(t)
                if TUPLE_BUILDERS.iter().any(|(c, m)| t.rsplit('.').next() == Some(*c) && m == name));
            ok &= builder;
        }
        _ => ok = false,
    });
    // The receiver of a builder is its class: walked above as an opaque constant.
    ok && uses_param && !matches!(e.kind, ExprKind::Var(_))
}

/// Keys written in place as tuples of the parameters (`m.get(new Key(a, b))`,
/// `m.put(a + ":" + b, v)`, `m.get(List.of(a, b))`) become one local computed at the top of
/// the body, which [`derive_keys`] then makes an input: the same parts give the same key
/// however often it is written, so the key is compared as the tuple of its parts. A
/// constructor's key is a tuple only if its class's `equals` compares the fields set from
/// the arguments: that assumption is returned, to be stated with the verdict.
fn hoist_tuple_keys(op: &mut Operation, fields: &[Field]) -> Vec<(Pos, String)> {
    let params: BTreeSet<String> = op.params.iter().map(|p| p.name.clone()).collect();
    // An assigned parameter is not one value for the whole run (Assign reports it).
    let mut assigned = false;
    walk_stmts(&op.body, &mut |t, _| {
        assigned |= t.is_some_and(|t| params.contains(t))
    });
    if assigned {
        return Vec::new();
    }
    let mut found: Vec<(String, Expr, Vec<String>)> = Vec::new();
    walk_stmts(&op.body, &mut |_, e| {
        if let Some(e) = e {
            walk_expr(e, &mut |x| {
                if let ExprKind::MapCall { method, args, .. } = &x.kind {
                    if !method.keyed() {
                        return;
                    }
                    let mut assumes = Vec::new();
                    if tuple_key(&args[0], &params, fields, &mut assumes) {
                        let text = super::ir::show(&args[0]);
                        if !found.iter().any(|(t, _, _)| *t == text) {
                            found.push((text, args[0].clone(), assumes));
                        }
                    }
                }
            });
        }
    });
    let mut notes = Vec::new();
    for (text, e, assumes) in found.into_iter().rev() {
        replace_key(&mut op.body, &text);
        op.body.insert(
            0,
            Stmt {
                kind: StmtKind::Decl {
                    name: text.clone(),
                    init: Some(e.clone()),
                },
                pos: e.pos,
            },
        );
        let mut classes: Vec<String> = Vec::new();
        for c in assumes {
            if !classes.contains(&c) {
                classes.push(c);
            }
        }
        if !classes.is_empty() {
            notes.push((
                e.pos,
                format!(
                    "assumes `{}` compare{} by the arguments of their constructors: the key `{text}` is compared as the tuple of its parts",
                    classes.join("`, `"),
                    if classes.len() == 1 { "s" } else { "" }
                ),
            ));
        }
    }
    notes.reverse();
    notes
}

/// Replaces every map call's key whose text is `text` by the local of that name.
fn replace_key(stmts: &mut [Stmt], text: &str) {
    fn expr(e: &mut Expr, text: &str) {
        match &mut e.kind {
            ExprKind::MapCall { args, method, .. } => {
                if method.keyed() && super::ir::show(&args[0]) == text {
                    args[0].kind = ExprKind::Var(text.to_owned());
                }
                args.iter_mut().for_each(|a| expr(a, text));
            }
            ExprKind::Not(a) | ExprKind::Neg(a) => expr(a, text),
            ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => {
                expr(a, text);
                expr(b, text);
            }
            ExprKind::Cond(a, b, c) => {
                expr(a, text);
                expr(b, text);
                expr(c, text);
            }
            ExprKind::New { args, .. } => args.iter_mut().for_each(|a| expr(a, text)),
            ExprKind::Call { recv, args, .. } => {
                expr(recv, text);
                args.iter_mut().for_each(|a| expr(a, text));
            }
            ExprKind::Lambda { body, .. } => expr(body, text),
            _ => {}
        }
    }
    for s in stmts {
        match &mut s.kind {
            StmtKind::Decl { init: Some(e), .. }
            | StmtKind::Assign { value: e, .. }
            | StmtKind::Expr(e)
            | StmtKind::Throw(e)
            | StmtKind::Return(Some(e)) => expr(e, text),
            StmtKind::If { cond, then, els } => {
                expr(cond, text);
                replace_key(then, text);
                replace_key(els, text);
            }
            StmtKind::Loop { cond, body, update } => {
                if let Some(c) = cond {
                    expr(c, text);
                }
                replace_key(body, text);
                replace_key(update, text);
            }
            StmtKind::Block(b) => replace_key(b, text),
            _ => {}
        }
    }
}

/// Makes the derived keys inputs (see the module's documentation for why that is sound).
fn derive_keys(op: &mut Operation, fields: &[Field]) {
    let params: BTreeSet<String> = op.params.iter().map(|p| p.name.clone()).collect();
    // Final fields hold one value for the operation's whole run: as good as constants.
    let constant = |v: &String| {
        fields
            .iter()
            .any(|f| &f.name == v && f.is_final && !f.is_map)
    };
    // The leading declarations, before anything that touches a map or may leave.
    let mut candidates = Vec::new();
    for (i, s) in op.body.iter().enumerate() {
        match &s.kind {
            StmtKind::Decl {
                name,
                init: Some(e),
            } if !has_map_call(e) => {
                let mut vars = BTreeSet::new();
                expr_vars(e, &mut vars);
                if vars.iter().all(|v| params.contains(v) || constant(v))
                    && vars.iter().any(|v| params.contains(v))
                {
                    candidates.push((i, name.clone()));
                }
            }
            StmtKind::Decl { init: None, .. } => {}
            StmtKind::Decl { init: Some(e), .. } | StmtKind::Expr(e) if !has_map_call(e) => {}
            _ => break,
        }
    }
    if candidates.is_empty() {
        return;
    }
    // Assigned again, or not used as a map key: stays a local.
    let mut assigned: BTreeMap<String, usize> = BTreeMap::new();
    let mut keys = BTreeSet::new();
    walk_stmts(&op.body, &mut |target, e| {
        if let Some(t) = target {
            *assigned.entry(t.to_owned()).or_default() += 1;
        }
        if let Some(e) = e {
            walk_expr(e, &mut |x| {
                if let ExprKind::MapCall { method, args, .. } = &x.kind {
                    if method.keyed() {
                        if let ExprKind::Var(v) = &args[0].kind {
                            keys.insert(v.clone());
                        }
                    }
                }
            });
        }
    });
    let chosen: Vec<(usize, String)> = candidates
        .into_iter()
        .filter(|(_, n)| assigned.get(n) == Some(&1) && keys.contains(n) && !params.contains(n))
        .collect();
    if chosen.is_empty() {
        return;
    }
    let mut new_params = Vec::new();
    for (i, name) in chosen.iter().rev() {
        let s = op.body.remove(*i);
        if let StmtKind::Decl { init: Some(e), .. } = &s.kind {
            op.derived.push((
                s.pos,
                format!(
                    "the key `{name}` is computed once from the parameters (`{}`) before any map call and never changed: it is an input like a parameter",
                    super::ir::show(e)
                ),
            ));
        }
        new_params.push(Param {
            name: name.clone(),
            ty: String::new(),
            pos: s.pos,
        });
    }
    op.derived.reverse();
    new_params.reverse();
    // Parameters the body no longer reads are not inputs of what is verified.
    let mut used = BTreeSet::new();
    walk_stmts(&op.body, &mut |t, e| {
        if let Some(t) = t {
            used.insert(t.to_owned());
        }
        if let Some(e) = e {
            expr_vars(e, &mut used);
        }
    });
    op.params.retain(|p| used.contains(&p.name));
    // The derived keys first: the classifier takes the key from the first map call anyway.
    new_params.append(&mut op.params);
    op.params = new_params;
}

/// The named children of `n` that are code (comments left out).
fn code_children(n: Node<'_>) -> Vec<Node<'_>> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|k| !k.kind().contains("comment"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn deep_nesting_is_unsupported_not_a_crash() {
        let op = |body: &str| {
            format!("ConcurrentHashMap<Integer, Integer> m;\nint op(int k) {{ m.get(k); {body} }}")
        };
        for deep in [
            op(&format!(
                "return {}k{};",
                "(".repeat(50_000),
                ")".repeat(50_000)
            )),
            op(&format!("return {}k;", "!".repeat(50_000))),
            op(&format!("return {}k;", "k > 0 ? k : ".repeat(20_000))),
            op(&format!("{}{}", "{ ".repeat(50_000), "} ".repeat(50_000))),
            op(&format!("{}return 1;", "if (k > 0) ".repeat(50_000))),
            op(&format!("return k{};", ".f()".repeat(50_000))),
            op(&format!("return k{};", ".f".repeat(50_000))),
            op(&format!("return m.get(k){};", ".f()".repeat(50_000))),
        ] {
            let programs = parse(&deep).expect("valid Java");
            let (_, why) = programs[0].operations[0]
                .unsupported
                .clone()
                .expect("unsupported");
            assert_eq!(why, "code nested more than 128 deep");
        }
        // A field initializer nested that deep is simply not a constant.
        let field = format!(
            "int x = {}1{};\nConcurrentHashMap<Integer, Integer> m;\nint op(int k) {{ m.get(k); return m.get(k); }}",
            "(".repeat(50_000),
            ")".repeat(50_000)
        );
        assert!(parse(&field).expect("valid Java")[0].fields[0]
            .init
            .is_none());
        let nested = op(&format!("return {}k{};", "(".repeat(100), ")".repeat(100)));
        assert!(parse(&nested).expect("parses")[0].operations[0]
            .unsupported
            .is_none());
    }
}

#[cfg(test)]
mod helper_tests {
    use super::super::ast::{ExprKind, StmtKind};
    use super::super::ir::show;
    use super::parse;

    fn class(body: &str) -> String {
        format!("class C {{\n  private final ConcurrentHashMap<String, Object> cache = new ConcurrentHashMap<>();\n{body}}}\n")
    }

    fn op<'p>(programs: &'p [super::Program], name: &str) -> &'p super::super::ast::Operation {
        programs
            .iter()
            .flat_map(|p| &p.operations)
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("no operation {name}"))
    }

    /// Why `name` is unsupported (empty if it is not).
    fn unsupported_why(ps: &[super::Program], name: &str) -> String {
        op(ps, name)
            .unsupported
            .clone()
            .map(|u| u.1)
            .unwrap_or_default()
    }

    /// The keys of the map calls of `name`'s lowered body, in order.
    fn map_keys(ps: &[super::Program], name: &str) -> Vec<String> {
        let mut keys = Vec::new();
        super::walk_stmts(&op(ps, name).body, &mut |_, e| {
            if let Some(e) = e {
                super::walk_expr(e, &mut |x| {
                    if let ExprKind::MapCall { args, .. } = &x.kind {
                        keys.push(show(&args[0]));
                    }
                })
            }
        });
        keys
    }

    /// `forEach` of a collection or a plain map whose function uses the map (dubbo's
    /// `AbstractConfig.refresh`: `extraParameters.forEach((key, value) -> ..)`) is the loop
    /// over its elements, as the `for` written by hand; a parallel stream's is not followed.
    #[test]
    fn for_each_of_a_collection_is_a_loop_over_its_elements() {
        let ps = parse(&class("  void each(java.util.List<String> ids) {\n    ids.forEach(id -> cache.remove(id));\n    cache.clear();\n  }\n  void byHand(java.util.List<String> ids) {\n    for (String id : ids) {\n      cache.remove(id);\n    }\n    cache.clear();\n  }\n  void pairs(java.util.Map<String, Object> extra) {\n    extra.forEach((k, v) -> {\n      if (v == null) return;\n      cache.putIfAbsent(k, v);\n    });\n    cache.remove(\"x\");\n  }\n  void parallel(java.util.List<String> ids) {\n    ids.parallelStream().forEach(id -> cache.remove(id));\n    cache.clear();\n  }\n")).unwrap();
        assert_eq!(map_keys(&ps, "each"), map_keys(&ps, "byHand"));
        assert_eq!(map_keys(&ps, "each")[0], "id");
        assert_eq!(unsupported_why(&ps, "each"), "");
        let each = show_body(&op(&ps, "each").body);
        assert!(
            each.contains("Loop") && each.contains("hasNext") && each.contains("$it4_"),
            "{each}"
        );
        // `return;` ends the round: a `continue`.
        let pairs = show_body(&op(&ps, "pairs").body);
        assert!(pairs.contains("Continue"), "{pairs}");
        assert_eq!(map_keys(&ps, "pairs"), ["k", "\"x\""]);
        assert!(unsupported_why(&ps, "parallel").contains("passed to code"));
    }

    fn show_body(stmts: &[super::super::ast::Stmt]) -> String {
        format!("{stmts:?}")
    }

    /// In the shape of apache/dubbo's `URL.getParameter` overloads
    /// (dubbo-common/src/main/java/org/apache/dubbo/common/URL.java): the overload a call
    /// names is the only one its arguments may be passed to, some of their types unknown (a
    /// constant of another class), others said by a literal, an array creation or a method
    /// of the class's result type; overloads inherited count as Java counts them.
    #[test]
    fn overloads_are_told_apart_by_the_arguments_they_may_take() {
        let base = "class Base {\n  protected final ConcurrentHashMap<String, Object> cache = new ConcurrentHashMap<>();\n  String path;\n  public String getPath() { return path; }\n  public String getParameter(String key, String d) { Object v = cache.get(key + \"s\"); return v == null ? d : (String) v; }\n  public String[] getParameter(String key, String[] d) { Object v = cache.get(key + \"a\"); return d; }\n  public int getParameter(String key, int d) { Object v = cache.get(key + \"i\"); return d; }\n  public boolean getParameter(String key, boolean d) { Object v = cache.get(key + \"b\"); return d; }\n}\n";
        let sub = "class Sub extends Base {\n  @Override public String getParameter(String key, String d) { Object v = cache.get(key + \"S\"); return d; }\n  Object path(String k) { getParameter(KEY, getPath()); return cache.remove(k); }\n  Object flag(String k) { getParameter(KEY, false); return cache.remove(k); }\n  Object array(String k) { getParameter(KEY, new String[0]); return cache.remove(k); }\n  Object number(String k) { getParameter(KEY, 1 + 2); return cache.remove(k); }\n  Object unknown(String k) { getParameter(KEY, Other.value()); return cache.remove(k); }\n}\n";
        let ps = parse(&format!("{base}{sub}")).expect("parses");
        let ps: Vec<_> = ps.into_iter().filter(|p| p.class == "Sub").collect();
        // The override in `Sub` for a String, the inherited ones for the others.
        assert_eq!(map_keys(&ps, "path"), ["KEY + \"S\"", "k"]);
        assert_eq!(map_keys(&ps, "flag"), ["KEY + \"b\"", "k"]);
        assert_eq!(map_keys(&ps, "array"), ["KEY + \"a\"", "k"]);
        // `1 + 2` is not said to be an int (only literals are): String, String[] and
        // boolean take no int, but the rule does not know it is one.
        let why = |name: &str| unsupported_why(&ps, name);
        assert!(
            why("unknown").contains("overloads of `getParameter`"),
            "{}",
            why("unknown")
        );
        assert!(
            why("number").contains("overloads of `getParameter`"),
            "{}",
            why("number")
        );
    }

    #[test]
    fn method_invocation_conversions_err_towards_may() {
        use super::may_pass;
        // Primitives widen, box and go to their boxes' supertypes, nowhere else.
        assert!(may_pass("int", "long") && may_pass("int", "double") && may_pass("char", "int"));
        assert!(
            !may_pass("long", "int") && !may_pass("byte", "char") && !may_pass("int", "boolean")
        );
        assert!(
            may_pass("int", "Integer") && may_pass("int", "Number") && may_pass("int", "Object")
        );
        assert!(
            !may_pass("int", "Long") && !may_pass("int", "String") && !may_pass("int", "int[]")
        );
        assert!(may_pass("boolean", "Boolean") && !may_pass("boolean", "Number"));
        // Boxes unbox and widen.
        assert!(
            may_pass("Integer", "int") && may_pass("Integer", "long") && !may_pass("Long", "int")
        );
        // A string, an array, null.
        assert!(may_pass("String", "CharSequence") && may_pass("String", "Object"));
        assert!(
            !may_pass("String", "String[]")
                && !may_pass("String", "Class")
                && !may_pass("String", "int")
        );
        assert!(
            may_pass("String[]", "Object[]")
                && may_pass("String[]", "Object")
                && !may_pass("String[]", "String")
        );
        assert!(may_pass("null", "String") && !may_pass("null", "int"));
        // A type the rule does not know may be passed anywhere, and anything to it.
        assert!(may_pass("Config", "int") && may_pass("Config", "String"));
        assert!(may_pass("int", "T") && may_pass("String", "Config"));
    }

    #[test]
    fn a_key_through_a_helper_stays_the_key_and_its_map_calls_are_the_operations() {
        let ps = parse(&class(
            "  private String checkKey(String k) { if (k == null) throw new NullPointerException(); return k; }\n  private Object lookup(String key) { return cache.get(key); }\n  Object get(String key) { Object v = lookup(checkKey(key)); if (v == null) { cache.putIfAbsent(checkKey(key), 1); } return v; }\n",
        ))
        .expect("parses");
        let get = op(&ps, "get");
        assert!(get.unsupported.is_none(), "{:?}", get.unsupported);
        // Two map calls, both on the parameter itself.
        assert_eq!(map_keys(&ps, "get"), ["key", "key"]);
        // The helpers themselves have one map call or none: no operations.
        assert_eq!(ps[0].operations.len(), 1);
    }

    #[test]
    fn recursion_and_calls_that_cannot_be_hoisted_are_unsupported_when_they_use_the_map() {
        let ps = parse(&class(
            "  Object retry(String k) { if (cache.get(k) == null) return retry(k); return cache.remove(k); }\n  boolean present(String k) { return cache.containsKey(k); }\n  Object cond(String k) { Object v = cache.get(k); if (v == null && present(k)) return v; return v; }\n  Object loop(String k) { Object v = null; while (present(k)) { v = cache.remove(k); } return v; }\n  Object after(String k) { return cache.get(k) == null ? null : (Object) String.valueOf(present(k)); }\n  String pure(String k) { return pure(k.trim()); }\n  Object fine(String k) { Object v = cache.get(pure(k)); cache.put(k, 1); return v; }\n",
        ))
        .expect("parses");
        let why = |name: &str| unsupported_why(&ps, name);
        assert!(why("retry").contains("recursive call"), "{}", why("retry"));
        // In the right of `&&` or a branch of `?:`, the helper runs where Java runs it: in
        // the `if`s the expression is evaluated as, before its statement.
        assert!(op(&ps, "cond").unsupported.is_none(), "{}", why("cond"));
        assert!(op(&ps, "after").unsupported.is_none(), "{}", why("after"));
        // A loop's condition runs before each round: the helper is inlined there.
        assert!(op(&ps, "loop").unsupported.is_none(), "{}", why("loop"));
        // A recursive helper that uses no map stays an unknown call.
        assert!(op(&ps, "fine").unsupported.is_none());
    }

    #[test]
    fn a_helper_with_early_returns_and_a_retry_loop_is_inlined_with_assignments() {
        let ps = parse(&class(
            "  private Object find(String k, Object n) {\n    while (true) {\n      Object c = cache.get(k);\n      if (c == null) { if (cache.putIfAbsent(k, n) == null) return n; }\n      else { if (cache.replace(k, c, n)) return c; }\n    }\n  }\n  Object use(String k) { Object r = find(k, new Object()); return r; }\n",
        ))
        .expect("parses");
        let u = op(&ps, "use");
        assert!(u.unsupported.is_none(), "{:?}", u.unsupported);
        let mut assigned = Vec::new();
        super::walk_stmts(&u.body, &mut |t, _| assigned.extend(t.map(str::to_owned)));
        for name in ["find#1.n", "find#1", "find#1.returned", "find#1.c", "r"] {
            assert!(assigned.iter().any(|a| a == name), "{name} in {assigned:?}");
        }
        assert!(matches!(
            u.body.last().map(|s| &s.kind),
            Some(StmtKind::Return(_))
        ));
    }

    #[test]
    fn overloads_of_one_arity_are_told_apart_by_the_arguments_static_types() {
        let ps = parse(&class(
            "  Object put(String k, Object v) { return cache.put(k, v); }\n  Object put(String k, Integer n) { return cache.putIfAbsent(k, n); }\n  Object byString(String k, Object v) { Object old = put(k, v); cache.remove(k); return old; }\n  Object byInteger(String k, Integer n) { Object old = put(k, n); cache.remove(k); return old; }\n  Object unknownType(String k) { Object old = put(k, k.length()); cache.remove(k); return old; }\n  Object boxed(String k) { Object old = put(k, Integer.valueOf(3)); cache.remove(k); return old; }\n  Object byNull(String k) { Object old = put(k, null); cache.remove(k); return old; }\n",
        ))
        .expect("parses");
        let calls = |name: &str| {
            let mut out = Vec::new();
            super::walk_stmts(&op(&ps, name).body, &mut |_, e| {
                if let Some(e) = e {
                    super::walk_expr(e, &mut |x| {
                        if let super::ExprKind::MapCall { method, .. } = &x.kind {
                            out.push(method.name());
                        }
                    });
                }
            });
            out
        };
        assert_eq!(calls("byString"), ["put", "remove"]);
        assert_eq!(calls("byInteger"), ["putIfAbsent", "remove"]);
        assert_eq!(calls("boxed"), ["putIfAbsent", "remove"]);
        // `null` is an Object and an Integer alike: Java would pick the Integer one as the
        // more specific, which the exact match does not decide.
        assert!(op(&ps, "byNull").unsupported.is_some());
        // `k.length()`'s type is not in the text: which overload is not followed.
        assert!(op(&ps, "unknownType")
            .unsupported
            .as_ref()
            .is_some_and(|u| u.1.contains("overloads of `put`")));
    }

    #[test]
    fn a_getter_and_a_local_alias_of_the_map_are_the_map() {
        let ps = parse(&class(
            "  ConcurrentHashMap<String, Object> getCache() { return cache; }\n  Object viaGetter(String k) { Object v = getCache().get(k); if (v == null) getCache().put(k, 1); return v; }\n  Object viaThisGetter(String k) { Object v = this.getCache().get(k); this.getCache().remove(k); return v; }\n  Object viaAlias(String k) { Map<String, Object> m = this.cache; Object v = m.get(k); m.remove(k); return v; }\n",
        ))
        .expect("parses");
        for name in ["viaGetter", "viaThisGetter", "viaAlias"] {
            assert!(op(&ps, name).unsupported.is_none(), "{name}");
        }
        // The getter is no operation.
        assert_eq!(ps[0].operations.len(), 3);
    }

    /// The map as a lock (`synchronized (cache) { .. }`, a double-checked cache) is no use of
    /// it: the operation is lowered, its body as a block.
    #[test]
    fn the_map_as_a_lock_is_no_escape() {
        let ps = parse(&class(
            "  Object get(String k) { Object v = cache.get(k); if (v == null) { synchronized (cache) { v = cache.get(k); if (v == null) { v = 1; cache.put(k, v); } } } return v; }\n",
        ))
        .expect("parses");
        let o = op(&ps, "get");
        assert!(o.unsupported.is_none(), "{:?}", o.unsupported);
    }

    /// An interface that extends a concurrent map: its default methods' unqualified calls act
    /// on the map (the JDK's `ConcurrentMap.computeIfAbsent` default); one that extends
    /// another interface does not make its calls map calls.
    #[test]
    fn default_methods_of_an_interface_that_extends_a_concurrent_map_are_operations() {
        let ps = parse(
            "interface Cache<K, V> extends Comparable<K>, ConcurrentMap<K, V> {\n  default V getOrMake(K key, V made) {\n    V v = get(key);\n    if (v == null) {\n      V raced = putIfAbsent(key, made);\n      v = raced == null ? made : raced;\n    }\n    return v;\n  }\n  V abstractOne(K key);\n}\ninterface Other<K, V> extends Comparable<K> {\n  default V twice(K key) { get(key); return get(key); }\n}\n",
        )
        .expect("parses");
        let cache = ps.iter().find(|p| p.class == "Cache").expect("Cache");
        assert_eq!(cache.operations.len(), 1);
        let o = op(&ps, "getOrMake");
        assert!(o.unsupported.is_none(), "{:?}", o.unsupported);
        let other = ps.iter().find(|p| p.class == "Other");
        assert!(other.is_none_or(|p| p.operations.is_empty()), "{other:?}");
    }
}

#[cfg(test)]
mod utility_tests {
    use super::super::ast::ExprKind;
    use super::super::ir::show;
    use crate::java;

    /// After apache/dubbo's `ConcurrentHashMapUtils`
    /// (dubbo-common/src/main/java/org/apache/dubbo/common/utils/ConcurrentHashMapUtils.java),
    /// with a constant of its own and a second utility whose static field is not final.
    const UTILS: &str = "package org.apache.dubbo.common.utils;\nimport java.util.concurrent.ConcurrentMap;\nimport java.util.function.Function;\npublic class ConcurrentHashMapUtils {\n  private static final String NONE = \"none\";\n  public static <K, V> V computeIfAbsent(ConcurrentMap<K, V> map, K key, Function<? super K, ? extends V> func) {\n    Objects.requireNonNull(func);\n    if (JRE.JAVA_8.isCurrentVersion()) {\n      V v = map.get(key);\n      if (null == v) {\n        v = func.apply(key);\n        if (null == v) {\n          return null;\n        }\n        final V res = map.putIfAbsent(key, v);\n        if (null != res) {\n          return res;\n        }\n      }\n      return v;\n    } else {\n      return map.computeIfAbsent(key, func);\n    }\n  }\n  public static <K, V> V orNone(ConcurrentMap<K, V> map, K key) {\n    return map.getOrDefault(key, (V) NONE);\n  }\n}\nclass Counters {\n  static int calls;\n  static <K, V> V take(ConcurrentMap<K, V> map, K key) {\n    calls++;\n    return map.remove(key);\n  }\n}\n";

    fn caller(package: &str, imports: &str) -> String {
        format!("package {package};\n{imports}\nimport java.util.concurrent.*;\npublic class Registry {{\n  private final ConcurrentMap<String, Object> listeners = new ConcurrentHashMap<>();\n  public Object listener(String key) {{\n    return ConcurrentHashMapUtils.computeIfAbsent(listeners, key, k -> new Listener(k, key));\n  }}\n  public Object none(String key) {{\n    Object o = ConcurrentHashMapUtils.orNone(listeners, key);\n    listeners.remove(key);\n    return o;\n  }}\n  public Object taken(String key) {{\n    Object o = Counters.take(listeners, key);\n    listeners.remove(key);\n    return o;\n  }}\n}}\n")
    }

    /// The operations of the caller's file, lowered with the utilities' file.
    fn lowered(caller: &str) -> Vec<super::Program> {
        let files = [java::parse(UTILS).unwrap(), java::parse(caller).unwrap()];
        let refs: Vec<&java::JavaFile> = files.iter().collect();
        super::programs_of(&refs).pop().unwrap().unwrap()
    }

    /// The map calls of `name`, its assignments, and why it is unsupported.
    fn calls(ps: &[super::Program], name: &str) -> (Vec<String>, Option<String>) {
        calls_and_assignments(ps, name).0
    }

    fn calls_and_assignments(
        ps: &[super::Program],
        name: &str,
    ) -> ((Vec<String>, Option<String>), Vec<String>) {
        let op = ps
            .iter()
            .flat_map(|p| &p.operations)
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("no operation {name}"));
        let mut out = Vec::new();
        let mut assigned = Vec::new();
        super::walk_stmts(&op.body, &mut |t, e| {
            if let (Some(t), Some(e)) = (t, e) {
                assigned.push(format!("{t} = {}", show(e)));
            }
            if let Some(e) = e {
                super::walk_expr(e, &mut |x| {
                    if let ExprKind::MapCall { map, method, args } = &x.kind {
                        let args: Vec<String> = args.iter().map(show).collect();
                        out.push(format!("{map}.{}({})", method.name(), args.join(", ")));
                    }
                })
            }
        });
        ((out, op.unsupported.clone().map(|u| u.1)), assigned)
    }

    /// A static method of a utility class of the files given runs in the caller: its map
    /// parameter is the caller's map, its constants are its class's, its map calls are the
    /// operation's. The class is the one Java resolves the name to (a single-type import, the
    /// same package, an import on demand); a class of the name imported from elsewhere is
    /// not followed, nor a class with a static field that is not final.
    #[test]
    fn a_utility_class_static_method_runs_on_the_callers_map() {
        let imported = "import org.apache.dubbo.common.utils.ConcurrentHashMapUtils;";
        for (package, imports) in [
            ("org.apache.dubbo.registry", imported),
            ("org.apache.dubbo.common.utils", ""),
            (
                "org.apache.dubbo.registry",
                "import org.apache.dubbo.common.utils.*;",
            ),
        ] {
            let ps = lowered(&caller(package, imports));
            let ((listener, why), assigned) = calls_and_assignments(&ps, "listener");
            // The lambda applied where the helper applies it, to the helper's argument.
            assert_eq!(
                listener,
                [
                    "listeners.get(key)",
                    "listeners.putIfAbsent(key, computeIfAbsent#1.v)",
                    "listeners.computeIfAbsent(key, computeIfAbsent#1.$arg22_0 -> new Listener(computeIfAbsent#1.$arg22_0, key))"
                ],
                "{package} {imports}"
            );
            assert!(
                assigned.contains(&"computeIfAbsent#1.v = new Listener(key, key)".to_owned()),
                "{assigned:?}"
            );
            assert_eq!(why, None);
            let (none, why) = calls(&ps, "none");
            assert_eq!(
                none,
                [
                    "listeners.getOrDefault(key, ConcurrentHashMapUtils.NONE)",
                    "listeners.remove(key)"
                ]
            );
            assert_eq!(why, None);
            let (_, why) = calls(&ps, "taken");
            assert!(why.unwrap().contains("passed to code"));
        }
        let elsewhere = lowered(&caller(
            "org.apache.dubbo.registry",
            "import com.example.ConcurrentHashMapUtils;",
        ));
        let (calls, why) = calls(&elsewhere, "none");
        assert_eq!(calls, ["listeners.remove(key)"]);
        assert!(why.unwrap().contains("passed to code"));
    }
}

#[cfg(test)]
mod hidden_helper_tests {
    use super::parse;

    /// A helper that uses the map, called from code the lowering does not lower (a `switch`,
    /// a lambda given to unknown code): the operation is unsupported, never analysed as if
    /// the helper's map calls were not there.
    #[test]
    fn a_helper_that_uses_the_map_in_code_not_lowered_is_unsupported() {
        let ps = parse(
            "class C {\n  final ConcurrentHashMap<String, Object> m = new ConcurrentHashMap<>();\n  void drop(String k) { m.remove(k); }\n  Object viaSwitch(String k, int x) { Object v = m.get(k); switch (x) { case 1: drop(k); break; default: break; } m.put(k, 1); return v; }\n  Object viaLambda(String k, java.util.concurrent.Executor e) { Object v = m.get(k); e.execute(() -> drop(k)); m.put(k, 1); return v; }\n}\n",
        )
        .expect("parses");
        for name in ["viaSwitch", "viaLambda"] {
            let op = ps[0]
                .operations
                .iter()
                .find(|o| o.name == name)
                .expect("an operation");
            assert!(op.unsupported.is_some(), "{name}");
        }
    }
}

#[cfg(test)]
mod short_circuit_tests {
    use super::super::{analyse, Verdict};
    use super::parse;
    use hindsight_budget::Budget;

    /// Each `aN` assigns inside `&&`, `||` or `?:`; each `bN` is the same method written with
    /// `if`s, as Java evaluates the `aN` (left to right, the right of `&&` only when the left
    /// is true, of `||` only when it is false, one branch of `?:`). Lowered, the two are the
    /// same operation: the same class, and the same verdict alone and with `--bounded`. A
    /// right side evaluated eagerly would differ (`a4` would always remove).
    const PAIRS: &str = "ConcurrentHashMap<Integer, Integer> m;
Integer a1(Integer k, Integer v) { Integer old; return ((old = m.get(k)) == null && (old = m.putIfAbsent(k, v)) == null) ? v : old; }
Integer b1(Integer k, Integer v) { Integer old = m.get(k); boolean c = false; if (old == null) { old = m.putIfAbsent(k, v); if (old == null) { c = true; } } return c ? v : old; }
boolean a2(Integer k, Integer v) { Integer x; boolean r = (x = m.get(k)) != null || (x = m.put(k, v)) != null; return r; }
boolean b2(Integer k, Integer v) { Integer x = m.get(k); boolean r = true; if (!(x != null)) { x = m.put(k, v); if (!(x != null)) { r = false; } } return r; }
Integer a3(Integer k, Integer v) { Integer x; Integer r = m.containsKey(k) ? (x = m.get(k)) : (x = m.put(k, v)); return r; }
Integer b3(Integer k, Integer v) { Integer x; Integer r; if (m.containsKey(k)) { x = m.get(k); r = x; } else { x = m.put(k, v); r = x; } return r; }
Integer a4(Integer k) { Integer x = null; if (m.get(k) != null && (x = m.remove(k)) != null) { return x; } return m.get(k); }
Integer b4(Integer k) { Integer x = null; boolean c = false; if (m.get(k) != null) { x = m.remove(k); if (x != null) { c = true; } } if (c) { return x; } return m.get(k); }
Integer a5(Integer k, Integer v) { Integer x; if ((x = m.get(k)) == null && (x = m.putIfAbsent(k, v)) == null && (x = m.get(k)) != null) { return x; } return null; }
Integer b5(Integer k, Integer v) { Integer x = m.get(k); boolean c = false; if (x == null) { x = m.putIfAbsent(k, v); if (x == null) { x = m.get(k); if (x != null) { c = true; } } } if (c) { return x; } return null; }
";

    #[test]
    fn assignments_inside_and_or_and_choices_run_as_the_ifs_java_runs() {
        let ps = parse(PAIRS).expect("parses");
        let program = &ps[0];
        for bounded in [false, true] {
            let results = analyse(program, bounded, &Budget::unlimited());
            let get = |name: &str| {
                results
                    .iter()
                    .find(|a| a.name == name)
                    .unwrap_or_else(|| panic!("no operation {name}"))
            };
            for i in 1..=5 {
                let (a, b) = (get(&format!("a{i}")), get(&format!("b{i}")));
                assert_ne!(a.verdict, Verdict::Unsupported, "a{i}: {:?}", a.note);
                assert_eq!(a.verdict, b.verdict, "a{i} and b{i} (bounded {bounded})");
                assert_eq!(
                    a.classification.class, b.classification.class,
                    "a{i} and b{i}"
                );
            }
        }
        // The verdicts themselves, reasoned by hand: `a1` is a get-or-putIfAbsent that keeps
        // the winner (linearizable); `a4` removes only what it saw, but its final get may see
        // another thread's put after a remove (or a miss) it decided on (not linearizable).
        let results = analyse(program, false, &Budget::unlimited());
        let verdict = |name: &str| results.iter().find(|a| a.name == name).map(|a| a.verdict);
        assert_eq!(verdict("a1"), Some(Verdict::Linearizable));
        assert_eq!(verdict("a4"), Some(Verdict::NotLinearizable));
    }

    /// Where the assigned name is read earlier in the statement, or something with an effect
    /// comes first, the `&&` cannot run before its statement: unsupported, as before.
    #[test]
    fn an_assignment_that_cannot_run_first_stays_unsupported() {
        let ps = parse(
            "ConcurrentHashMap<Integer, Integer> m;
int read(Integer k, Integer v) { Integer x = 0; return x + (((x = m.get(k)) == null && (x = m.put(k, v)) == null) ? 1 : 0); }
boolean after(Integer k, Integer v, Object o) { Integer x; return o.check() | (m.get(k) == null && (x = m.put(k, v)) == null); }
",
        )
        .expect("parses");
        for op in &ps[0].operations {
            let (_, what) = op.unsupported.as_ref().expect("unsupported");
            assert!(
                what.contains("assignment inside an expression"),
                "{}: {what}",
                op.name
            );
        }
    }
}

#[cfg(test)]
mod discovery_tests {
    use super::parse;

    fn names(text: &str) -> Vec<String> {
        parse(text)
            .expect("parses")
            .iter()
            .flat_map(|p| {
                p.operations
                    .iter()
                    .map(|o| format!("{}.{}", p.class, o.name))
            })
            .collect()
    }

    /// A field set to a new concurrent map in every assignment the class has is a map; one
    /// also set to a `HashMap` anywhere is not (it may hold one).
    #[test]
    fn a_field_is_a_map_when_every_assignment_sets_a_new_concurrent_map() {
        let two = "Object f(String k) { Object v = m.get(k); m.put(k, 1); return v; }";
        let only = format!("class A {{ private final Map<String, Object> m; A() {{ this.m = new ConcurrentHashMap<>(); }} {two} }}");
        assert_eq!(names(&only), ["A.f"]);
        let mixed = format!("class B {{ private Map<String, Object> m; B() {{ m = new ConcurrentHashMap<>(); }} void reset() {{ m = new HashMap<>(); }} {two} }}");
        assert!(names(&mixed).is_empty(), "{:?}", names(&mixed));
        // A parameter of the field's name hides it: `m = ..` sets the parameter.
        let hidden = format!("class C {{ private Map<String, Object> m; C(Map<String, Object> m) {{ m = new ConcurrentHashMap<>(); }} {two} }}");
        assert!(names(&hidden).is_empty(), "{:?}", names(&hidden));
    }

    /// A base class that reaches its map through an abstract getter: its methods are
    /// operations of the subclass whose getter returns a concurrent map, not of one whose
    /// getter returns a `HashMap`, nor of the base itself.
    #[test]
    fn inherited_methods_are_operations_of_the_class_whose_override_gives_the_map() {
        let text = "abstract class Base { abstract Map<String, Object> map(); Object swap(String k) { Object v = map().get(k); map().put(k, 1); return v; } }
class Concurrent extends Base { private final Map<String, Object> m = new ConcurrentHashMap<>(); Map<String, Object> map() { return m; } }
class Plain extends Base { private final Map<String, Object> m = new HashMap<>(); Map<String, Object> map() { return m; } }
class Own extends Base { private final Map<String, Object> n = new ConcurrentHashMap<>(); Map<String, Object> map() { return new HashMap<>(); } }
";
        assert_eq!(names(text), ["Concurrent.swap"]);
    }

    /// A constructor is an operation when it uses a static map, not its object's own.
    #[test]
    fn constructors_on_static_maps_are_operations() {
        let text = "class F { static final Map<Long, F> ALL = new ConcurrentHashMap<>(); final Map<String, Object> own = new ConcurrentHashMap<>(); final Long id;
  F(Long id) { this.id = id; ALL.put(id, this); ALL.get(id); }
  F() { this.id = 0L; own.put(\"a\", 1); own.put(\"b\", 2); }
}";
        assert_eq!(names(text), ["F.F"]);
    }
}
