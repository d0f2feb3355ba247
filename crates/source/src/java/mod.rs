//! The Java front end of the source analyses: any syntactically valid Java file, parsed with
//! tree-sitter-java (a complete Java grammar, so nothing a compiler accepts is refused), and
//! the declarations the analyses start from — classes (with enums, records, interfaces and
//! nested classes), their fields and their methods, each with its source position.
//!
//! A file may also be a *snippet*: fields and methods with no enclosing class (the grammar
//! accepts them at the top level); they form one class without a name, so the operations the
//! paper quotes can be pasted as they are.
//!
//! It owns syntax only: what a method means is the caller's (`composed::front` lowers methods
//! to composed operations; `views` will read the same declarations). It knows no analysis,
//! never opens a file and never prints.

use hindsight_syntax::{Pos, SyntaxError, MAX_NESTING};
use tree_sitter::{Node, Parser, Tree};

/// A parsed file: its text and syntax tree.
pub struct JavaFile {
    pub text: String,
    pub tree: Tree,
}

/// Parses `text`; a syntax error is reported at its line and column, naming the construct it
/// is in (`syntax error in the if statement of method `get`: unexpected `)``).
pub fn parse(text: &str) -> Result<JavaFile, SyntaxError> {
    thread_local! {
        // One parser per thread: setting the language up costs more than a small file's parse.
        static PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
    }
    let tree = PARSER.with(|cell| -> Result<Tree, SyntaxError> {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_java::LANGUAGE.into())
                .map_err(|e| SyntaxError::new(Pos::new(1, 1), format!("the Java grammar: {e}")))?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut().expect("set above");
        parser
            .parse(text, None)
            .ok_or_else(|| SyntaxError::new(Pos::new(1, 1), "the Java parser gave up"))
    })?;
    let file = JavaFile {
        text: text.to_owned(),
        tree,
    };
    if let Some(e) = file.first_error() {
        return Err(e);
    }
    Ok(file)
}

impl JavaFile {
    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The source text of `node`.
    pub fn text_of(&self, node: Node) -> &str {
        &self.text[node.byte_range()]
    }

    /// The 1-based line and column (in characters) where `node` starts.
    pub fn pos(&self, node: Node) -> Pos {
        pos_at(&self.text, node.start_byte(), node.start_position().row)
    }

    /// The line where `node` ends.
    pub fn end_line(&self, node: Node) -> u32 {
        node.end_position().row as u32 + 1
    }

    /// The first ERROR or MISSING node, in source order, as a syntax error.
    fn first_error(&self) -> Option<SyntaxError> {
        if !self.root().has_error() {
            return None;
        }
        // Iterative: the tree can be as deep as the input is nested.
        let mut cursor = self.root().walk();
        loop {
            let node = cursor.node();
            if node.is_error() || node.is_missing() {
                return Some(self.describe_error(node));
            }
            if node.has_error() && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    // Errors the grammar reports only as a flag on the root.
                    return Some(SyntaxError::new(self.pos(self.root()), "syntax error"));
                }
            }
        }
    }

    fn describe_error(&self, node: Node) -> SyntaxError {
        let construct = enclosing_construct(self, node);
        if node.is_missing() {
            return SyntaxError::new(
                self.pos(node),
                format!("syntax error in {construct}: missing `{}`", node.kind()),
            );
        }
        // An error that swallowed lines of valid code (an unterminated string takes the
        // method with it) is shown where it ends, at the token the parser could not place.
        let node = if node.start_position().row != node.end_position().row {
            let mut c = node.walk();
            let last = node.children(&mut c).last();
            last.unwrap_or(node)
        } else {
            node
        };
        let text = self.text_of(node);
        let first: String = text
            .split_whitespace()
            .next()
            .unwrap_or("")
            .chars()
            .take(40)
            .collect();
        let what = if first.is_empty() {
            "unexpected end of file".to_owned()
        } else {
            format!("unexpected `{first}`")
        };
        SyntaxError::new(
            self.pos(node),
            format!("syntax error in {construct}: {what}"),
        )
    }
}

