//! The native backends of `gdlc serve`: per-game binaries serving the player protocol on a
//! local port as child processes, one per game up to renaming, found in the cache by the
//! game's shape or built in the background by one builder thread, supervised (a backend that
//! dies is restarted, a few times, and bypassed meanwhile), and stopped with the server.

use crate::native::{self, Priority};
use gdl_player::log;
use gdl_player::player::Kind;
use std::collections::HashMap;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How many times a backend that died is started again before its game is left to the
/// engines of the front.
const MAX_RESTARTS: u32 = 3;

/// How long a started backend has to print its address.
const STARTUP_TIME: Duration = Duration::from_secs(10);

/// Writes a game's native module; the builder calls it, one game at a time.
pub(super) type WriteModule = Box<dyn FnOnce() -> Result<String, String> + Send>;

/// A game whose native code is wanted: its module is written and built.
pub(super) struct Job {
    /// The game's shape key ([`gdl_player::rename::Shape::key`]).
    pub(super) key: u64,
    /// A name for the game in the cache and the log.
    pub(super) stem: String,
    /// What writes the module.
    pub(super) module: WriteModule,
    /// The game's rules in KIF, which the backend recognizes STARTs by.
    pub(super) rules: String,
}

/// A running backend.
struct Backend {
    binary: PathBuf,
    url: String,
    child: Child,
    restarts: u32,
}

impl Drop for Backend {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where a game's native code stands.
enum Slot {
    /// Being built; the builder will fill the slot.
    Building,
    /// Being started again after its backend died; the restarting thread will fill the slot.
    Restarting,
    /// Serving.
    Ready(Backend),
    /// Not available: the build failed, or the backend died too often.
    Failed,
}

/// The backends of one server.
pub(super) struct Natives {
    slots: Mutex<HashMap<u64, Slot>>,
    player: Kind,
    /// Whether games met in START are built; games given on the command line always are.
    build_at_start: bool,
    jobs: Mutex<Option<Sender<Job>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Natives {
    /// The backends of a server whose matches are played by `player`; with `build_at_start`,
    /// a builder thread builds the games met in START.
    pub(super) fn new(player: Kind, build_at_start: bool) -> Arc<Natives> {
        let natives =
            Arc::new(Natives { slots: Mutex::new(HashMap::new()), player, build_at_start, jobs: Mutex::new(None) });
        if build_at_start {
            let (sender, receiver) = mpsc::channel();
            *lock(&natives.jobs) = Some(sender);
            let builder = Arc::clone(&natives);
            let spawned = std::thread::Builder::new()
                .name("native-builder".to_string())
                .spawn(move || builder.build_all(receiver));
            if let Err(e) = spawned {
                log::error(format_args!("cannot start the native builder: {e}; games are played by the engines"));
                *lock(&natives.jobs) = None;
            }
        }
        natives
    }

    /// Starts the backend of a binary built beforehand (a game given on the command line).
    pub(super) fn add_built(&self, key: u64, binary: PathBuf) -> Result<(), String> {
        let backend = spawn(&binary, self.player, 0)?;
        record_in_index(key, &binary);
        lock(&self.slots).insert(key, Slot::Ready(backend));
        Ok(())
    }

    /// Whether the game of `key` has native code, ready or on its way, or had it fail.
    pub(super) fn is_known(&self, key: u64) -> bool {
        lock(&self.slots).contains_key(&key)
    }

    /// Where the native code of the game of `key` stands, for the log.
    pub(super) fn status(&self, key: u64) -> &'static str {
        match lock(&self.slots).get(&key) {
            Some(Slot::Ready(_)) => "native code ready",
            Some(Slot::Building) => "native code being built",
            Some(Slot::Restarting) => "native code restarting",
            Some(Slot::Failed) => "no native code",
            None if self.build_at_start => "native code wanted",
            None => "native code off",
        }
    }

