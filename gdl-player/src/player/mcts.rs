//! The Monte Carlo tree search player: decoupled UCT, in which every role keeps its own
//! statistics for its own moves at each node and picks its move by UCB1 over them, so that
//! simultaneous moves need no joint-move tables. Each iteration descends the tree, adds one
//! node, plays a random playout from it and credits every role's goal to the moves it chose.
//! The search runs until the deadline, which it checks before every iteration and every few
//! playout steps, and answers with the root move it tried most.

use super::Player;
use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// UCB1's exploration constant, for rewards in `0..=1`.
const EXPLORATION: f64 = 1.4;

/// The most nodes one search keeps; past it, iterations only play out from the leaves.
const MAX_NODES: usize = 250_000;

/// The longest playout followed, so that a game that never ends cannot stall a search.
const MAX_PLAYOUT_STEPS: usize = 10_000;

/// The most playout steps that pass between two looks at the clock.
const STEPS_PER_CLOCK_CHECK: usize = 32;

/// The Monte Carlo tree search player (see the module's documentation). It keeps no tree from
/// one move to the next: every choice searches afresh from the state it is given.
pub struct MctsPlayer {
    rng: Rng,
    /// The number of completed iterations of the last search, for tests and diagnostics.
    pub last_iterations: u64,
}

impl MctsPlayer {
    /// A player whose random choices (the order of untried moves, the playouts) follow `seed`.
    pub fn new(seed: u64) -> MctsPlayer {
        MctsPlayer { rng: Rng::seeded(seed), last_iterations: 0 }
    }
}

/// A role's statistics for one of its moves at a node.
#[derive(Clone, Copy, Default)]
struct Stat {
    visits: u32,
    total: f64,
}

struct Node<S, M> {
    state: S,
    /// Every role's goal in `0..=1` when the node ends the game (a terminal state, or one in
    /// which some role has no legal move).
    end: Option<Vec<f64>>,
    moves: Vec<Vec<M>>,
    stats: Vec<Vec<Stat>>,
    visits: u32,
    children: HashMap<Vec<u32>, usize>,
}

/// Every role's goal in `state` as a reward in `0..=1` (an undefined goal counts as 0).
fn rewards<G: Game>(game: &G, state: &G::State) -> Vec<f64> {
    game.goals(state).iter().map(|g| f64::from(g.unwrap_or(0).min(100)) / 100.0).collect()
}

fn new_node<G: Game>(game: &G, state: G::State) -> Node<G::State, G::Move> {
    let mut moves = Vec::new();
    let end = if game.is_terminal(&state) {
        Some(rewards(game, &state))
    } else {
        game.all_legal_moves(&state, &mut moves);
        moves.iter().any(Vec::is_empty).then(|| rewards(game, &state))
    };
    let stats = moves.iter().map(|m| vec![Stat::default(); m.len()]).collect();
    Node { state, end, moves, stats, visits: 0, children: HashMap::new() }
}

/// The move index that UCB1 picks among `stats`: every move is tried once first, and moves of
/// equal score are picked among at random.
fn select(stats: &[Stat], parent_visits: u32, rng: &mut Rng) -> u32 {
    let log = f64::from(parent_visits.max(1)).ln();
    let score = |s: &Stat| {
        if s.visits == 0 {
            return f64::INFINITY;
        }
        s.total / f64::from(s.visits) + EXPLORATION * (log / f64::from(s.visits)).sqrt()
    };
    best_index(stats, rng, |a, b| score(a).total_cmp(&score(b))).unwrap_or(0) as u32
}

/// The index of the greatest of `items` by `order`, drawn uniformly among those that tie for it;
/// `None` when there are none. Breaking ties at random matters: when the playouts tell moves
/// apart no better than chance (a game whose goals the playouts rarely reach), taking the last
/// of the best would play the same move every time, and that is worse than random.
pub(crate) fn best_index<T>(items: &[T], rng: &mut Rng, order: impl Fn(&T, &T) -> Ordering) -> Option<usize> {
    let mut best: Option<usize> = None;
    let mut ties = 0;
    for (i, item) in items.iter().enumerate() {
        match best.map(|b| order(item, &items[b])) {
            None | Some(Ordering::Greater) => (best, ties) = (Some(i), 1),
            Some(Ordering::Equal) => {
                ties += 1;
                if rng.below(ties) == 0 {
                    best = Some(i);
                }
            }
            Some(Ordering::Less) => {}
        }
    }
    best
}

/// A clock interval shorter than this lets the playout read the clock half as often, up to
/// every [`STEPS_PER_CLOCK_CHECK`] steps; a longer one has it read after every step.
const FAST_CLOCK_INTERVAL: Duration = Duration::from_micros(200);