fn pos_at(text: &str, byte: usize, row: usize) -> Pos {
    let line_start = text[..byte].rfind('\n').map_or(0, |i| i + 1);
    let col = text[line_start..byte].chars().count() + 1;
    Pos::new(row as u32 + 1, col as u32)
}

/// "the if statement of method `get`": the nearest construct around an error, and the method
/// or class it is in.
fn enclosing_construct(file: &JavaFile, node: Node) -> String {
    let mut construct = None;
    let mut owner = None;
    let mut at = node.parent();
    while let Some(n) = at {
        if !n.is_error() && n.is_named() {
            if construct.is_none() && n.kind() != "block" {
                construct = Some(n.kind());
            }
            if owner.is_none() {
                let word = match n.kind() {
                    "method_declaration" => Some("method"),
                    "constructor_declaration" => Some("constructor"),
                    "class_declaration" => Some("class"),
                    "interface_declaration" => Some("interface"),
                    "enum_declaration" => Some("enum"),
                    "record_declaration" => Some("record"),
                    _ => None,
                };
                if let (Some(word), Some(name)) = (word, n.child_by_field_name("name")) {
                    owner = Some(format!("{word} `{}`", file.text_of(name)));
                }
            }
        }
        at = n.parent();
    }
    let construct = match construct {
        None | Some("program") => "the file".to_owned(),
        Some(k) => format!("the {}", k.replace('_', " ")),
    };
    match owner {
        Some(o) if !construct.ends_with(&o) => format!("{construct} of {o}"),
        _ => construct,
    }
}

/// A class, interface, enum or record (or the snippet's unnamed class).
#[derive(Clone, Debug)]
pub struct ClassDecl<'t> {
    /// Qualified by its enclosing classes (`Outer.Inner`); empty for a snippet.
    pub name: String,
    pub pos: Pos,
    /// The type it extends, as written (`ConcurrentHashMap<K, V>`).
    pub superclass: Option<String>,
    /// The interfaces it implements, as written (`Runnable`).
    pub interfaces: Vec<String>,
    /// For an interface, the interfaces it extends, as written (`ConcurrentMap<K, V>`).
    pub extends_interfaces: Vec<String>,
    pub fields: Vec<FieldDecl<'t>>,
    pub methods: Vec<MethodDecl<'t>>,
    /// Its declaration (`new T(..) { .. }` for an anonymous class; the file's root for a
    /// snippet).
    pub node: Node<'t>,
}

/// One declared field (`int a, b;` declares two).
#[derive(Clone, Debug)]
pub struct FieldDecl<'t> {
    pub name: String,
    /// The declared type as written, array dimensions included.
    pub ty: String,
    pub is_final: bool,
    pub is_static: bool,
    pub init: Option<Node<'t>>,
    pub pos: Pos,
}

/// A method or constructor with a body.
#[derive(Clone, Debug)]
pub struct MethodDecl<'t> {
    pub name: String,
    /// The declared result type as written (`void` for none; empty for a constructor).
    pub ret: String,
    pub params: Vec<ParamDecl>,
    /// Its last parameter is `T... xs` (its type is written `T[]` in `params`).
    pub varargs: bool,
    pub body: Node<'t>,
    pub is_constructor: bool,
    pub is_synchronized: bool,
    pub is_public: bool,
    pub is_static: bool,
    /// The names of its annotations, without `@` or arguments (`Atomic`, `Override`).
    pub annotations: Vec<String>,
    /// Where the declaration starts (its annotations and modifiers included).
    pub pos: Pos,
    pub end_line: u32,
}

#[derive(Clone, Debug)]
pub struct ParamDecl {
    pub name: String,
    pub ty: String,
    pub pos: Pos,
}

