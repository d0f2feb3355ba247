//! Builds the Java agent from `agent/` (the JDK's `javac` and `jar`, ASM from Debian's
//! `libasm-java`) into `OUT_DIR/hindsight-agent.jar`, which the library embeds. Where either is
//! missing the crate still builds: `hindsight record` then says what to install.
//!
//! The jar's layout (see `agent/src/hindsight/agent/Premain.java`): the premain class and the
//! runtime `hindsight/rt` at its root; the transformer and ASM's classes under `inner/`, where
//! no application class loader finds them, loaded by the agent's own class loader.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The ASM jars the transformer needs: the core and the tree API.
const ASM_JARS: [&str; 3] = ["asm.jar", "asm-tree.jar", "asm-analysis.jar"];

fn main() {
    println!("cargo:rustc-check-cfg=cfg(hindsight_agent)");
    let agent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../agent");
    println!("cargo:rerun-if-changed={}", agent.display());
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    println!("cargo:rerun-if-env-changed=HINDSIGHT_ASM_DIR");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    match build(&agent, &out) {
        Ok(jar) => {
            println!("cargo:rustc-cfg=hindsight_agent");
            println!("cargo:rustc-env=HINDSIGHT_AGENT_JAR={}", jar.display());
        }
        Err(why) => {
            println!("cargo:warning=the Java agent is not built ({why}); `hindsight record` will say what to install");
            println!("cargo:rustc-env=HINDSIGHT_AGENT_MISSING={why}");
        }
    }
}

/// A JDK tool: `$JAVA_HOME/bin/NAME`, else NAME on the path.
fn tool(name: &str) -> PathBuf {
    match env::var_os("JAVA_HOME") {
        Some(home) if Path::new(&home).join("bin").join(name).exists() => {
            Path::new(&home).join("bin").join(name)
        }
        _ => PathBuf::from(name),
    }
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let what = format!("{:?}", cmd.get_program());
    let out = cmd.output().map_err(|e| format!("{what} not found: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

fn java_sources(dir: &Path, list: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            java_sources(&path, list)?;
        } else if path.extension().is_some_and(|e| e == "java") {
            list.push(path);
        }
    }
    Ok(())
}

fn build(agent: &Path, out: &Path) -> Result<PathBuf, String> {
    let asm_dir = env::var_os("HINDSIGHT_ASM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/java"));
    let asm: Vec<PathBuf> = ASM_JARS.iter().map(|j| asm_dir.join(j)).collect();
    for j in &asm {
        // Installing ASM later builds the agent on the next build.
        println!("cargo:rerun-if-changed={}", j.display());
    }
    if let Some(missing) = asm.iter().find(|j| !j.exists()) {
        return Err(format!("no ASM at {}", missing.display()));
    }
    let javac = tool("javac");
    let jar = tool("jar");
    let classes = out.join("agent-classes");
    let stage = out.join("agent-stage");
    for d in [&classes, &stage] {
        let _ = fs::remove_dir_all(d);
        fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let mut sources = Vec::new();
    java_sources(&agent.join("src"), &mut sources)?;
    sources.sort();
    let classpath = env::join_paths(&asm).map_err(|e| e.to_string())?;
    run(Command::new(&javac)
        .args(["--release", "17", "-nowarn", "-encoding", "UTF-8", "-d"])
        .arg(&classes)
        .arg("-cp")
        .arg(&classpath)
        .args(&sources))?;
    // The root: the premain class and the runtime. Under inner/: the transformer and ASM.
    let inner = stage.join("inner");
    fs::create_dir_all(inner.join("hindsight")).map_err(|e| e.to_string())?;
    copy_tree(
        &classes.join("hindsight/agent"),
        &stage.join("hindsight/agent"),
    )?;
    copy_tree(&classes.join("hindsight/rt"), &stage.join("hindsight/rt"))?;
    copy_tree(
        &classes.join("hindsight/transform"),
        &inner.join("hindsight/transform"),
    )?;
    // The JDK models table of `views` (crates/source): the transformer records the calls it
    // lists on objects read from fields as accesses of their state, named as `views` names
    // them statically.
    let models = agent.join("../crates/source/data/jdk-models.txt");
    println!("cargo:rerun-if-changed={}", models.display());
    fs::copy(&models, inner.join("hindsight/transform/jdk-models.txt"))
        .map_err(|e| format!("{}: {e}", models.display()))?;
    for j in &asm {
        run(Command::new(&jar).arg("xf").arg(j).current_dir(&inner))?;
    }
    let _ = fs::remove_dir_all(inner.join("META-INF"));
    let _ = fs::remove_file(inner.join("module-info.class"));
    let manifest = out.join("agent-manifest.txt");
    fs::write(&manifest, "Premain-Class: hindsight.agent.Premain\n").map_err(|e| e.to_string())?;
    let target = out.join("hindsight-agent.jar");
    // No timestamps that change from build to build would matter: the jar is hashed by
    // content only to name its cache file.
    run(Command::new(&jar)
        .arg("cfm")
        .arg(&target)
        .arg(&manifest)
        .arg("-C")
        .arg(&stage)
        .arg("."))?;
    Ok(target)
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for entry in fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let dest = to.join(path.file_name().expect("an entry has a name"));
        if path.is_dir() {
            copy_tree(&path, &dest)?;
        } else {
            fs::copy(&path, &dest).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
