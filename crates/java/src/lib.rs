//! Recording Java programs: the `-javaagent` jar (built from `agent/` by this crate's build
//! script and embedded in the binary) and the library side of `hindsight record -- java ...`:
//! finding the agent, building the JVM command, running it and making sure a trace comes out
//! of it even when the JVM is killed. See docs/java.md.

use hindsight_trace::{BinaryReader, BinaryWriter, EventSource, OutputFile};
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

#[cfg(hindsight_agent)]
const AGENT: Option<&[u8]> = Some(include_bytes!(env!("HINDSIGHT_AGENT_JAR")));
#[cfg(not(hindsight_agent))]
const AGENT: Option<&[u8]> = None;

/// What the build lacked, when the agent could not be built.
#[cfg(not(hindsight_agent))]
const MISSING: &str = env!("HINDSIGHT_AGENT_MISSING");
#[cfg(hindsight_agent)]
const MISSING: &str = "";

/// Why a recording could not be made.
#[derive(Debug)]
pub enum RecordError {
    /// The binary was built without a JDK or ASM.
    NoAgent(String),
    /// The command line cannot be run as asked.
    Usage(String),
    Io(String, io::Error),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::NoAgent(why) => write!(
                f,
                "this hindsight was built without its Java agent ({why}); install a JDK and ASM \
                 (`apt-get install default-jdk-headless libasm-java`) and build it again \
                 (`cargo install --path crates/cli --force` or `cargo build`)"
            ),
            RecordError::Usage(msg) => f.write_str(msg),
            RecordError::Io(what, e) => write!(f, "{what}: {e}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// Whether this build carries the agent.
pub fn agent_built() -> bool {
    AGENT.is_some()
}

/// A 64-bit FNV-1a hash, naming the agent's cache file by its content.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The folder the agent jar is cached in: `$XDG_CACHE_HOME/hindsight`, else
/// `$HOME/.cache/hindsight`, else the temporary folder.
fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("hindsight")
}

/// The agent jar on disk: written once into the cache, named by its content's hash (through
/// a temporary file renamed into place, so a concurrent run never sees half a jar).
pub fn agent_jar() -> Result<PathBuf, RecordError> {
    let bytes = AGENT.ok_or_else(|| RecordError::NoAgent(MISSING.to_string()))?;
    // A cache folder that cannot be written (a read-only home) falls back to the temporary one.
    cached_jar(bytes, &cache_dir())
        .or_else(|_| cached_jar(bytes, &std::env::temp_dir().join("hindsight")))
}

fn cached_jar(bytes: &[u8], dir: &Path) -> Result<PathBuf, RecordError> {
    let path = dir.join(format!("hindsight-agent-{:016x}.jar", fnv(bytes)));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64) {
        return Ok(path);
    }
    let io = |e| RecordError::Io(format!("cannot write the agent to {}", dir.display()), e);
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".hindsight-agent")
        .tempfile_in(dir)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.persist(&path).map_err(|e| io(e.error))?;
    Ok(path)
}

/// What `hindsight record` runs.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    /// The trace to write; by default `hindsight-<main class>.hst`.
    pub out: Option<PathBuf>,
    /// Agent options (`include=`, `exclude=`, `synchronized-atomic`, ...), comma-joined.
    pub agent_options: Vec<String>,
    /// The JVM command: `java` and its arguments.
    pub command: Vec<OsString>,
    /// When to stop the program before it ends by itself.
    pub limits: RecordLimits,
}

/// Limits on a recording. When one is reached the program is stopped as `kill` stops it
/// (SIGTERM), so that the agent's shutdown hook writes what is buffered and the end record;
/// a JVM still running [`GRACE`] later is killed and its trace salvaged. A program that never
/// ends (a server, a test that loops until it is killed, as MoTH's do) would otherwise fill
/// the disk: the agent writes some ten megabytes a second of a busy loop.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordLimits {
    /// Stop the program after this long.
    pub timeout: Option<Duration>,
    /// Stop the program once its trace holds this many bytes. `None`: half the space free on
    /// the trace's file system when the recording starts.
    pub max_trace_bytes: Option<u64>,
}