/// Every class of `file`, outer classes before the classes they contain; a snippet's
/// top-level fields and methods form the first, unnamed class. Classes nested deeper than
/// [`MAX_NESTING`] are an error (the walk is recursive).
pub fn classes(file: &JavaFile) -> Result<Vec<ClassDecl<'_>>, SyntaxError> {
    let mut out = Vec::new();
    let root = file.root();
    let mut snippet = ClassDecl {
        name: String::new(),
        pos: Pos::new(1, 1),
        superclass: None,
        interfaces: Vec::new(),
        extends_interfaces: Vec::new(),
        fields: Vec::new(),
        methods: Vec::new(),
        node: root,
    };
    let mut nested = Vec::new();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "local_variable_declaration" => fields_of(file, child, &mut snippet.fields),
            "method_declaration" => {
                if let Some(m) = method_of(file, child) {
                    snippet.methods.push(m);
                }
            }
            _ => nested.push(child),
        }
    }
    if !snippet.fields.is_empty() || !snippet.methods.is_empty() {
        out.push(snippet);
    }
    for n in nested {
        collect_classes(file, n, "", 0, &mut out)?;
    }
    Ok(out)
}

fn is_class_kind(kind: &str) -> bool {
    matches!(
        kind,
        "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration"
    )
}

fn collect_classes<'t>(
    file: &'t JavaFile,
    node: Node<'t>,
    outer: &str,
    depth: usize,
    out: &mut Vec<ClassDecl<'t>>,
) -> Result<(), SyntaxError> {
    if depth > MAX_NESTING {
        return Err(SyntaxError::new(
            file.pos(node),
            format!("classes nested more than {MAX_NESTING} deep"),
        ));
    }
    if !is_class_kind(node.kind()) {
        // Packages, imports, and statements of a snippet: look inside for classes only.
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for c in children {
            if is_class_kind(c.kind()) {
                collect_classes(file, c, outer, depth + 1, out)?;
            }
        }
        return Ok(());
    }
    let simple = node
        .child_by_field_name("name")
        .map(|n| file.text_of(n).to_owned())
        .unwrap_or_default();
    let name = if outer.is_empty() {
        simple
    } else {
        format!("{outer}.{simple}")
    };
    let superclass = node.child_by_field_name("superclass").and_then(|s| {
        let mut c = s.walk();
        let ty = s.named_children(&mut c).next();
        ty.map(|t| file.text_of(t).to_owned())
    });
    let interfaces = node
        .child_by_field_name("interfaces")
        .map(|s| {
            let mut found = Vec::new();
            let mut c = s.walk();
            for list in s.named_children(&mut c) {
                let mut c2 = list.walk();
                for t in list.named_children(&mut c2) {
                    found.push(file.text_of(t).to_owned());
                }
            }
            found
        })
        .unwrap_or_default();
    // `interface I extends A, B`: no field name in the grammar, a child of its own kind.
    let extends_interfaces = {
        let mut c = node.walk();
        let list = node
            .named_children(&mut c)
            .find(|k| k.kind() == "extends_interfaces");
        list.map(|l| {
            let mut types = Vec::new();
            let mut c = l.walk();
            for t in l.named_children(&mut c) {
                if t.kind() == "type_list" {
                    let mut c2 = t.walk();
                    types.extend(
                        t.named_children(&mut c2)
                            .map(|x| file.text_of(x).to_owned()),
                    );
                } else {
                    types.push(file.text_of(t).to_owned());
                }
            }
            types
        })
        .unwrap_or_default()
    };
    let mut class = ClassDecl {
        name: name.clone(),
        pos: file.pos(node),
        superclass,
        interfaces,
        extends_interfaces,
        fields: Vec::new(),
        methods: Vec::new(),
        node,
    };
    let mut inner = Vec::new();
    if let Some(body) = node.child_by_field_name("body") {
        members(file, body, &mut class, &mut inner);
    }
    finish(file, class, inner, depth, out)
}

