//! Unit tests of the analysis on small games written by hand as graphs of numbered states.

use super::*;

/// A one-role game over states `0..`: `moves[s]` are the states reachable in one move from
/// `s` (the move's name is its target), `goals[s]` the goal values of terminal state `s`.
struct Graph {
    moves: Vec<Vec<u32>>,
    terminal: Vec<bool>,
    goals: Vec<Vec<u32>>,
}

impl Game for Graph {
    type State = u32;
    type Move = u32;
    fn num_roles(&self) -> usize {
        1
    }
    fn role_name(&self, _: usize) -> &str {
        "walker"
    }
    fn initial_state(&self) -> u32 {
        0
    }
    fn legal_moves(&self, state: &u32, _: usize, out: &mut Vec<u32>) {
        out.clone_from(&self.moves[*state as usize]);
    }
    fn next_state(&self, _: &u32, joint: &[u32]) -> u32 {
        joint[0]
    }
    fn is_terminal(&self, state: &u32) -> bool {
        self.terminal[*state as usize]
    }
    fn goal(&self, state: &u32, _: usize) -> Option<u32> {
        self.goals[*state as usize].last().copied()
    }
    fn goal_values(&self, state: &u32, _: usize, out: &mut Vec<u32>) -> bool {
        out.clone_from(&self.goals[*state as usize]);
        true
    }
    fn state_facts(&self, state: &u32) -> Vec<String> {
        vec![format!("(at {state})")]
    }
    fn move_string(&self, m: &u32) -> String {
        format!("(go {m})")
    }
    fn parse_move(&self, _: usize, text: &str) -> Option<u32> {
        text.strip_prefix("(go ")?.strip_suffix(')')?.parse().ok()
    }
}

fn run(game: &Graph, declared: &Declared) -> Report {
    let options = Options { budget: Duration::from_secs(5), threads: 2, ..Options::default() };
    analyze(game, declared, &options)
}

fn line(verdict: Option<&Verdict>) -> Vec<Vec<String>> {
    match verdict {
        Some(Verdict::Proved(Proof::Line(w)) | Verdict::Refuted(Refutation::Line(w))) => w.joints.clone(),
        other => panic!("no witness: {other:?}"),
    }
}

#[test]
fn a_game_that_ends_in_a_win_is_well_formed() {
    // 0 -> 1 -> 3 (win), 0 -> 2 -> 3.
    let game = Graph {
        moves: vec![vec![1, 2], vec![3], vec![3], vec![]],
        terminal: vec![false, false, false, true],
        goals: vec![vec![], vec![], vec![], vec![100]],
    };
    let report = run(&game, &Declared::default());
    assert_eq!(report.searched.stop, Stop::Complete);
    assert_eq!(report.searched.states, 4);
    assert_eq!(report.verdict(Property::WellFormed, None), Some(&Verdict::Proved(Proof::Exhaustive)));
    assert_eq!(report.verdict(Property::Goals, Some(0)), Some(&Verdict::Proved(Proof::Exhaustive)));
    assert_eq!(line(report.verdict(Property::WeakWinnability, Some(0))), [["(go 1)"], ["(go 3)"]]);
    assert_eq!(line(report.verdict(Property::StrongWinnability, None)), [["(go 1)"], ["(go 3)"]]);
    assert_eq!(report.verdict(Property::Input, None), Some(&Verdict::NotDeclared));
}

#[test]
fn loops_dead_ends_and_two_goal_values_are_refuted_with_lines() {
    // 0 -> 1 -> 2 -> 1 loops; 0 -> 3 is a dead end; 0 -> 4 ends with goals 0 and 50.
    let game = Graph {
        moves: vec![vec![1, 3, 4], vec![2], vec![1], vec![], vec![]],
        terminal: vec![false, false, false, false, true],
        goals: vec![vec![], vec![], vec![], vec![], vec![0, 50]],
    };
    let base = Some(["(at 0)", "(at 1)", "(at 2)", "(at 4)"].map(String::from).into());
    let report = run(&game, &Declared { input: None, base });
    let cycle = report.verdict(Property::Termination, None);
    assert_eq!(line(cycle), [["(go 1)"], ["(go 2)"], ["(go 1)"]]);
    assert!(matches!(cycle, Some(Verdict::Refuted(Refutation::Line(Witness { shows: Shows::Cycle { from: 1 }, .. })))));
    assert_eq!(line(report.verdict(Property::Playability, Some(0))), [["(go 3)"]]);
    assert_eq!(line(report.verdict(Property::Goals, Some(0))), [["(go 4)"]]);
    assert_eq!(line(report.verdict(Property::Base, None)), [["(go 3)"]]);
    assert_eq!(report.verdict(Property::WeakWinnability, Some(0)), Some(&Verdict::Refuted(Refutation::Exhaustive)));
    let because = vec![
        (Property::Termination, None),
        (Property::Playability, Some(0)),
        (Property::WeakWinnability, Some(0)),
        (Property::StrongWinnability, None),
    ];
    assert_eq!(report.verdict(Property::WellFormed, None), Some(&Verdict::Refuted(Refutation::Because(because))));
    assert!(report.to_string().contains("termination: refuted: the last state is the state of step 1 again"));
}

#[test]
fn past_max_states_only_playouts_refute() {
    // A chain of 1,000 states whose end loops back to its start.
    let n = 1000;
    let mut moves: Vec<Vec<u32>> = (0..n).map(|s| vec![s + 1]).collect();
    moves[n as usize - 1] = vec![0];
    let game = Graph { moves, terminal: vec![false; n as usize], goals: vec![vec![]; n as usize] };
    let options = Options { max_states: 10, budget: Duration::from_millis(300), threads: 2, ..Options::default() };
    let report = analyze(&game, &Declared::default(), &options);
    assert_eq!(report.searched.stop, Stop::MaxStates);
    assert!(report.searched.playouts > 0);
    assert_eq!(line(report.verdict(Property::Termination, None)).len(), 1000);
    assert_eq!(report.verdict(Property::Playability, Some(0)), Some(&Verdict::Unknown(Undecided::Searched)));
}

#[test]
fn joint_move_numbers_decode_to_each_role_s_choice() {
    let legal = vec![vec!['a', 'b'], vec!['x', 'y', 'z'], vec!['0', '1']];
    let counts = [2, 3, 2];
    let mut seen = 0;
    crate::joints::for_each_joint(&legal, |number, joint| {
        for (role, mv) in joint.iter().enumerate() {
            assert_eq!(legal[role][crate::joints::choice_of(&counts, number, role)], *mv);
        }
        seen += 1;
        true
    });
    assert_eq!(seen, 12);
    crate::joints::for_each_joint(&[vec![1], vec![]], |_, _| panic!("a role without a move has no joint move"));
}

#[test]
fn a_state_with_more_joint_moves_than_max_states_stops_the_walk() {
    // 0 has 20 moves, each to a terminal state where the walker wins.
    let mut moves = vec![(1..=20).collect::<Vec<u32>>()];
    moves.extend((1..=20).map(|_| Vec::new()));
    let game = Graph { moves, terminal: [vec![false], vec![true; 20]].concat(), goals: vec![vec![100]; 21] };
    let options = Options { max_states: 10, budget: Duration::from_millis(200), ..Options::default() };
    let report = analyze(&game, &Declared::default(), &options);
    assert_eq!(report.searched.stop, Stop::Wide);
    assert_eq!(report.verdict(Property::Termination, None), Some(&Verdict::Unknown(Undecided::Searched)));
    assert_eq!(line(report.verdict(Property::WeakWinnability, Some(0))).len(), 1, "a playout wins in one move");
}
