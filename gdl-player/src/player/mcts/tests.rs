//! Tests of the MCTS player on small games whose right moves are known.

use super::*;
use std::time::Duration;

/// Nim with one heap of `heap` stones: the two roles alternate taking one or two stones
/// (the other role plays `noop`), and whoever takes the last stone wins.
struct Nim {
    heap: u32,
    /// How long each move takes to apply, to stand for a slow (interpreted) game.
    step: Duration,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    left: u32,
    mover: usize,
}

impl Game for Nim {
    type State = State;
    type Move = u32;

    fn num_roles(&self) -> usize {
        2
    }
    fn role_name(&self, role: usize) -> &str {
        ["first", "second"][role]
    }
    fn initial_state(&self) -> State {
        State { left: self.heap, mover: 0 }
    }
    fn legal_moves(&self, state: &State, role: usize, out: &mut Vec<u32>) {
        out.clear();
        if state.left == 0 {
            return;
        }
        if role == state.mover {
            out.extend((1..=2).filter(|&n| n <= state.left));
        } else {
            out.push(0);
        }
    }
    fn next_state(&self, state: &State, joint: &[u32]) -> State {
        std::thread::sleep(self.step);
        State { left: state.left - joint[state.mover], mover: 1 - state.mover }
    }
    fn is_terminal(&self, state: &State) -> bool {
        state.left == 0
    }
    fn goal(&self, state: &State, role: usize) -> Option<u32> {
        // The role that just moved took the last stone.
        self.is_terminal(state).then_some(if role != state.mover { 100 } else { 0 })
    }
    fn state_facts(&self, state: &State) -> Vec<String> {
        vec![format!("(left {})", state.left)]
    }
    fn move_string(&self, mv: &u32) -> String {
        if *mv == 0 {
            "noop".into()
        } else {
            format!("(take {mv})")
        }
    }
    fn parse_move(&self, _role: usize, _text: &str) -> Option<u32> {
        None
    }
}

#[test]
fn finds_the_winning_move_of_nim() {
    // From 7 stones the winning move leaves a multiple of 3: take 1.
    let game = Nim { heap: 7, step: Duration::ZERO };
    let mut player = MctsPlayer::new(3);
    let deadline = Instant::now() + Duration::from_millis(200);
    let mv = player.choose(&game, &game.initial_state(), 0, deadline);
    assert_eq!(mv, Some(1));
    assert!(player.last_iterations > 100, "{}", player.last_iterations);
    let state = State { left: 5, mover: 0 };
    let mv = player.choose(&game, &state, 0, Instant::now() + Duration::from_millis(200));
    assert_eq!(mv, Some(2));
}

#[test]
fn answers_by_the_deadline_even_when_it_has_passed() {
    let game = Nim { heap: 1000, step: Duration::ZERO };
    let mut player = MctsPlayer::new(1);
    let start = Instant::now();
    let mv = player.choose(&game, &game.initial_state(), 0, start + Duration::from_millis(50));
    assert!(matches!(mv, Some(1 | 2)));
    assert!(start.elapsed() < Duration::from_millis(150), "{:?}", start.elapsed());
    let mv = player.choose(&game, &game.initial_state(), 0, start);
    assert!(matches!(mv, Some(1 | 2)));
}

#[test]
fn slow_steps_do_not_overrun_the_deadline() {
    // 20 ms a step: reading the clock only every 32 steps would overrun by 640 ms.
    let game = Nim { heap: 1000, step: Duration::from_millis(20) };
    let mut player = MctsPlayer::new(1);
    let start = Instant::now();
    let mv = player.choose(&game, &game.initial_state(), 0, start + Duration::from_millis(100));
    assert!(matches!(mv, Some(1 | 2)));
    assert!(start.elapsed() < Duration::from_millis(100 + 3 * 20 + 40), "{:?}", start.elapsed());
}

#[test]
fn a_role_with_one_move_or_none_answers_at_once() {
    let game = Nim { heap: 4, step: Duration::ZERO };
    let mut player = MctsPlayer::new(1);
    let far = Instant::now() + Duration::from_secs(60);
    assert_eq!(player.choose(&game, &game.initial_state(), 1, far), Some(0));
    assert_eq!(player.choose(&game, &State { left: 0, mover: 0 }, 0, far), None);
}