/// Why a recording was stopped before the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// `timeout` passed.
    Timeout(Duration),
    /// The trace reached this many bytes.
    TraceSize(u64),
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stopped::Timeout(d) => write!(f, "the program ran past --timeout {}", d.as_secs_f64()),
            Stopped::TraceSize(n) => write!(
                f,
                "its trace reached {n} bytes (--max-trace; by default half the free space of the trace's file system)"
            ),
        }
    }
}

/// How long a stopped JVM has to run its shutdown hooks before it is killed.
pub const GRACE: Duration = Duration::from_secs(10);

/// How often the recorder looks at the running program's time and trace.
const POLL: Duration = Duration::from_millis(20);

/// How a recording went.
#[derive(Debug)]
pub struct Recorded {
    pub out: PathBuf,
    /// The JVM's exit status as a shell reports it (128 + the signal when killed).
    pub exit_code: i32,
    /// Whether the trace exists (written by the agent, or salvaged from what a killed JVM
    /// left).
    pub written: bool,
    /// When the JVM died before writing its end record: the warning saying where the
    /// salvaged trace stops.
    pub warning: Option<String>,
    /// Whether a limit stopped the program (its trace then ends where it was stopped).
    pub stopped: Option<Stopped>,
}

/// The JVM options that take a value as the next argument.
const VALUE_OPTIONS: [&str; 10] = [
    "-cp",
    "-classpath",
    "--class-path",
    "-p",
    "--module-path",
    "--add-modules",
    "--add-opens",
    "--add-exports",
    "--add-reads",
    "--patch-module",
];