/// Pushes `class`, then the classes declared in it: its nested classes (in `inner`), and the
/// anonymous and local classes of its methods and field initializers.
fn finish<'t>(
    file: &'t JavaFile,
    class: ClassDecl<'t>,
    inner: Vec<Node<'t>>,
    depth: usize,
    out: &mut Vec<ClassDecl<'t>>,
) -> Result<(), SyntaxError> {
    let name = class.name.clone();
    let mut code: Vec<Node<'t>> = class.methods.iter().map(|m| m.body).collect();
    code.extend(class.fields.iter().filter_map(|f| f.init));
    out.push(class);
    for c in inner {
        collect_classes(file, c, &name, depth + 1, out)?;
    }
    for root in code {
        // Down the code iteratively, not into the classes found (their own members are
        // walked when they are pushed).
        let mut stack = vec![root];
        while let Some(x) = stack.pop() {
            if is_class_kind(x.kind()) {
                collect_classes(file, x, &name, depth + 1, out)?;
                continue;
            }
            if x.kind() == "object_creation_expression" {
                if let Some(body) = anonymous_body(x) {
                    if depth > MAX_NESTING {
                        return Err(SyntaxError::new(
                            file.pos(x),
                            format!("classes nested more than {MAX_NESTING} deep"),
                        ));
                    }
                    let ty = x
                        .child_by_field_name("type")
                        .map(|t| file.text_of(t))
                        .unwrap_or("");
                    let pos = file.pos(x);
                    let mut class = ClassDecl {
                        name: format!("{name}.<anonymous {} at line {}>", base_type(ty), pos.line),
                        pos,
                        superclass: Some(ty.to_owned()),
                        interfaces: Vec::new(),
                        extends_interfaces: Vec::new(),
                        fields: Vec::new(),
                        methods: Vec::new(),
                        node: x,
                    };
                    let mut inner = Vec::new();
                    members(file, body, &mut class, &mut inner);
                    finish(file, class, inner, depth + 1, out)?;
                    // Its arguments are the enclosing code's.
                    if let Some(args) = x.child_by_field_name("arguments") {
                        stack.push(args);
                    }
                    continue;
                }
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
    }
    Ok(())
}

/// Where the simple names of the classes a file uses are declared: its package, its
/// single-type imports (qualified: `a.b.C`) and the packages it imports on demand (`a.b`
/// for `import a.b.*;`). Static imports are left out: they name members, not classes.
#[derive(Clone, Debug, Default)]
pub struct Imports {
    pub package: String,
    pub types: Vec<String>,
    pub on_demand: Vec<String>,
}

/// The package and imports of `file` (its top-level declarations).
pub fn imports(file: &JavaFile) -> Imports {
    let mut out = Imports::default();
    let root = file.tree.root_node();
    let mut cursor = root.walk();
    for d in root.named_children(&mut cursor) {
        let mut c = d.walk();
        let parts: Vec<Node> = d.children(&mut c).collect();
        let name = parts
            .iter()
            .find(|p| matches!(p.kind(), "scoped_identifier" | "identifier"))
            .map(|p| file.text_of(*p).to_owned());
        let Some(name) = name else { continue };
        match d.kind() {
            "package_declaration" => out.package = name,
            "import_declaration" if !parts.iter().any(|p| p.kind() == "static") => {
                if parts.iter().any(|p| p.kind() == "asterisk") {
                    out.on_demand.push(name);
                } else {
                    out.types.push(name);
                }
            }
            _ => {}
        }
    }
    out
}

/// The class body of `new T(..) { .. }`, if it has one.
pub fn anonymous_body(node: Node) -> Option<Node> {
    let mut c = node.walk();
    let body = node
        .named_children(&mut c)
        .find(|k| k.kind() == "class_body");
    body
}

/// The fields and methods of a class body into `class`, its nested classes into `inner`.
fn members<'t>(
    file: &'t JavaFile,
    body: Node<'t>,
    class: &mut ClassDecl<'t>,
    inner: &mut Vec<Node<'t>>,
) {
    let mut cursor = body.walk();
    let mut members: Vec<Node> = body.named_children(&mut cursor).collect();
    // An enum's fields and methods sit in its body declarations.
    if let Some(decls) = members
        .iter()
        .position(|m| m.kind() == "enum_body_declarations")
    {
        let d = members.remove(decls);
        let mut c = d.walk();
        members.extend(d.named_children(&mut c));
    }
    for m in members {
        match m.kind() {
            "field_declaration" | "constant_declaration" => fields_of(file, m, &mut class.fields),
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration" => {
                if let Some(decl) = method_of(file, m) {
                    class.methods.push(decl);
                }
            }
            k if is_class_kind(k) => inner.push(m),
            _ => {}
        }
    }
}

