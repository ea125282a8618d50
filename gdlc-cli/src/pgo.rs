//! Profile-guided builds of a game's binary (`--pgo`): built once instrumented, run for a few
//! seconds of random playouts (the work a benchmark or a player's search makes it do), and
//! built again with the profile that run wrote, from which LLVM lays out and inlines the
//! runtime's hot paths for this game. Some games play slower so built (the profile's layout
//! can hurt as well as help), so the guided binary races the ordinary one and the faster is
//! kept. The builds cost a build of the runtime each, so this is asked for, never the
//! default.

use crate::native::{cache_dir, wait_within, Build, Priority, Project};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How many seconds of random playouts the instrumented binary plays for its profile.
const PROFILE_SECONDS: &str = "3";

/// How long the instrumented run may take, its setup included, before it is stopped.
const PROFILE_LIMIT: Duration = Duration::from_secs(180);

/// Builds `project` guided by a profile of its own random playouts; returns the path of the
/// faster of that binary and `ordinary`, the game's binary built without a profile.
pub(crate) fn build(
    project: &Project,
    ordinary: PathBuf,
    verbose: bool,
    priority: Priority,
) -> Result<PathBuf, String> {
    let profdata = llvm_profdata()?;
    let raw = project.dir.join("pgo-raw");
    let _ = std::fs::remove_dir_all(&raw);
    // The instrumented runtime is the same for every game (each run names its own output
    // through LLVM_PROFILE_FILE), so its build is shared.
    let generate = format!("-Cprofile-generate={}", cache_dir().join("pgo-raw-default").display());
    let instrumented = Build {
        target: cache_dir().join("target-pgo-generate"),
        rustflags: with_flag(&project.rustflags, &generate),
        verbose,
        priority,
    }
    .run(project, "building the game's instrumented binary (profile-guided build, 1 of 2)")?;
    profile(&instrumented, &raw)?;
    let merged = project.dir.join("pgo.profdata");
    merge(&profdata, &raw, &merged)?;
    let guided = Build {
        target: cache_dir().join("target-pgo-use"),
        rustflags: with_flag(&project.rustflags, &format!("-Cprofile-use={}", merged.display())),
        verbose,
        priority,
    }
    .run(project, "building the game's binary with its profile (profile-guided build, 2 of 2)")?;
    faster(guided, ordinary)
}

/// How many seconds each binary of the race plays, in each of its turns.
const RACE_SECONDS: &str = "1";

/// The faster of the profile-guided binary and the ordinary one: each plays random playouts
/// for [`RACE_SECONDS`] twice, in turn, and the one with more state changes is kept.
fn faster(guided: PathBuf, ordinary: PathBuf) -> Result<PathBuf, String> {
    let phase = crate::phase::Phase::start("racing the guided binary against the ordinary one".to_string());
    let mut totals = [0.0, 0.0];
    for _ in 0..2 {
        for (total, binary) in totals.iter_mut().zip([&guided, &ordinary]) {
            match state_changes(binary) {
                Ok(changes) => *total += changes,
                Err(e) => {
                    phase.failed();
                    return Err(e);
                }
            }
        }
    }
    let [with_profile, without] = totals;
    let ratio = if without > 0.0 { with_profile / without } else { 1.0 };
    phase.done("");
    let kept = if ratio > 1.0 { "the guided one kept" } else { "the ordinary one kept" };
    eprintln!("gdlc: the profile-guided binary made {ratio:.2}x the ordinary one's state changes: {kept}");
    Ok(if ratio > 1.0 { guided } else { ordinary })
}

