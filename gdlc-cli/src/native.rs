//! Native per-game binaries: a generated module and the game's rules wrapped in a small cargo
//! project whose `main` is gdl-player's generic driver (`bench`, `replay`, `perf-test`, `info`,
//! `serve`), built with `cargo build --release` (one [`PROFILE`]) in a cache keyed by the
//! generated code, so that a game is compiled once and reused by `gdlc build`, `gdlc replay`
//! and `gdlc bench`.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the per-game projects and their shared cargo target directory live: `GDLC_CACHE_DIR`,
/// else `target/gdlc-cache` of the workspace this gdlc was built from.
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("GDLC_CACHE_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root().join("target").join("gdlc-cache"),
    }
}

/// The workspace this gdlc was built from, whose `gdl-runtime` and `gdl-player` the binaries
/// link.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The crates the binaries depend on: the core runtime that the generated module links and the
/// player stack whose driver is their `main`.
struct Crates {
    runtime: PathBuf,
    player: PathBuf,
}

impl Crates {
    /// `GDL_RUNTIME_PATH` and `GDL_PLAYER_PATH`, else the workspace's crates. The player's own
    /// dependency on the runtime must be the same crate, as the workspace's is.
    fn find() -> Result<Crates, String> {
        Ok(Crates {
            runtime: crate_dir("gdl-runtime", "GDL_RUNTIME_PATH")?,
            player: crate_dir("gdl-player", "GDL_PLAYER_PATH")?,
        })
    }
}

/// The directory of crate `name`: the variable `variable`, else the workspace's.
fn crate_dir(name: &str, variable: &str) -> Result<PathBuf, String> {
    let dir = match std::env::var_os(variable) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root().join(name),
    };
    dir.canonicalize().map_err(|e| {
        format!("error: cannot find the {name} crate at {}: {e}; set {variable} to its directory", dir.display())
    })
}

/// The cargo profile of every per-game binary: optimized, in one code unit, without
/// whole-program (fat) link-time optimization. The generated code and the generic driver it
/// instantiates are one crate, so LTO has little left to inline: measured side by side, it made
/// a small game's build 9 s instead of 1.8 s for 0-7% more speed (docs/performance.md). The
/// player's background builds use it too, so that they share the runtime's build with `gdlc
/// bench` and `build`.
const PROFILE: &str = "[profile.release]\nopt-level = 3\nlto = false\ncodegen-units = 1\npanic = \"abort\"\n\
                       debug = false\nincremental = false\n";

/// The flags of the per-game build: the instructions of this machine that the runtime's draw
/// uses (`popcnt` to count a word's bits, `bmi2`'s `pdep` to find the k-th), when it has them,
/// unless `GDLC_PORTABLE` is set (a binary of `gdlc build` meant for other machines).
/// `-C target-cpu=native` was tried instead: no faster, and othello-comp2007's build took
/// 4 min 44 s instead of 25 s (docs/performance.md).
pub fn host_rustflags() -> String {
    if std::env::var_os("GDLC_PORTABLE").is_some_and(|v| !v.is_empty()) {
        return String::new();
    }
    let mut features: Vec<&str> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("popcnt") {
            features.push("+popcnt");
        }
        if std::arch::is_x86_feature_detected!("bmi2") {
            features.push("+bmi2");
        }
    }
    match features.is_empty() {
        true => String::new(),
        false => format!("-Ctarget-feature={}", features.join(",")),
    }
}

/// At what priority a per-game binary is built; the binary is the same either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// What the user waits for: `gdlc build`, `bench`, `replay`.
    Foreground,
    /// Beside a player's matches, as `gdlc serve` builds a game it met in START: the build
    /// leaves them a core and yields to them (`nice`, where there is one).
    Background,
}

impl Priority {
    /// The command that runs cargo at this priority.
    fn command(self, cargo: &std::ffi::OsStr) -> Command {
        if self == Priority::Foreground {
            return Command::new(cargo);
        }
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let mut command = if Path::new("/usr/bin/nice").is_file() {
            let mut nice = Command::new("/usr/bin/nice");
            nice.args(["-n", "10"]).arg(cargo);
            nice
        } else {
            Command::new(cargo)
        };
        command.env("CARGO_BUILD_JOBS", cores.saturating_sub(1).max(1).to_string());
        command
    }
}