/// The main class (or jar, or module) a `java` command runs: the first argument that is not an
/// option or an option's value.
pub fn main_name(command: &[OsString]) -> Option<String> {
    let mut args = command.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(a) = args.next() {
        if a == "-jar" {
            let jar = args.next()?;
            return Some(
                Path::new(jar.as_ref())
                    .file_stem()?
                    .to_string_lossy()
                    .to_string(),
            );
        }
        if a == "-m" || a == "--module" {
            let target = args.next()?;
            return target.split('/').next().map(str::to_string);
        }
        if VALUE_OPTIONS.contains(&a.as_ref()) {
            args.next();
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        let simple = a.rsplit('.').next().unwrap_or(&a).to_string();
        return Some(simple);
    }
    None
}

/// The default trace name for a command.
pub fn default_out(command: &[OsString]) -> PathBuf {
    PathBuf::from(format!(
        "hindsight-{}.hst",
        main_name(command).unwrap_or_else(|| "java".into())
    ))
}

/// The `java` command with the agent: `-javaagent:JAR=out=FILE[,options]` first.
pub fn jvm_command(jar: &Path, out: &Path, options: &[String], command: &[OsString]) -> Command {
    let mut agent = OsString::from("-javaagent:");
    agent.push(jar);
    agent.push("=out=");
    agent.push(out);
    for o in options {
        agent.push(",");
        agent.push(o);
    }
    let mut cmd = Command::new(&command[0]);
    cmd.arg(agent).args(&command[1..]);
    cmd
}

/// Records one run of a Java program (see the module documentation).
pub fn record(opts: &RecordOptions) -> Result<Recorded, RecordError> {
    if opts.command.is_empty() {
        return Err(RecordError::Usage(
            "no command to run: `hindsight record [--out FILE] -- java ARGS...`".into(),
        ));
    }
    let out = opts
        .out
        .clone()
        .unwrap_or_else(|| default_out(&opts.command));
    // The agent's options are comma-separated and its output path comes first.
    if out.to_string_lossy().contains(',') {
        return Err(RecordError::Usage(format!(
            "cannot record to {}: the agent's options are comma-separated, so its path cannot hold a comma",
            out.display()
        )));
    }
    if let Some(bad) = opts.agent_options.iter().find(|o| o.starts_with("out=")) {
        return Err(RecordError::Usage(format!(
            "agent option `{bad}`: give the trace's path with --out"
        )));
    }
    let jar = agent_jar()?;
    let abs = std::path::absolute(&out)
        .map_err(|e| RecordError::Io(format!("cannot record to {}", out.display()), e))?;
    // Checked here: the agent could only fail inside the JVM, with a JVM's stack trace.
    let folder = abs.parent().unwrap_or(Path::new("/"));
    if !folder.is_dir() {
        return Err(RecordError::Usage(format!(
            "cannot record to {}: there is no folder {}",
            out.display(),
            folder.display()
        )));
    }
    let mut cmd = jvm_command(&jar, &abs, &opts.agent_options, &opts.command);
    let mut child = cmd.spawn().map_err(|e| {
        RecordError::Io(
            format!("cannot run {}", Path::new(&opts.command[0]).display()),
            e,
        )
    })?;
    let pid = child.id();
    let partial = partial_path(&abs, pid);
    let max_trace = match opts.limits.max_trace_bytes {
        Some(n) => n,
        None => rustix::fs::statvfs(folder)
            .map(|fs| fs.f_bavail.saturating_mul(fs.f_frsize) / 2)
            .unwrap_or(u64::MAX),
    };
    let (status, stopped) = watch(&mut child, &partial, opts.limits.timeout, max_trace)
        .map_err(|e| RecordError::Io("waiting for the JVM".into(), e))?;
    let exit_code = exit_code(status);
    let mut warning = None;
    if partial.exists() {
        // The JVM died before its shutdown hook renamed the trace into place.
        warning = Some(salvage(&partial, &abs)?);
        let _ = std::fs::remove_file(&partial);
    }
    Ok(Recorded {
        written: abs.exists(),
        out,
        exit_code,
        warning,
        stopped,
    })
}

/// Waits for the JVM, stopping it when it runs past `timeout` or its trace (`partial`, while
/// it runs) passes `max_trace` bytes.
fn watch(
    child: &mut Child,
    partial: &Path,
    timeout: Option<Duration>,
    max_trace: u64,
) -> io::Result<(ExitStatus, Option<Stopped>)> {
    let started = Instant::now();
    let mut stopped = None;
    let mut terminated_at: Option<Instant> = None;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, stopped));
        }
        match terminated_at {
            None => {
                stopped = match timeout {
                    Some(t) if started.elapsed() >= t => Some(Stopped::Timeout(t)),
                    _ => std::fs::metadata(partial)
                        .is_ok_and(|m| m.len() >= max_trace)
                        .then_some(Stopped::TraceSize(max_trace)),
                };
                if stopped.is_some() {
                    // The process may have exited since `try_wait`: then there is nothing to
                    // stop, and the next `try_wait` reports it. Not yet waited for, its pid is
                    // still its own (a zombie keeps it), so the signal cannot reach another.
                    let _ = rustix::process::kill_process(
                        rustix::process::Pid::from_child(child),
                        rustix::process::Signal::TERM,
                    );
                    terminated_at = Some(Instant::now());
                }
            }
            Some(at) if at.elapsed() >= GRACE => {
                let _ = child.kill();
            }
            Some(_) => {}
        }
        std::thread::sleep(POLL);
    }
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return 128 + sig;
        }
    }
    1
}

/// Where the agent writes while the JVM runs (renamed to `out` at exit).
pub fn partial_path(out: &Path, pid: u32) -> PathBuf {
    let name = out.file_name().unwrap_or(OsStr::new("trace.hst"));
    let mut n = name.to_os_string();
    n.push(format!(".{pid}.partial"));
    out.with_file_name(n)
}