fn modifiers(file: &JavaFile, node: Node) -> Vec<String> {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| c.kind() == "modifiers");
    let Some(m) = found else {
        return Vec::new();
    };
    let mut c = m.walk();
    m.children(&mut c)
        .filter(|x| !x.kind().contains("annotation"))
        .map(|x| file.text_of(x).to_owned())
        .collect()
}

/// The names of the annotations among the modifiers of `node` (a declaration or a local
/// variable declaration), without `@`, package or arguments.
pub fn annotations(file: &JavaFile, node: Node) -> Vec<String> {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| c.kind() == "modifiers");
    let Some(m) = found else {
        return Vec::new();
    };
    let mut c = m.walk();
    m.children(&mut c)
        .filter(|x| x.kind().contains("annotation"))
        .filter_map(|x| x.child_by_field_name("name"))
        .map(|n| base_type(file.text_of(n)).to_owned())
        .collect()
}

/// The fields of one declaration (`field_declaration`, or a snippet's top-level
/// `local_variable_declaration`).
fn fields_of<'t>(file: &'t JavaFile, node: Node<'t>, out: &mut Vec<FieldDecl<'t>>) {
    let mods = modifiers(file, node);
    let ty = node
        .child_by_field_name("type")
        .map(|t| file.text_of(t).to_owned())
        .unwrap_or_default();
    let mut cursor = node.walk();
    for d in node.children_by_field_name("declarator", &mut cursor) {
        let Some(name) = d.child_by_field_name("name") else {
            continue;
        };
        let dims = d
            .child_by_field_name("dimensions")
            .map(|x| file.text_of(x).to_owned())
            .unwrap_or_default();
        out.push(FieldDecl {
            name: file.text_of(name).to_owned(),
            ty: format!("{ty}{dims}"),
            is_final: mods.iter().any(|m| m == "final"),
            is_static: mods.iter().any(|m| m == "static"),
            init: d.child_by_field_name("value"),
            pos: file.pos(name),
        });
    }
}

fn method_of<'t>(file: &'t JavaFile, node: Node<'t>) -> Option<MethodDecl<'t>> {
    let body = node.child_by_field_name("body")?;
    let mods = modifiers(file, node);
    let name = node
        .child_by_field_name("name")
        .map(|n| file.text_of(n).to_owned())
        .unwrap_or_default();
    let mut params = Vec::new();
    if let Some(ps) = node.child_by_field_name("parameters") {
        let mut cursor = ps.walk();
        for p in ps.named_children(&mut cursor) {
            if !matches!(p.kind(), "formal_parameter" | "spread_parameter") {
                continue;
            }
            let ty = p
                .child_by_field_name("type")
                .or_else(|| {
                    let mut c = p.walk();
                    let first = p
                        .named_children(&mut c)
                        .find(|x| !matches!(x.kind(), "modifiers" | "variable_declarator"));
                    first
                })
                .map(|t| file.text_of(t).to_owned())
                .unwrap_or_default();
            let pname = p.child_by_field_name("name").or_else(|| {
                // `T... xs`: the name sits in a variable declarator.
                let mut c = p.walk();
                let d = p
                    .named_children(&mut c)
                    .find(|x| x.kind() == "variable_declarator");
                d.and_then(|d| d.child_by_field_name("name"))
            });
            let Some(pname) = pname else { continue };
            let ty = if p.kind() == "spread_parameter" {
                format!("{ty}[]")
            } else {
                ty
            };
            params.push(ParamDecl {
                name: file.text_of(pname).to_owned(),
                ty,
                pos: file.pos(pname),
            });
        }
    }
    let varargs = node.child_by_field_name("parameters").is_some_and(|ps| {
        let mut c = ps.walk();
        let last = ps.named_children(&mut c).last();
        last.is_some_and(|p| p.kind() == "spread_parameter")
    });
    let ret = node
        .child_by_field_name("type")
        .map(|t| file.text_of(t).to_owned())
        .unwrap_or_default();
    Some(MethodDecl {
        name,
        ret,
        params,
        varargs,
        body,
        is_constructor: node.kind() != "method_declaration",
        is_synchronized: mods.iter().any(|m| m == "synchronized"),
        is_public: mods.iter().any(|m| m == "public"),
        is_static: mods.iter().any(|m| m == "static"),
        annotations: annotations(file, node),
        pos: file.pos(node),
        end_line: file.end_line(node),
    })
}