/// A game given as a table of states: in each, role `mover` picks one of `children` (a
/// move is the child's position in the list) and the other roles play `noop`; a state
/// without children is terminal. Every state scores `goals` (none where they are empty).
struct Table {
    roles: usize,
    states: Vec<Entry>,
    /// How long each move takes to apply, to stand for a slow engine.
    step: Duration,
}

struct Entry {
    mover: usize,
    children: Vec<usize>,
    goals: Vec<u32>,
}

/// The move that stands for `noop`.
const NOOP: u32 = u32::MAX;

impl Game for Table {
    type State = usize;
    type Move = u32;

    fn num_roles(&self) -> usize {
        self.roles
    }
    fn role_name(&self, role: usize) -> &str {
        ["red", "green", "blue", "white"][role]
    }
    fn initial_state(&self) -> usize {
        0
    }
    fn legal_moves(&self, state: &usize, role: usize, out: &mut Vec<u32>) {
        out.clear();
        let entry = &self.states[*state];
        if entry.children.is_empty() {
            return;
        }
        if role == entry.mover {
            out.extend(0..entry.children.len() as u32);
        } else {
            out.push(NOOP);
        }
    }
    fn next_state(&self, state: &usize, joint: &[u32]) -> usize {
        std::thread::sleep(self.step);
        let entry = &self.states[*state];
        entry.children[joint[entry.mover] as usize]
    }
    fn is_terminal(&self, state: &usize) -> bool {
        self.states[*state].children.is_empty()
    }
    fn goal(&self, state: &usize, role: usize) -> Option<u32> {
        self.states[*state].goals.get(role).copied()
    }
    fn state_facts(&self, state: &usize) -> Vec<String> {
        vec![format!("(at {state})")]
    }
    fn move_string(&self, mv: &u32) -> String {
        if *mv == NOOP {
            "noop".into()
        } else {
            format!("(pick {mv})")
        }
    }
    fn parse_move(&self, _role: usize, _text: &str) -> Option<u32> {
        None
    }
}

/// A state of `Table` in which `mover` picks among `children`.
fn inner(mover: usize, children: &[usize]) -> Entry {
    Entry { mover, children: children.to_vec(), goals: Vec::new() }
}

/// A terminal state of `Table` that scores `goals`.
fn leaf(goals: &[u32]) -> Entry {
    Entry { mover: 0, children: Vec::new(), goals: goals.to_vec() }
}

#[test]
fn moves_that_tie_are_chosen_at_random() {
    // Three players; the third picks one of four moves, which all end the game alike. No
    // move is better than another, so the choice must not be the same move every time:
    // that would play worse than random wherever the playouts tell the moves apart no
    // better than chance.
    let tie = [50, 50, 50];
    let game = Table {
        roles: 3,
        states: vec![inner(2, &[1, 2, 3, 4]), leaf(&tie), leaf(&tie), leaf(&tie), leaf(&tie)],
        step: Duration::ZERO,
    };
    for budget in [Duration::ZERO, Duration::from_millis(2)] {
        let mut chosen = std::collections::HashSet::new();
        for seed in 0..40 {
            let mut player = MctsPlayer::new(seed);
            chosen.insert(player.choose(&game, &0, 2, Instant::now() + budget));
        }
        assert_eq!(chosen.len(), 4, "{budget:?}: {chosen:?}");
    }
}

/// Appends to `states` a line of `length` states in which nobody has a choice, each scoring
/// `goals`, that ends in a terminal state scoring `goals`; the index of its first state.
fn line(states: &mut Vec<Entry>, length: usize, goals: &[u32]) -> usize {
    let first = states.len();
    for i in 0..length {
        states.push(Entry { mover: 0, children: vec![first + i + 1], goals: goals.to_vec() });
    }
    states.push(leaf(goals));
    first
}

/// A game whose playouts take far longer than the play clock: a millisecond a step, and lines
/// of a thousand steps after the first move. Role `mover` picks one of `lines` (given by the
/// goals along them), or with the last move ends the game at once with `now`.
fn slow_game(mover: usize, lines: &[&[u32]], now: &[u32]) -> Table {
    slow_game_of(1000, mover, lines, now)
}