/// Copies the complete records of a trace that has no end record (a JVM killed hard) into
/// `out`, with an end record; the warning says where it stops.
pub fn salvage(partial: &Path, out: &Path) -> Result<String, RecordError> {
    let io = |what: &str, e| RecordError::Io(format!("{what} {}", partial.display()), e);
    let file = std::fs::File::open(partial).map_err(|e| io("cannot read", e))?;
    let mut reader = BinaryReader::new(io::BufReader::new(file));
    let target = OutputFile::create(out, &[partial]).map_err(|e| io("cannot salvage", e))?;
    let mut writer = BinaryWriter::new(target).map_err(|e| io("cannot salvage", e))?;
    let mut events = 0u64;
    let stop = loop {
        match reader.advance() {
            Ok(true) => {
                writer
                    .write_event(reader.current(), reader.names())
                    .map_err(|e| io("cannot salvage", e))?;
                events += 1;
            }
            Ok(false) => break None,
            Err(e) => break Some(e),
        }
    };
    let target = writer.finish().map_err(|e| io("cannot salvage", e))?;
    target.commit().map_err(|e| io("cannot salvage", e))?;
    let why = match stop {
        Some(e) => e.to_string(),
        None => "it ended normally".into(),
    };
    Ok(format!(
        "the JVM stopped before the trace was complete: {} holds the first {events} events, the \
         complete records of {} (which stops there: {why})",
        out.display(),
        partial.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_main_class_is_the_first_argument_that_is_no_option() {
        assert_eq!(
            main_name(&args(&["java", "-cp", "a:b", "-Xmx1g", "pkg.Main", "x"])).as_deref(),
            Some("Main")
        );
        assert_eq!(
            main_name(&args(&["java", "-jar", "dir/app.jar"])).as_deref(),
            Some("app")
        );
        assert_eq!(
            main_name(&args(&["java", "--module-path", "m", "-m", "mod/pkg.Main"])).as_deref(),
            Some("mod")
        );
        assert_eq!(main_name(&args(&["java", "-version"])), None);
        assert_eq!(
            default_out(&args(&["java", "-cp", ".", "Race"])),
            PathBuf::from("hindsight-Race.hst")
        );
    }

    #[test]
    fn the_agent_goes_first_with_its_output() {
        let cmd = jvm_command(
            Path::new("/c/a.jar"),
            Path::new("/t/o.hst"),
            &["include=p.*".into()],
            &args(&["java", "-cp", ".", "Main"]),
        );
        let got: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().to_string())
            .collect();
        assert_eq!(
            got,
            [
                "-javaagent:/c/a.jar=out=/t/o.hst,include=p.*",
                "-cp",
                ".",
                "Main"
            ]
        );
    }

    #[test]
    fn a_trace_cut_anywhere_is_salvaged_up_to_its_last_complete_record() {
        let dir = tempfile::tempdir().unwrap();
        let text = "T1|w(x)|A.java:1\nT1|fork(T2)|A.java:2\nT2|r(x)|A.java:3\nT1|acq(l)|A.java:4\n";
        let trace =
            hindsight_trace::Trace::collect(&mut hindsight_trace::TextReader::new(text.as_bytes()))
                .unwrap();
        let mut full = Vec::new();
        let mut w = BinaryWriter::new(&mut full).unwrap();
        for e in &trace.events {
            w.write_event(e, &trace.names).unwrap();
        }
        drop(w);
        // Every cut of the file without its end record reads as the events it holds whole.
        let mut last = 0;
        for cut in 9..=full.len() {
            let partial = dir.path().join("t.hst.1.partial");
            let out = dir.path().join("t.hst");
            std::fs::write(&partial, &full[..cut]).unwrap();
            let warning = salvage(&partial, &out).unwrap();
            let bytes = std::fs::read(&out).unwrap();
            let back = hindsight_trace::Trace::collect(&mut BinaryReader::new(&bytes[..])).unwrap();
            assert!(back.events.len() >= last, "{cut}");
            last = back.events.len();
            assert!(
                warning.contains(&format!("first {} events", last)),
                "{warning}"
            );
            for (a, b) in back.events.iter().zip(&trace.events) {
                assert_eq!(a.op, b.op);
            }
        }
        assert_eq!(last, 4);
    }
}