/// A game's project in the cache: its name and directory, and the flags it is built with
/// (which its name's hash covers).
pub(crate) struct Project {
    pub(crate) package: String,
    pub(crate) dir: PathBuf,
    pub(crate) rustflags: String,
}

/// How a game's binary is optimized beyond [`PROFILE`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Optimize {
    /// Profile-guided: built once instrumented, run for a few seconds of random playouts, and
    /// built again with what that run measured (see the module `pgo`).
    pub profile_guided: bool,
}

/// Builds (or finds in the cache) the binary of a game whose generated module is `module_text`
/// and whose rules (KIF, for `serve` to recognize the game) are `rules`, named after `stem`;
/// returns the binary's path. With `verbose`, cargo's progress goes to
/// stderr; otherwise it is shown only when the build fails.
pub fn build_binary(
    stem: &str,
    module_text: &str,
    rules: &str,
    verbose: bool,
    priority: Priority,
) -> Result<PathBuf, String> {
    build_optimized(stem, module_text, rules, verbose, priority, Optimize::default())
}

/// [`build_binary`], optimized as `optimize` says (a profile-guided binary has a cache entry of
/// its own).
pub fn build_optimized(
    stem: &str,
    module_text: &str,
    rules: &str,
    verbose: bool,
    priority: Priority,
    optimize: Optimize,
) -> Result<PathBuf, String> {
    let crates = Crates::find()?;
    let project = project_for(stem, module_text, rules, &crates, optimize);
    let binary = project.dir.join(format!("{}{}", project.package, std::env::consts::EXE_SUFFIX));
    if binary.is_file() && is_genuine(&binary, &project.package) {
        return Ok(binary);
    }
    // A profile-guided binary races the ordinary one: that of the cache, built first if need be.
    let ordinary = match optimize.profile_guided {
        true => Some(build_optimized(stem, module_text, rules, verbose, priority, Optimize::default())?),
        false => None,
    };
    write_project(&project, module_text, rules, &crates, stem)?;
    let built = match ordinary {
        Some(ordinary) => crate::pgo::build(&project, ordinary, verbose, priority)?,
        None => {
            let build =
                Build { target: cache_dir().join("target"), rustflags: project.rustflags.clone(), verbose, priority };
            build.run(&project, "building the game's binary (cargo build --release)")?
        }
    };
    copy_atomically(&built, &binary)?;
    Ok(binary)
}

/// One `cargo build --release` of a game's project: into which target directory, with which
/// flags, how loud and at what priority.
pub(crate) struct Build {
    pub(crate) target: PathBuf,
    pub(crate) rustflags: String,
    pub(crate) verbose: bool,
    pub(crate) priority: Priority,
}

impl Build {
    /// Runs the build, shown as the phase `what`; returns the path of the binary it made.
    pub(crate) fn run(&self, project: &Project, what: &str) -> Result<PathBuf, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = self.priority.command(&cargo);
        command
            .args(["build", "--release", "--manifest-path"])
            .arg(project.dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&self.target)
            // Flags meant for the crate that runs gdlc (a test's, say) are not the game's.
            .env_remove("RUSTFLAGS")
            .env("CARGO_ENCODED_RUSTFLAGS", &self.rustflags)
            .env_remove("CARGO_TARGET_DIR");
        if !self.verbose {
            command.arg("--quiet");
        }
        let phase = crate::phase::Phase::start(what.to_string());
        let output = if self.verbose {
            command.status().map(|status| (status, String::new()))
        } else {
            command.output().map(|o| (o.status, String::from_utf8_lossy(&o.stderr).into_owned()))
        };
        match &output {
            Ok((status, _)) if status.success() => phase.done(""),
            _ => phase.failed(),
        }
        let (status, stderr) =
            output.map_err(|e| format!("error: cannot run `{}`: {e}", PathBuf::from(&cargo).display()))?;
        if !status.success() {
            return Err(format!(
                "{stderr}error: `cargo build --release` of the generated game failed in {}",
                project.dir.display()
            ));
        }
        Ok(self.target.join("release").join(format!("{}{}", project.package, std::env::consts::EXE_SUFFIX)))
    }
}