/// A random playout from `state`; `None` when the deadline passed first. The clock is read
/// after every step while steps are slow (an interpreted game can take milliseconds or more
/// per step, and 32 of them would overrun the play clock) and only every few steps while they
/// are fast, so that a compiled game's playouts do not pay for it.
pub(crate) fn playout<G: Game>(game: &G, state: &G::State, rng: &mut Rng, deadline: Instant) -> Option<Vec<f64>> {
    let mut state = state.clone();
    let mut legal = Vec::new();
    let mut joint = Vec::new();
    let mut checked = Instant::now();
    if checked >= deadline {
        return None;
    }
    let (mut stride, mut until_check) = (1, 1);
    for _ in 0..MAX_PLAYOUT_STEPS {
        if game.is_terminal(&state) {
            break;
        }
        game.all_legal_moves(&state, &mut legal);
        if legal.iter().any(Vec::is_empty) {
            break;
        }
        joint.clear();
        joint.extend(legal.iter().map(|m| m[rng.below(m.len())].clone()));
        state = game.next_state(&state, &joint);
        until_check -= 1;
        if until_check == 0 {
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            stride = if now - checked < FAST_CLOCK_INTERVAL { (stride * 2).min(STEPS_PER_CLOCK_CHECK) } else { 1 };
            (until_check, checked) = (stride, now);
        }
    }
    Some(rewards(game, &state))
}

impl MctsPlayer {
    /// One iteration of the search; `false` when the deadline cut it short.
    fn iterate<G: Game>(&mut self, game: &G, nodes: &mut Vec<Node<G::State, G::Move>>, deadline: Instant) -> bool {
        let mut path: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut node = 0;
        let rewards = loop {
            if let Some(end) = &nodes[node].end {
                break end.clone();
            }
            let n = &nodes[node];
            let joint: Vec<u32> = n.stats.iter().map(|s| select(s, n.visits, &mut self.rng)).collect();
            let child = n.children.get(&joint).copied();
            path.push((node, joint));
            if let Some(child) = child {
                node = child;
                continue;
            }
            let (parent, joint) = path.last().expect("pushed above");
            let n = &nodes[*parent];
            let moves: Vec<G::Move> = joint.iter().zip(&n.moves).map(|(&i, m)| m[i as usize].clone()).collect();
            let next = game.next_state(&n.state, &moves);
            if nodes.len() < MAX_NODES {
                let child = new_node(game, next);
                let start = child.state.clone();
                let end = child.end.clone();
                nodes.push(child);
                let id = nodes.len() - 1;
                nodes[*parent].children.insert(joint.clone(), id);
                path.push((id, Vec::new()));
                match end {
                    Some(end) => break end,
                    None => match playout(game, &start, &mut self.rng, deadline) {
                        Some(r) => break r,
                        None => return false,
                    },
                }
            }
            match playout(game, &next, &mut self.rng, deadline) {
                Some(r) => break r,
                None => return false,
            }
        };
        for (node, joint) in path {
            let n = &mut nodes[node];
            n.visits += 1;
            for (role, &index) in joint.iter().enumerate() {
                let stat = &mut n.stats[role][index as usize];
                stat.visits += 1;
                stat.total += rewards.get(role).copied().unwrap_or(0.0);
            }
        }
        true
    }
}

impl<G: Game> Player<G> for MctsPlayer {
    fn choose(&mut self, game: &G, state: &G::State, role: usize, deadline: Instant) -> Option<G::Move> {
        self.last_iterations = 0;
        let mut moves = Vec::new();
        game.legal_moves(state, role, &mut moves);
        if moves.len() <= 1 {
            return moves.pop();
        }
        let mut nodes = vec![new_node(game, state.clone())];
        if nodes[0].end.is_some() {
            // Another role has no legal move: nothing to search, any legal move will do.
            return Some(moves.swap_remove(self.rng.below(moves.len())));
        }
        while Instant::now() < deadline && self.iterate(game, &mut nodes, deadline) {
            self.last_iterations += 1;
        }
        let root = &nodes[0];
        let best = best_index(&root.stats[role], &mut self.rng, |a, b| {
            let mean = |s: &Stat| if s.visits == 0 { 0.0 } else { s.total / f64::from(s.visits) };
            a.visits.cmp(&b.visits).then(mean(a).total_cmp(&mean(b)))
        });
        let best = best.map(|i| root.moves[role][i].clone());
        dispose_of(nodes);
        best
    }

    fn work(&self) -> String {
        format!("{} iterations", self.last_iterations)
    }
}

/// Frees a search tree on another thread, so that the reply does not wait for it (a tree of
/// a quarter of a million nodes takes tens of milliseconds to free).
fn dispose_of<T: Send + 'static>(tree: T) {
    let kept = std::thread::Builder::new().name("tree-free".to_string()).spawn(move || drop(tree));
    // Without a thread to spare the tree is freed here, late rather than never.
    drop(kept);
}

#[cfg(test)]
mod tests {
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
    /// without children is terminal and scores `goals`.
    struct Table {
        roles: usize,
        states: Vec<Entry>,
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
        let game =
            Table { roles: 3, states: vec![inner(2, &[1, 2, 3, 4]), leaf(&tie), leaf(&tie), leaf(&tie), leaf(&tie)] };
        for budget in [Duration::ZERO, Duration::from_millis(2)] {
            let mut chosen = std::collections::HashSet::new();
            for seed in 0..40 {
                let mut player = MctsPlayer::new(seed);
                chosen.insert(player.choose(&game, &0, 2, Instant::now() + budget));
            }
            assert_eq!(chosen.len(), 4, "{budget:?}: {chosen:?}");
        }
    }
}