/// The base name of a type as written: `java.util.concurrent.ConcurrentHashMap<K, V>` and
/// `ConcurrentHashMap<K,V>` are both `ConcurrentHashMap`.
pub fn base_type(ty: &str) -> &str {
    let no_args = ty.split('<').next().unwrap_or("").trim();
    no_args.rsplit('.').next().unwrap_or(no_args)
}

/// The maps of `java.util.concurrent` (the types whose base methods are atomic).
pub fn is_concurrent_map_type(ty: &str) -> bool {
    // An array of maps is no map; a map of arrays (`ConcurrentHashMap<String, byte[]>`) is one.
    let outside_arguments = ty.rsplit('>').next().unwrap_or(ty);
    !outside_arguments.contains('[')
        && matches!(
            base_type(ty),
            "ConcurrentHashMap"
                | "ConcurrentMap"
                | "ConcurrentSkipListMap"
                | "ConcurrentNavigableMap"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_names_its_construct_and_method() {
        let e = parse("class A {\n  int get(int k) {\n    if (k > ) return 1;\n  }\n}\n")
            .err()
            .expect("an error");
        assert_eq!(e.pos.line, 3, "{e}");
        assert!(e.message.starts_with("syntax error in the "), "{e}");
        assert!(e.message.contains("of method `get`"), "{e}");
        let e = parse("class A {\n  int get(int k) {\n    return k\n  }\n}\n")
            .err()
            .expect("an error");
        assert_eq!(
            e.to_string(),
            "3:13: syntax error in the return statement of method `get`: missing `;`"
        );
    }

    #[test]
    fn classes_fields_and_methods() {
        let f = parse(
            "package p;\nimport java.util.concurrent.*;\npublic class A extends ConcurrentHashMap<String, Integer> {\n  private final Map<String, Integer> m = new ConcurrentHashMap<>(), n;\n  int x[];\n  public synchronized int get2(String k, int... more) { return 1; }\n  class B { enum E { X; void f() {} } }\n}\n",
        )
        .expect("parses");
        let cs = classes(&f).expect("classes");
        let names: Vec<&str> = cs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["A", "A.B", "A.B.E"]);
        let a = &cs[0];
        assert_eq!(
            a.superclass.as_deref(),
            Some("ConcurrentHashMap<String, Integer>")
        );
        assert_eq!(a.fields.len(), 3);
        assert!(a.fields[0].is_final && a.fields[0].init.is_some());
        assert_eq!(a.fields[2].ty, "int[]");
        let m = &a.methods[0];
        assert!(m.is_synchronized);
        assert_eq!(m.params[1].ty, "int[]");
        assert_eq!(m.pos, Pos::new(6, 3));
        assert_eq!(cs[2].methods[0].name, "f");
    }

    #[test]
    fn a_snippet_is_one_unnamed_class() {
        let f =
            parse("ConcurrentHashMap<String, Integer> m;\nint f(String k) { return m.get(k); }\n")
                .expect("parses");
        let cs = classes(&f).expect("classes");
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].name, "");
        assert_eq!(cs[0].fields[0].name, "m");
        assert_eq!(cs[0].methods[0].name, "f");
    }

    #[test]
    fn concurrent_map_types() {
        assert!(is_concurrent_map_type("ConcurrentHashMap<K, V>"));
        assert!(is_concurrent_map_type(
            "java.util.concurrent.ConcurrentMap<K,V>"
        ));
        assert!(!is_concurrent_map_type("HashMap<K, V>"));
        assert!(!is_concurrent_map_type("MyConcurrentMapLike"));
        assert!(!is_concurrent_map_type("ConcurrentHashMap<K, V>[]"));
        assert!(!is_concurrent_map_type("ConcurrentHashMap[]"));
        // couteau's MappedClassLoader: a map whose values are arrays.
        assert!(is_concurrent_map_type("ConcurrentHashMap<String, byte[]>"));
        assert!(is_concurrent_map_type("ConcurrentMap<String, List<int[]>>"));
    }
}
