//! Atomic accesses (`aload`, `astore`, `rmw`) in every format: read and written exactly, bad
//! input refused with its line or byte, refused by the writers of formats that cannot carry
//! them, and every existing example trace read as before.

mod common;

use common::{binary_error, read_binary, read_text, text_error, to_binary, to_text, Trickle};
use hindsight_trace::binary::{MAGIC, VERSION};
use hindsight_trace::rapid::{write_rapid, WriteRapidError};
use hindsight_trace::{
    BinaryReader, ErrorKind, Op, Position, RapidBinWriter, RoadRunnerWriter, Trace, VarId,
};
use std::path::Path;

// Record layout, from the format description in `binary.rs`.
const DEF: u8 = 0;
const END: u8 = 0x1f;
const HAS_LOC: u8 = 0x40;
const NEW_THREAD: u8 = 0x80;
const OP_ALOAD: u8 = 14;
const OP_ASTORE: u8 = 15;
const OP_RMW: u8 = 16;

const TRACE: &str = "\
T0|astore(flag)|a.rs:3
T0|fork(T1)
T1|aload(flag)|a.rs:7
T1|rmw(count)|a.rs:8
T0|rmw(count)
T1|snd(count)
T0|rcv(count)
T0|aload(count)|a.rs:12
";

#[test]
fn text_reads_each_kind_on_its_variable() {
    let t = read_text(TRACE).unwrap();
    let ops: Vec<Op> = t.events.iter().map(|e| e.op.clone()).collect();
    let (flag, count) = (VarId(0), VarId(1));
    assert_eq!(t.names.var(flag), "flag");
    assert_eq!(t.names.var(count), "count");
    assert_eq!(ops[0], Op::AtomicStore(flag));
    assert_eq!(ops[2], Op::AtomicLoad(flag));
    assert_eq!(ops[3], Op::AtomicRmw(count));
    assert_eq!(ops[4], Op::AtomicRmw(count));
    assert_eq!(ops[7], Op::AtomicLoad(count));
    // An RMW is one event that both reads and writes.
    assert!(ops[3].reads() && ops[3].writes() && ops[3].is_atomic());
    assert!(ops[2].reads() && !ops[2].writes());
    assert!(!ops[0].reads() && ops[0].writes());
    assert!(!Op::Read(flag).is_atomic());
    assert_eq!(to_text(&t).unwrap(), TRACE);
}

#[test]
fn binary_round_trip_and_layout() {
    let t = read_text(TRACE).unwrap();
    let bin = to_binary(&t);
    let back = read_binary(&bin).unwrap();
    assert_eq!(back.events, t.events);
    assert_eq!(to_text(&back).unwrap(), TRACE);
    let trickled = Trace::collect(&mut BinaryReader::new(Trickle { data: &bin, n: 1 })).unwrap();
    assert_eq!(trickled.events, t.events);

    let one = read_text("T0|rmw(x)|5\nT0|aload(x)\nT0|astore(x)\n").unwrap();
    let mut expected = MAGIC.to_vec();
    expected.push(VERSION as u8);
    expected.extend([DEF, 0, 2, b'T', b'0', DEF, 1, 1, b'x', DEF, 6, 1, b'5']);
    expected.extend([OP_RMW | NEW_THREAD | HAS_LOC, 0, 0, 0]);
    expected.extend([OP_ALOAD, 0]);
    expected.extend([OP_ASTORE, 0]);
    expected.extend([END, 3]);
    assert_eq!(to_binary(&one), expected);
}