/// The state changes `binary` makes in [`RACE_SECONDS`] of random playouts.
fn state_changes(binary: &Path) -> Result<f64, String> {
    let mut child = Command::new(binary)
        .args(["bench", "--seconds", RACE_SECONDS])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("error: cannot run {}: {e}", binary.display()))?;
    let mut stdout = child.stdout.take();
    wait_bounded(child)?;
    let mut report = String::new();
    if let Some(out) = stdout.as_mut() {
        let _ = std::io::Read::read_to_string(out, &mut report);
    }
    report
        .lines()
        .find_map(|line| line.strip_prefix("numStateChanges=")?.trim().parse().ok())
        .ok_or_else(|| format!("error: {} printed no numStateChanges", binary.display()))
}

/// `rustflags` (encoded as cargo's `CARGO_ENCODED_RUSTFLAGS`: separated by 0x1f) and `flag`.
fn with_flag(rustflags: &str, flag: &str) -> String {
    match rustflags.is_empty() {
        true => flag.to_string(),
        false => format!("{rustflags}\u{1f}{flag}"),
    }
}

/// The `llvm-profdata` of the Rust toolchain that builds the games (rustup's `llvm-tools`
/// component): its profiles' format is that LLVM's.
fn llvm_profdata() -> Result<PathBuf, String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let tool = format!("llvm-profdata{}", std::env::consts::EXE_SUFFIX);
    let found = sysroot.and_then(|root| {
        let hosts = std::fs::read_dir(root.join("lib").join("rustlib")).ok()?;
        hosts.filter_map(Result::ok).map(|host| host.path().join("bin").join(&tool)).find(|path| path.is_file())
    });
    found.ok_or_else(|| {
        "error: a profile-guided build (--pgo) needs llvm-profdata, which rustup installs with \
         `rustup component add llvm-tools`"
            .to_string()
    })
}

/// Runs `instrumented` for [`PROFILE_SECONDS`] of random playouts, its profile written into
/// `raw`; stops it past [`PROFILE_LIMIT`].
fn profile(instrumented: &Path, raw: &Path) -> Result<(), String> {
    let phase = crate::phase::Phase::start(format!("profiling {PROFILE_SECONDS} s of random playouts"));
    let child = Command::new(instrumented)
        .args(["bench", "--seconds", PROFILE_SECONDS])
        .env("LLVM_PROFILE_FILE", raw.join("game-%p-%m.profraw"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let ran = child.map_err(|e| format!("error: cannot run {}: {e}", instrumented.display())).and_then(wait_bounded);
    match &ran {
        Ok(()) => phase.done(""),
        Err(_) => phase.failed(),
    }
    ran
}

/// Waits for `child` until [`PROFILE_LIMIT`], then stops it: an error unless it ended well.
fn wait_bounded(mut child: std::process::Child) -> Result<(), String> {
    match wait_within(&mut child, PROFILE_LIMIT, Duration::from_millis(20)) {
        Ok(Some(status)) if status.success() => Ok(()),
        Ok(Some(status)) => {
            let mut stderr = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut err, &mut stderr);
            }
            Err(format!("{stderr}error: the game's playouts failed ({status})"))
        }
        Ok(None) => {
            let limit = PROFILE_LIMIT.as_secs();
            Err(format!("error: the game's playouts took past {limit} s, and were stopped"))
        }
        Err(e) => Err(format!("error: cannot wait for the game's playouts: {e}")),
    }
}

/// Merges the raw profiles in `raw` into `merged` with `profdata`.
fn merge(profdata: &Path, raw: &Path, merged: &Path) -> Result<(), String> {
    let output = Command::new(profdata)
        .arg("merge")
        .arg("-o")
        .arg(merged)
        .arg(raw)
        .output()
        .map_err(|e| format!("error: cannot run {}: {e}", profdata.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("{stderr}error: llvm-profdata could not merge the profile in {}", raw.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_joins_the_encoded_flags() {
        assert_eq!(with_flag("", "-Cprofile-use=/p"), "-Cprofile-use=/p");
        assert_eq!(
            with_flag("-Ctarget-feature=+popcnt", "-Cprofile-use=/p"),
            "-Ctarget-feature=+popcnt\u{1f}-Cprofile-use=/p"
        );
    }
}