/// The project of a game: its package name carries a hash of everything the binary is built
/// from, so that a changed game, compiler, runtime or player gets a new binary.
fn project_for(stem: &str, module_text: &str, rules: &str, crates: &Crates, optimize: Optimize) -> Project {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    module_text.hash(&mut hasher);
    rules.hash(&mut hasher);
    crates.runtime.hash(&mut hasher);
    crates.player.hash(&mut hasher);
    env!("CARGO_PKG_VERSION").hash(&mut hasher);
    PROFILE.hash(&mut hasher);
    let rustflags = host_rustflags();
    rustflags.hash(&mut hasher);
    source_fingerprint(&crates.runtime).hash(&mut hasher);
    source_fingerprint(&crates.player).hash(&mut hasher);
    optimize.hash(&mut hasher);
    let hash = hasher.finish();
    let name: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    let package = format!("gdl_game_{name}_{hash:016x}");
    Project { dir: cache_dir().join(&package), package, rustflags }
}

/// The sizes and modification times of a crate's sources, so that editing the runtime or the
/// player rebuilds the binaries.
fn source_fingerprint(dir: &Path) -> Vec<(String, u64, u128)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.join("src"), dir.join("Cargo.toml")];
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.filter_map(|e| e.ok().map(|e| e.path())));
            }
        } else {
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            files.push((path.display().to_string(), meta.len(), modified));
        }
    }
    files.sort();
    files
}

/// What the generated module of an rtGDL game contains, and no other module does.
const REALTIME_IMPL: &str = "impl ::gdl_runtime::realtime::RealTimeGame for Game";

/// Writes the project's manifest, lock file and sources.
fn write_project(project: &Project, module_text: &str, rules: &str, crates: &Crates, stem: &str) -> Result<(), String> {
    let src = project.dir.join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("error: cannot create {}: {e}", src.display()))?;
    let runtime = crates.runtime.display().to_string().replace('\\', "/");
    let player = crates.player.display().to_string().replace('\\', "/");
    let manifest = format!(
        "[package]\nname = \"{package}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\ngdl-runtime = {{ path = \"{runtime}\" }}\ngdl-player = {{ path = \"{player}\" }}\n\n\
         {PROFILE}\n\
         # Not a member of any enclosing workspace.\n[workspace]\n",
        package = project.package,
    );
    write_atomically(&project.dir.join("Cargo.toml"), &manifest)?;
    // The workspace's lock file pins the player's dependencies to versions already fetched.
    if let Ok(lock) = std::fs::read_to_string(workspace_root().join("Cargo.lock")) {
        if !project.dir.join("Cargo.lock").exists() {
            write_atomically(&project.dir.join("Cargo.lock"), &lock)?;
        }
    }
    let name = stem.escape_default();
    // The module of an rtGDL game implements the real-time interface, whose driver differs.
    let driver = if module_text.contains(REALTIME_IMPL) {
        format!("gdl_player::realtime::driver::main(&game::Game, \"{name}\")")
    } else {
        format!("gdl_player::driver::main_with_rules(&game::Game, \"{name}\", include_str!(\"rules.kif\"))")
    };
    let main = format!(
        "//! The per-game binary of `{name}`, made by `gdlc build`.\n\n\
         #[allow(dead_code)]\nmod game;\n\n\
         fn main() -> std::process::ExitCode {{\n    \
         // gdlc asks a cached binary for the key it was built under before running it.\n    \
         if std::env::args().nth(1).as_deref() == Some(\"{BUILD_KEY_COMMAND}\") {{\n        \
         println!(\"{package}\");\n        return std::process::ExitCode::SUCCESS;\n    }}\n    \
         {driver}\n}}\n",
        package = project.package
    );
    write_atomically(&src.join("rules.kif"), rules)?;
    write_atomically(&src.join("main.rs"), &main)?;
    write_atomically(&src.join("game.rs"), module_text)
}

/// The hidden first argument on which a per-game binary prints the key it was built under.
const BUILD_KEY_COMMAND: &str = "gdlc-build-key";