#[test]
fn text_errors_name_their_line() {
    for (bad, what) in [
        ("T1|aload", "needs a target"),
        ("T1|astore|4", "needs a target"),
        ("T1|rmw()", ""),
        ("T1|rmw(x", "expected `rmw(TARGET)`"),
        ("T1|aload(x)garbage", "expected `aload(TARGET)`"),
    ] {
        let e = text_error(&format!("T0|r(y)\n{bad}\n"));
        assert_eq!(e.pos, Position::Line(2), "{bad}: {e}");
        assert!(
            matches!(e.kind, ErrorKind::Syntax(_)),
            "{bad}: {:?}",
            e.kind
        );
        assert!(e.kind.to_string().contains(what), "{bad}: {}", e.kind);
    }
    let e = text_error("T0|rmwx(y)\n");
    assert_eq!(e.kind, ErrorKind::UnknownOp("rmwx".into()));
}

#[test]
fn binary_errors_name_their_byte() {
    let mut f = MAGIC.to_vec();
    f.push(VERSION as u8);
    f.extend([DEF, 0, 2, b'T', b'0']);
    let event_at = f.len() as u64;
    // An RMW of variable 0 before any variable is defined.
    let mut undefined = f.clone();
    undefined.extend([OP_RMW | NEW_THREAD, 0, 0, END, 1]);
    let e = binary_error(&undefined);
    assert_eq!(e.pos, Position::Byte(event_at), "{e}");
    assert!(
        e.kind.to_string().contains("used before it is defined"),
        "{e}"
    );
    // The first code after the atomics is still unknown.
    let mut unknown = f.clone();
    unknown.extend([(OP_RMW + 1) | NEW_THREAD, 0, 0, END, 1]);
    let e = binary_error(&unknown);
    assert_eq!(e.pos, Position::Byte(event_at), "{e}");
    assert!(e.kind.to_string().contains("unknown record tag"), "{e}");
    // An atomic cut before its operand.
    let mut cut = f;
    cut.extend([OP_ALOAD | NEW_THREAD, 0]);
    assert!(matches!(
        binary_error(&cut).kind,
        ErrorKind::Truncated(_) | ErrorKind::Corrupt(_)
    ));
}

/// RAPID and RoadRunner have no atomic accesses; as plain reads and writes RAPID would
/// report them as data races, so every writer refuses them rather than lowering them.
#[test]
fn writers_of_other_formats_refuse_atomics() {
    for line in ["T0|aload(x)", "T0|astore(x)|3", "T0|rmw(x)|3"] {
        let t = read_text(&format!("T0|w(y)\n{line}\n")).unwrap();
        let (mut out, mut map) = (Vec::new(), Vec::new());
        match write_rapid(&mut t.source(), &mut out, &mut map) {
            Err(WriteRapidError::Trace(e)) => {
                assert_eq!(e.pos, Position::Event(1));
                assert!(
                    e.kind.to_string().contains("no atomic accesses"),
                    "{}",
                    e.kind
                );
            }
            other => panic!("{line}: {other:?}"),
        }
        let mut rb = RapidBinWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        rb.write_event(&t.events[0]).unwrap();
        let e = rb.write_event(&t.events[1]).unwrap_err();
        assert!(e.to_string().contains("no atomic accesses"), "{e}");
        let mut rr = RoadRunnerWriter::new(Vec::new());
        let e = rr.write_event(&t.events[1], &t.names).unwrap_err();
        assert!(e.to_string().contains("no atomic accesses"), "{e}");
    }
}

fn std_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            std_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "std") {
            out.push(p);
        }
    }
}

/// Every example trace of the repository, written before atomics existed, reads as before:
/// no event becomes an atomic, and text and binary agree on it.
#[test]
fn existing_examples_read_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files = Vec::new();
    std_files(&root, &mut files);
    assert!(files.len() > 20, "{} example traces", files.len());
    let mut read = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let Ok(t) = read_text(&text) else { continue };
        read += 1;
        assert!(
            !t.events.iter().any(|e| e.op.is_atomic()),
            "{}",
            f.display()
        );
        let back = read_binary(&to_binary(&t)).unwrap();
        assert_eq!(back.events, t.events, "{}", f.display());
    }
    assert!(read > 20, "{read} example traces read");
}