    /// Makes sure the game of `key` gets native code: from the cache if a binary of its shape is
    /// there, else by building what `job` makes (called only when no slot exists).
    pub(super) fn want(&self, key: u64, job: impl FnOnce() -> Option<Job>) {
        if !self.build_at_start || self.is_known(key) {
            return;
        }
        if let Some(binary) = cached_binary(key) {
            match spawn(&binary, self.player, 0) {
                Ok(backend) => {
                    log::info(format_args!("game {key:016x}: native code from the cache ({})", binary.display()));
                    lock(&self.slots).insert(key, Slot::Ready(backend));
                    return;
                }
                Err(e) => log::error(format_args!("game {key:016x}: the cached binary failed: {e}; building again")),
            }
        }
        let Some(job) = job() else { return };
        let jobs = lock(&self.jobs);
        let Some(sender) = jobs.as_ref() else { return };
        lock(&self.slots).insert(key, Slot::Building);
        if sender.send(job).is_err() {
            lock(&self.slots).insert(key, Slot::Failed);
        }
    }

    /// The address of the backend of `key`, when it is serving. A backend found dead is
    /// restarted on another thread (up to [`MAX_RESTARTS`] times) and `None` is returned
    /// meanwhile: a move asked for now must not wait for a process to start.
    pub(super) fn url(self: &Arc<Self>, key: u64) -> Option<String> {
        let mut slots = lock(&self.slots);
        let Some(Slot::Ready(backend)) = slots.get_mut(&key) else { return None };
        match backend.child.try_wait() {
            Ok(None) => return Some(backend.url.clone()),
            Ok(Some(status)) => log::error(format_args!("game {key:016x}: the native backend exited ({status})")),
            Err(e) => log::error(format_args!("game {key:016x}: cannot watch the native backend: {e}")),
        }
        let (binary, restarts) = (backend.binary.clone(), backend.restarts + 1);
        // The dead child is reaped as its slot is replaced.
        if restarts > MAX_RESTARTS {
            log::error(format_args!("game {key:016x}: the native backend died {restarts} times; not restarted"));
            slots.insert(key, Slot::Failed);
            return None;
        }
        slots.insert(key, Slot::Restarting);
        drop(slots);
        let natives = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("backend-restart".to_string())
            .spawn(move || natives.restart(key, &binary, restarts));
        if let Err(e) = spawned {
            log::error(format_args!("game {key:016x}: cannot restart the native backend: {e}"));
            lock(&self.slots).insert(key, Slot::Failed);
        }
        None
    }

    /// Starts the backend of `key` again, for the `restarts`-th time, and fills its slot.
    fn restart(&self, key: u64, binary: &Path, restarts: u32) {
        let slot = match spawn(binary, self.player, restarts) {
            Ok(backend) => {
                log::info(format_args!("game {key:016x}: native backend restarted at {}", backend.url));
                Slot::Ready(backend)
            }
            Err(e) => {
                log::error(format_args!("game {key:016x}: cannot restart the native backend: {e}"));
                Slot::Failed
            }
        };
        lock(&self.slots).insert(key, slot);
    }

    /// The builder thread: builds each job's binary and starts its backend.
    fn build_all(&self, jobs: Receiver<Job>) {
        for job in jobs {
            let start = Instant::now();
            let built = (job.module)()
                .and_then(|module| native::build_binary(&job.stem, &module, &job.rules, false, Priority::Background));
            if job.key == WARM_UP_KEY {
                // The warm-up game has no rules to serve by, and no match waits for it.
                match built {
                    Ok(_) => log::info(format_args!("native runtime ready in {:.1} s", start.elapsed().as_secs_f64())),
                    Err(e) => log::error(format_args!("the warm-up build failed: {e}")),
                }
                continue;
            }
            let slot = match built.and_then(|binary| {
                record_in_index(job.key, &binary);
                spawn(&binary, self.player, 0)
            }) {
                Ok(backend) => {
                    let seconds = start.elapsed().as_secs_f64();
                    log::info(format_args!("game {:016x}: native code ready in {seconds:.1} s", job.key));
                    Slot::Ready(backend)
                }
                Err(e) => {
                    log::error(format_args!("game {:016x}: no native code: {e}", job.key));
                    Slot::Failed
                }
            };
            lock(&self.slots).insert(job.key, slot);
        }
    }