/// Whether the file at a cached binary's path is the binary built for `package`: it must run,
/// within seconds, and print that key. Anything else there (a damaged or replaced file) is
/// rebuilt rather than trusted.
pub fn is_genuine(binary: &Path, package: &str) -> bool {
    let Ok(mut child) = Command::new(binary)
        .arg(BUILD_KEY_COMMAND)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
    else {
        return false;
    };
    let limit = std::time::Duration::from_secs(5);
    if !matches!(wait_within(&mut child, limit, std::time::Duration::from_millis(5)), Ok(Some(status)) if status.success())
    {
        let _ = child.kill();
        let _ = child.wait();
        return false;
    }
    let mut printed = String::new();
    let read = child.stdout.take().map(|mut out| std::io::Read::read_to_string(&mut out, &mut printed));
    matches!(read, Some(Ok(_))) && printed.trim() == package
}

/// Waits for `child` at most `limit`, looking every `poll`: its exit status, or `None` when it
/// ran past the limit and was stopped (and reaped).
pub(crate) fn wait_within(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    poll: std::time::Duration,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        match child.try_wait()? {
            Some(status) => return Ok(Some(status)),
            None if std::time::Instant::now() < deadline => std::thread::sleep(poll),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
        }
    }
}

/// Writes a file through a temporary file and a rename, so that a concurrent build never reads
/// half a file.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    let temp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&temp, text).map_err(|e| format!("error: cannot write {}: {e}", temp.display()))?;
    std::fs::rename(&temp, path).map_err(|e| format!("error: cannot write {}: {e}", path.display()))
}

/// Copies a file through a temporary file and a rename.
pub fn copy_atomically(from: &Path, to: &Path) -> Result<(), String> {
    let temp = to.with_extension(format!("tmp{}", std::process::id()));
    std::fs::copy(from, &temp)
        .map_err(|e| format!("error: cannot copy {} to {}: {e}", from.display(), temp.display()))?;
    std::fs::rename(&temp, to).map_err(|e| format!("error: cannot write {}: {e}", to.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nowhere() -> Crates {
        Crates { runtime: PathBuf::from("/nonexistent/runtime"), player: PathBuf::from("/nonexistent/player") }
    }

    #[test]
    fn projects_differ_by_generated_code_and_share_nothing_else() {
        let crates = nowhere();
        let a = project_for("connectFour", "code a", "rules", &crates, Optimize::default());
        let b = project_for("connectFour", "code b", "rules", &crates, Optimize::default());
        let c = project_for("connectFour", "code a", "other rules", &crates, Optimize::default());
        let again = project_for("connectFour", "code a", "rules", &crates, Optimize::default());
        assert_ne!(a.package, b.package);
        assert_ne!(a.package, c.package);
        assert_eq!(a.package, again.package);
        let guided = project_for("connectFour", "code a", "rules", &crates, Optimize { profile_guided: true });
        assert_ne!(a.package, guided.package, "a profile-guided binary is cached apart");
        assert!(a.package.starts_with("gdl_game_connectfour_"), "{}", a.package);
    }

    /// The directory of [`script`] `name`.
    #[cfg(unix)]
    fn script_dir(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("gdlc-genuine-{}-{name}", std::process::id()))
    }

    /// An executable script in a fresh directory.
    #[cfg(unix)]
    fn script(name: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let dir = script_dir(name);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{text}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    #[cfg(unix)]
    fn only_a_binary_that_states_its_build_key_is_trusted() {
        assert!(is_genuine(&script("right", "echo gdl_game_x_1"), "gdl_game_x_1"));
        assert!(!is_genuine(&script("other", "echo gdl_game_x_2"), "gdl_game_x_1"));
        assert!(!is_genuine(&script("silent", "exit 0"), "gdl_game_x_1"));
        assert!(!is_genuine(&script("failing", "echo gdl_game_x_1; exit 1"), "gdl_game_x_1"));
        assert!(!is_genuine(Path::new("/nonexistent/gdl_game_x_1"), "gdl_game_x_1"));
        let started = std::time::Instant::now();
        assert!(!is_genuine(&script("hanging", "sleep 30"), "gdl_game_x_1"));
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        for name in ["right", "other", "silent", "failing", "hanging"] {
            let _ = std::fs::remove_dir_all(script_dir(name));
        }
    }

    #[test]
    fn a_stem_with_odd_characters_makes_a_valid_package_name() {
        let p = project_for("3p Connect-Four", "x", "", &nowhere(), Optimize::default());
        assert!(p.package.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{}", p.package);
    }
}
