//! The player's log: one line per event (a START, a PLAY, a switch of engine, a STOP, an
//! ABORT, an expiry, an error) on stderr, stamped with the time of day, at a level set once
//! for the process by `-q` (errors only) or `-v` (details too).

use std::fmt;
use std::io::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// How much the player says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Errors only (`-q`).
    Quiet = 0,
    /// One line per message and per event (the default).
    Normal = 1,
    /// Details too: every message's timing, the engine's work, the backend's replies (`-v`).
    Verbose = 2,
}

static LEVEL: AtomicU8 = AtomicU8::new(Level::Normal as u8);

/// Sets the level of the whole process.
pub fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// The level of the process.
pub fn level() -> Level {
    match LEVEL.load(Ordering::Relaxed) {
        0 => Level::Quiet,
        1 => Level::Normal,
        _ => Level::Verbose,
    }
}

/// The level from the command line's `-q` and `-v` flags (`-q` wins when both are given).
pub fn level_of_flags(quiet: bool, verbose: bool) -> Level {
    if quiet {
        Level::Quiet
    } else if verbose {
        Level::Verbose
    } else {
        Level::Normal
    }
}

/// The time of day in UTC as `hh:mm:ss.mmm`.
fn time_of_day() -> String {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs() % 86_400;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    format!("{h:02}:{m:02}:{s:02}.{:03}", since.subsec_millis())
}

/// Writes one line, whole, when `level` is enabled; a closed stderr loses it silently.
fn write(level: Level, kind: &str, args: fmt::Arguments) {
    if level > self::level() {
        return;
    }
    let line = format!("{} {kind}{args}\n", time_of_day());
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// An event: shown unless `-q`.
pub fn info(args: fmt::Arguments) {
    write(Level::Normal, "", args);
}

/// A detail: shown with `-v`.
pub fn detail(args: fmt::Arguments) {
    write(Level::Verbose, "", args);
}

/// An error: always shown.
pub fn error(args: fmt::Arguments) {
    write(Level::Quiet, "error: ", args);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_choose_the_level() {
        assert_eq!(level_of_flags(false, false), Level::Normal);
        assert_eq!(level_of_flags(true, false), Level::Quiet);
        assert_eq!(level_of_flags(false, true), Level::Verbose);
        assert_eq!(level_of_flags(true, true), Level::Quiet);
    }

    #[test]
    fn the_time_of_day_has_a_fixed_shape() {
        let t = time_of_day();
        assert_eq!(t.len(), 12, "{t}");
        assert_eq!(&t[2..3], ":");
        assert_eq!(&t[8..9], ".");
    }
}
