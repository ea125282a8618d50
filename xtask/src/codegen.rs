//! `cargo codegen [--check]`: compiles every game of `games/` into `generated/src/games/` and
//! every rtGDL game of `games/rtgdl/` into `generated/src/realtime/`, or checks that the
//! checked-in modules are what the compiler produces now.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The command that regenerates the files, named in their headers and in stale-file errors.
pub(crate) const COMMAND: &str = "cargo codegen";

/// The workspace root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A Rust module name for a game file stem: `connectFour` -> `connect_four`, `3pConnectFour` ->
/// `g3p_connect_four` (a module name cannot start with a digit).
pub(crate) fn module_name(stem: &str) -> String {
    let mut name = String::new();
    let mut previous_lower = false;
    for c in stem.chars() {
        if c.is_ascii_uppercase() && previous_lower {
            name.push('_');
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        name.push(if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' });
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'g');
    }
    name
}

/// Games of `games/` that are not checked in: amazons compiles (in table form) to a module of
/// 20 MB, too large to keep in the repository, and chess (in the lifted form, 2.2 MB) takes 23 s
/// to compile, which `cargo codegen --check` would pay on every run.
pub(crate) const NOT_YET_COMPILED: &[&str] = &["amazons", "chess"];

/// Games of `games/` also compiled in table form (as `MODULE_tables`), so that the differential
/// tests check the table form against the interpreter as they check the straight-line form.
pub(crate) const TABLE_FORM_TWINS: &[&str] =
    &["breakthrough", "buttons", "connectFour", "diceDuel", "montyHall", "phases", "ticTacToe"];

/// Games also compiled with every function's long runs of node statements in parts
/// (`Form::Parts`), as the long functions of the corpus's largest games are written: the
/// differential tests and replays check that code on a game small enough to bundle (gather's
/// step, in parts, also takes its arrays from a thread-local: see `codegen/scratch/`).
pub(crate) const PARTS_TWINS: &[&str] = &["checkers", "gather"];

/// Games also compiled in the lifted form (`Form::Lifted`, as `MODULE_lifted`), the form of
/// games too large to ground, so that the differential tests and replays check it on games
/// small enough to bundle: static legal moves (buttons), recursive relations (connectFour,
/// hanoi), GDL-II with percepts and a random role (kuhnPoker, montyHall), function terms matched
/// and looked up in bodies (checkers, tokensOnLine, written for this), constants read through
/// `true` and `does` (phases, written for this), a relation unfolded into the rules that read it
/// with an argument free (relay, written for this), recursive relations answered by a search
/// that walks a line square by square (rookLines, written for this, as chess's threats).
pub(crate) const LIFTED_TWINS: &[&str] = &[
    "buttons",
    "checkers",
    "connectFour",
    "hanoi",
    "kuhnPoker",
    "montyHall",
    "phases",
    "relay",
    "rookLines",
    "ticTacToe",
    "tokensOnLine",
];

/// A directory of games and the directory of their compiled modules.
struct Collection {
    /// The games' directory, relative to the root.
    games: &'static str,
    /// The modules' directory, relative to the root.
    modules: &'static str,
    /// What the index module says the games are.
    description: &'static str,
    /// The name of the index's `$callback!(module, "FILE")` macro.
    macro_name: &'static str,
}

/// The turn-based games of `games/`, and the rtGDL games of `games/rtgdl/`.
const COLLECTIONS: [Collection; 2] = [
    Collection {
        games: "games",
        modules: "generated/src/games",
        description: "The games of `games/`",
        macro_name: "for_each_game",
    },
    Collection {
        games: "games/rtgdl",
        modules: "generated/src/realtime",
        description: "The real-time (rtGDL) games of `games/rtgdl/`",
        macro_name: "for_each_realtime_game",
    },
];

/// Every file the modules' directories should hold, by path, with its contents.
pub(crate) fn expected_files(root: &Path) -> Result<BTreeMap<PathBuf, String>, String> {
    let mut files = BTreeMap::new();
    for collection in &COLLECTIONS {
        files.extend(collection_files(root, collection)?);
    }
    Ok(files)
}

fn collection_files(root: &Path, collection: &Collection) -> Result<BTreeMap<PathBuf, String>, String> {
    let games_dir = root.join(collection.games);
    let mut games: Vec<PathBuf> = std::fs::read_dir(&games_dir)
        .map_err(|e| format!("{}: {e}", games_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .collect();
    games.sort();
    let out_dir = root.join(collection.modules);
    let mut files = BTreeMap::new();
    let mut modules = Vec::new();
    for game in &games {
        let stem = game.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if NOT_YET_COMPILED.contains(&stem.as_str()) {
            continue;
        }
        let source = std::fs::read_to_string(game).map_err(|e| format!("{}: {e}", game.display()))?;
        let file = format!("{}/{stem}.kif", collection.games);
        let mut forms = vec![(module_name(&stem), gdlc::codegen::Form::Auto)];
        if TABLE_FORM_TWINS.contains(&stem.as_str()) {
            forms.push((format!("{}_tables", module_name(&stem)), gdlc::codegen::Form::Tables));
        }
        if PARTS_TWINS.contains(&stem.as_str()) {
            forms.push((format!("{}_parts", module_name(&stem)), gdlc::codegen::Form::Parts));
        }
        if LIFTED_TWINS.contains(&stem.as_str()) {
            forms.push((format!("{}_lifted", module_name(&stem)), gdlc::codegen::Form::Lifted));
        }
        for (module, form) in forms {
            let options = gdlc::codegen::Options { form, ..Default::default() };
            let text = generate_commented(&source, &options, game)
                .map_err(|e| gdlc::diag::render_all(&e.diagnostics(), &file, &source))?
                .map_err(|e| format!("{file}: {e}"))?;
            files.insert(out_dir.join(format!("{module}.rs")), text);
            modules.push((module, file.clone()));
        }
    }
    let mut index = format!(
        "// @generated by `{COMMAND}`; do not edit. Regenerate with the same command.\n\n\
         //! {}, compiled by gdlc: one module per game.\n\n",
        collection.description
    );
    for (module, file) in &modules {
        // prettyplease formats the modules; rustfmt is kept off them.
        let form = match module {
            _ if module.ends_with("_tables") => " in table form",
            _ if module.ends_with("_parts") => " with its functions in parts",
            _ if module.ends_with("_lifted") => " in the lifted form",
            _ => "",
        };
        index.push_str(&format!("/// `{file}`, compiled{form}.\n#[rustfmt::skip]\npub mod {module};\n"));
    }
    index.push_str(&format!(
        "\n/// Calls `$callback!(module, \"{}/FILE.kif\")` for every compiled game.\n\
         #[macro_export]\nmacro_rules! {} {{\n    ($callback:ident) => {{\n",
        collection.games, collection.macro_name
    ));
    for (module, file) in &modules {
        index.push_str(&format!("        $callback!({module}, \"{file}\");\n"));
    }
    index.push_str("    };\n}\n");
    files.insert(out_dir.join("mod.rs"), index);
    Ok(files)
}

/// The rendered module of the game in `source`, read from `game`, with comments that name the
/// atom or table each piece of code computes and the lines of `game` its rules are on; the
/// inner error is one of rendering.
fn generate_commented(
    source: &str,
    options: &gdlc::codegen::Options,
    game: &Path,
) -> Result<Result<String, String>, gdlc::Error> {
    let name = game.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let compiled = gdlc::compile::compile_commented(source, &name, options)?;
    Ok(gdlc::codegen::render_file(&compiled.tokens, COMMAND))
}

/// Writes the generated files, removing stale modules of games no longer in `games/`.
pub(crate) fn write(root: &Path) -> Result<(), String> {
    let expected = expected_files(root)?;
    for collection in &COLLECTIONS {
        let out_dir = root.join(collection.modules);
        std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
        for path in existing_files(&out_dir) {
            if !expected.contains_key(&path) {
                std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
    }
    for (path, text) in &expected {
        if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// Names every generated file that is stale, missing or extra.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let expected = expected_files(root)?;
    let mut problems = Vec::new();
    for (path, text) in &expected {
        match std::fs::read_to_string(path) {
            Ok(current) if current == *text => {}
            Ok(_) => problems.push(format!("{} is stale", path.display())),
            Err(_) => problems.push(format!("{} is missing", path.display())),
        }
    }
    for collection in &COLLECTIONS {
        for path in existing_files(&root.join(collection.modules)) {
            if !expected.contains_key(&path) {
                problems.push(format!("{} has no game in {}/", path.display(), collection.games));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\nrun `{COMMAND}` to regenerate generated/", problems.join("\n")))
    }
}

fn existing_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    files.sort();
    files
}

/// Builds the release `gdlc` and returns its path (see [`release_gdlc`]).
pub(crate) fn build_release_gdlc(root: &Path) -> Result<PathBuf, String> {
    let status = std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["build", "--release", "--quiet", "-p", "gdlc-cli"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building gdlc failed".to_string());
    }
    Ok(release_gdlc(root))
}

/// The release build of `gdlc` (`cargo build --release -p gdlc-cli`), in `CARGO_TARGET_DIR` when
/// it is set, else in the workspace's `target/`.
pub(crate) fn release_gdlc(root: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    target.join("release/gdlc")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_are_snake_case_identifiers() {
        assert_eq!(module_name("connectFour"), "connect_four");
        assert_eq!(module_name("ticTacToe"), "tic_tac_toe");
        assert_eq!(module_name("3pConnectFour"), "g3p_connect_four");
        assert_eq!(module_name("4pffa"), "g4pffa");
        assert_eq!(module_name("chess_200"), "chess_200");
    }

    #[test]
    fn generated_code_is_fresh() {
        if let Err(e) = check(&root()) {
            panic!("{e}");
        }
    }
}