    /// Builds a tiny game first, so that the runtime that every game's binary links is built
    /// before the first START needs it.
    pub(super) fn warm_up(&self) {
        if let Some(sender) = lock(&self.jobs).as_ref() {
            let job = Job {
                key: WARM_UP_KEY,
                stem: "warm_up".to_string(),
                module: Box::new(|| Ok(WARM_UP_MODULE.to_string())),
                rules: String::new(),
            };
            let _ = sender.send(job);
        }
    }
}

/// The key of the warm-up build, which no game has.
const WARM_UP_KEY: u64 = 0;

/// The module of the warm-up build: a game of one role and one move, written by hand against
/// the runtime's `Game` interface.
const WARM_UP_MODULE: &str = include_str!("warm_up.rs");

/// The file that names the binary built for a game's shape.
fn index_path(key: u64) -> PathBuf {
    native::cache_dir().join("shapes").join(format!("{key:016x}"))
}

/// Notes in the cache that `binary` plays the games of shape `key`.
fn record_in_index(key: u64, binary: &Path) {
    let path = index_path(key);
    let written = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| {
        let temp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&temp, binary.display().to_string())?;
        std::fs::rename(&temp, &path)
    });
    if let Err(e) = written {
        log::error(format_args!("cannot write the cache's index {}: {e}", path.display()));
    }
}

/// The binary the cache has for shape `key`, if it is there and genuine.
fn cached_binary(key: u64) -> Option<PathBuf> {
    let binary = PathBuf::from(std::fs::read_to_string(index_path(key)).ok()?.trim());
    let package = binary.file_stem()?.to_str()?.to_string();
    native::is_genuine(&binary, &package).then_some(binary)
}

/// Starts a backend and reads the address it serves on.
fn spawn(binary: &Path, player: Kind, restarts: u32) -> Result<Backend, String> {
    let mut args = vec!["serve", "--port", "0", "--host", "127.0.0.1", "--exit-with-stdin", "--player", player.name()];
    // The front logs every move; the backend's own lines are details.
    match log::level() {
        log::Level::Quiet | log::Level::Normal => args.push("-q"),
        log::Level::Verbose => args.push("-v"),
    }
    let mut child = Command::new(binary)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!("{} has no output", binary.display()));
    };
    let (sender, receiver) = mpsc::channel();
    // A backend that hangs before printing its address must not hang the server.
    let _ = std::thread::Builder::new().name("backend-start".to_string()).spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(line);
    });
    let line = receiver.recv_timeout(STARTUP_TIME).unwrap_or_default();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).map(str::to_string);
    let backend = Backend { binary: binary.to_path_buf(), url: url.unwrap_or_default(), child, restarts };
    if backend.url.is_empty() {
        return Err(format!("{} did not start serving: `{}`", binary.display(), line.trim()));
    }
    Ok(backend)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A stand-in backend: a script that takes `seconds` to print its address, then serves
    /// nothing until it is killed.
    fn slow_backend(seconds: u32) -> std::io::Result<PathBuf> {
        use std::os::unix::fs::PermissionsExt as _;
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let path = std::env::temp_dir().join(format!("gdlc-slow-backend-{}-{nanos}", std::process::id()));
        let script = format!("#!/bin/sh\nsleep {seconds}\necho serving on http://127.0.0.1:9\nexec sleep 60\n");
        std::fs::write(&path, script)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        Ok(path)
    }

    #[test]
    fn a_dead_backend_is_restarted_without_holding_up_the_move_that_found_it() {
        let binary = slow_backend(2).unwrap();
        let mut dead = Command::new("true").spawn().unwrap();
        dead.wait().unwrap();
        let natives = Natives::new(Kind::Random, false);
        let backend =
            Backend { binary: binary.clone(), url: "http://127.0.0.1:9".to_string(), child: dead, restarts: 0 };
        lock(&natives.slots).insert(7, Slot::Ready(backend));
        let asked = Instant::now();
        assert_eq!(natives.url(7), None);
        // The restart takes two seconds; the move that found the backend dead does not wait.
        assert!(asked.elapsed() < Duration::from_secs(1), "url() waited {:?}", asked.elapsed());
        assert_eq!(natives.status(7), "native code restarting");
        let until = Instant::now() + STARTUP_TIME;
        while natives.status(7) == "native code restarting" && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(natives.status(7), "native code ready");
        assert_eq!(natives.url(7).as_deref(), Some("http://127.0.0.1:9"));
        let _ = std::fs::remove_file(&binary);
    }
}
