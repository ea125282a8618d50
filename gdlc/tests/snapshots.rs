//! Snapshots of the generated module, with its comments, for tiny fixture games in
//! `tests/fixtures/`, one per optimization of `codegen/`: each test also checks that its
//! optimization fired, so that a snapshot cannot silently stop covering it. A changed
//! snapshot is reviewed like code; `INSTA_UPDATE=always cargo test -p gdlc --test snapshots`
//! rewrites them.

use gdlc::codegen::{self, Form, Options};

/// The rendered module of fixture `name` in `form`, with comments, as `gdlc compile` writes it.
fn module(name: &str, source: &str, form: Form) -> String {
    let file = format!("{name}.kif");
    let options = Options { form, ..Default::default() };
    let compiled = gdlc::compile::compile_commented(source, &file, &options).unwrap_or_else(|e| panic!("{file}: {e}"));
    let tokens = compiled.tokens;
    codegen::render_file(&tokens, &format!("gdlc compile gdlc/tests/fixtures/{file}")).expect("renders")
}

/// Snapshots fixture `$name` in `$form` after checking that its module holds every string of
/// `$fired`, which only the optimization under test writes.
macro_rules! snapshot {
    ($test:ident, $name:literal, $form:expr, $fired:expr) => {
        #[test]
        fn $test() {
            let text = module($name, include_str!(concat!("fixtures/", $name, ".kif")), $form);
            for fired in $fired {
                assert!(text.contains(fired), "{}: no `{fired}`, so the optimization did not fire:\n{text}", $name);
            }
            assert!(!text.contains("gdlc_note!"), "a marker was left in:\n{text}");
            insta::assert_snapshot!($name, text);
        }
    };
}

// `families/`: lines tested a word at a time, as runs of marks.
snapshot!(families_and_runs, "runs", Form::Straight, ["let run = "]);
// `truth_tables.rs`: a colour's line looked up in a constant table.
snapshot!(truth_tables, "truth_table", Form::Straight, ["const TABLE:", "The truth table of the node"]);
// `move_tables/`: the lights a press toggles, by move: the rows of the frame rules.
snapshot!(move_tables, "move_tables", Form::Straight, ["static FRAMES:", "&FRAMES[0][joint[0].0 as usize]"]);
// `emit/expr.rs`: a cell's frame rules, one per pair of cells a move leaves alone, merged
// into one mask test of the move table's row.
snapshot!(move_table_sets, "move_table_sets", Form::Straight, ["& (mt[0] & 0x7feee0 != 0)"]);
// `move_tables/`: every cell kept when both players pass, a test of the joint move.
snapshot!(frame_products, "frame_products", Form::Straight, ["The bits kept when a plays noop and b plays noop."]);
// `move_tables/`: every cell kept when both players wait, a condition on the state and the moves.
snapshot!(frame_guards, "frame_guards", Form::Straight, ["The bits kept when (waits a) and (waits b)."]);
// `move_tables/`, `node_words/`: "some player moves to this cell" as a word of the move
// table's row, its bits at the cells' places, read by the next values of a whole board.
snapshot!(table_words, "table_words", Form::Straight, ["& !(mt[0] >> 9u32)", "(0x1ff & !mt[0]) << 9u32"]);
// `ground/thresholds.rs`: a pass when two of a player's pieces are stuck, counted.
snapshot!(thresholds, "thresholds", Form::Straight, ["(at_least 2 9 0 (legal white noop))"]);
// `emit/guards.rs`: each player's legal moves, and whether it has one, inside a test of its turn.
snapshot!(guards, "guards", Form::Straight, ["!= 0 {\n        // n[20]: (legal red (claim 1 2))"]);
// `arm_families/`: drops, one conditional frame rule moved up a column.
snapshot!(arm_families, "arm_families", Form::Straight, ["static ARM_FAMILY_OF_"]);
// `arm_families/copy_groups.rs`: a ring turned either way, marks copied by table.
snapshot!(copy_groups, "copy_groups", Form::Straight, ["static ARM_COPIES_"]);
// `node_words/`: the rays of a row, 64 at a time.
snapshot!(node_words, "node_words", Form::Straight, ["let mut g = [0u64;", " node words, bit "]);
// `node_words/`: a recursive relation's flood fill from a cell, a loop of words from empty ones;
// "a marked cell not linked to this one" tested for every other cell at once, the fill made
// inside the test of the cell it starts from (`lazy.rs`).
snapshot!(flood_fill, "flood_fill", Form::Straight, ["changed |= word != g[", " & !g[2] != 0;", "n[0] = false;"]);
// `move_guards/`: each cell's arrival evaluated in the arm of the move to it.
snapshot!(move_guards, "move_guards", Form::Straight, ["which guards:"]);
// `pick_tables.rs`: random_step draws a legal move by table.
snapshot!(pick_tables, "pick_tables", Form::Straight, ["listed_bits_table("]);
// `program.rs`: the table form.
snapshot!(table_form, "table_form", Form::Tables, ["const PROGRAM_TABLES: &str", "The table form:"]);
// `realtime.rs`: an rtGDL game's module.
snapshot!(realtime, "realtime", Form::Straight, ["RealTimeGame"]);
// GDL-II: a random role and percepts.
snapshot!(gdl_ii, "gdl_ii", Form::Straight, ["pub fn sees(", "RANDOM_ROLE"]);

// `lifted/`: the rules with variables as generated joins, a recursive relation's delta variant
// among them, with the line of each rule, and a rule's test of the moves for the demand pass.
snapshot!(
    lifted,
    "lifted",
    Form::Lifted,
    [
        "fn engine_0_rule_",
        "_delta_0(",
        ".intern_args(",
        "// Rule at lifted.kif:",
        "guards: &[::gdl_runtime::lifted::Guard::Has("
    ]
);