/// [`slow_game`] with lines of `length` steps.
fn slow_game_of(length: usize, mover: usize, lines: &[&[u32]], now: &[u32]) -> Table {
    let mut states = vec![inner(mover, &[])];
    for goals in lines {
        let first = line(&mut states, length, goals);
        states[0].children.push(first);
    }
    let end = states.len();
    states[0].children.push(end);
    states.push(leaf(now));
    Table { roles: 3, states, step: Duration::from_millis(1) }
}

#[test]
fn sees_an_immediate_win_when_playouts_are_too_slow_to_finish() {
    // The third of three players wins by its last move; the others lead to long games, which
    // it loses. No playout ends within the clock: the search must cut them to find the win.
    let game = slow_game(2, &[&[100, 100, 0], &[100, 100, 0], &[100, 100, 0]], &[0, 0, 100]);
    for seed in 0..3 {
        let mut player = MctsPlayer::new(seed);
        let mv = player.choose(&game, &0, 2, Instant::now() + Duration::from_millis(200));
        assert_eq!(mv, Some(3), "seed {seed}: {} iterations", player.last_iterations);
    }
}

#[test]
fn sees_an_immediate_win_when_playouts_end_but_few_fit_in_the_clock() {
    // As above, with twelve long lines whose playouts end in 70 ms, under the quarter of the
    // 400 ms clock at which a playout is cut: five of them fill the clock, too few to try
    // every move once, unless the search turns to scoring nodes by their goals.
    let lines = vec![&[100, 100, 0][..]; 12];
    let game = slow_game_of(70, 2, &lines, &[0, 0, 100]);
    for seed in 0..3 {
        let mut player = MctsPlayer::new(seed);
        let mv = player.choose(&game, &0, 2, Instant::now() + Duration::from_millis(400));
        assert_eq!(mv, Some(12), "seed {seed}: {} iterations", player.last_iterations);
    }
}

#[test]
fn playouts_cut_short_are_scored_by_the_goals_of_the_state_reached() {
    // The second of three players picks one of three long games, in each of which its goal
    // is known from the start (a crash that already cost it everything, or a place it keeps):
    // 0, 25 or 0. Playouts never end within the clock, so only the goals of the states they
    // reach can tell the middle line is the best.
    let game = slow_game(1, &[&[25, 0, 25], &[25, 25, 25], &[25, 0, 25]], &[100, 0, 100]);
    for seed in 0..3 {
        let mut player = MctsPlayer::new(seed);
        let mv = player.choose(&game, &0, 1, Instant::now() + Duration::from_millis(200));
        assert_eq!(mv, Some(1), "seed {seed}: {} iterations", player.last_iterations);
    }
}

#[test]
fn a_playout_cut_short_is_not_scored_as_a_loss() {
    // The first of three players either loses at once with its last move or plays one of two
    // long games whose goals are undefined until they end (as chess's are). A playout cut
    // short there tells nothing, and must not count as bad as the loss.
    let game = slow_game(0, &[&[], &[]], &[0, 100, 100]);
    for seed in 0..5 {
        let mut player = MctsPlayer::new(seed);
        let mv = player.choose(&game, &0, 0, Instant::now() + Duration::from_millis(200));
        assert!(matches!(mv, Some(0 | 1)), "seed {seed}: {mv:?} after {} iterations", player.last_iterations);
    }
}

#[test]
fn a_playout_from_a_nodes_moves_draws_them_as_a_random_step_would() {
    // A node hands its playout the legal moves of its state, so that the first step need not
    // work them out again. That step must draw as every other does (no draw for a role with
    // one move), so that a seed gives the same playout either way.
    let game = Nim { heap: 21, step: Duration::ZERO };
    let state = game.initial_state();
    let mut known = vec![Vec::new(); 2];
    for (role, moves) in known.iter_mut().enumerate() {
        game.legal_moves(&state, role, moves);
    }
    let far = Instant::now() + Duration::from_secs(60);
    let mut winners = std::collections::BTreeSet::new();
    for seed in 0..16 {
        let from_node = playout_until(&game, &state, &known, &mut Rng::seeded(seed), far, far);
        let from_state = playout_until(&game, &state, &[], &mut Rng::seeded(seed), far, far);
        let (from_node, from_state) = (from_node.map(|p| p.rewards), from_state.map(|p| p.rewards));
        assert_eq!(from_node, from_state, "seed {seed}");
        winners.insert(format!("{from_node:?}"));
    }
    assert_eq!(winners.len(), 2, "the seeds should give both outcomes");
}
