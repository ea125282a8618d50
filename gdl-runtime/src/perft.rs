//! Perft: the number of joint-move sequences from the initial state, depth by depth, the count
//! that game engines (and the RBG and Regular Games systems) report to check and time their
//! move generation. A joint move is one legal move per role, so in a turn-taking game whose
//! waiting roles play `noop` the counts are those of the game's move tree.
//!
//! A sequence stops at a terminal state: it is counted at its depth as a complete game and not
//! extended. It stops too at a state where some role has no legal move (a game that breaks
//! the specification's playability), counted at its depth but neither extended nor complete.

use crate::Game;
use std::fmt;

/// The counts at one depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level {
    /// The joint-move sequences of this length whose earlier states are not terminal: the
    /// nodes of the game tree at this depth.
    pub paths: u64,
    /// Those of them that end in a terminal state: the complete games of this length.
    pub terminal: u64,
}

/// The counts at every depth from 0 (the initial state) to the depth asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Perft {
    /// The counts at depths `0..=depth`.
    pub levels: Vec<Level>,
}

impl Perft {
    /// The nodes of the game tree down to the depth asked, the root included.
    pub fn nodes(&self) -> u64 {
        self.levels.iter().map(|l| l.paths).sum()
    }

    /// The complete games no longer than the depth asked.
    pub fn complete_games(&self) -> u64 {
        self.levels.iter().map(|l| l.terminal).sum()
    }
}

impl fmt::Display for Perft {
    /// One line per depth (`depth 3: 504 paths, 0 terminal`), then the totals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (depth, level) in self.levels.iter().enumerate() {
            writeln!(f, "depth {depth}: {} paths, {} terminal", level.paths, level.terminal)?;
        }
        let deepest = self.levels.len().saturating_sub(1);
        writeln!(
            f,
            "total: {} nodes (paths of length 0 to {deepest}), {} complete games (paths that end in a terminal state)",
            self.nodes(),
            self.complete_games()
        )
    }
}

/// Counts the joint-move sequences of `game` from its initial state down to `depth`.
///
/// ```
/// # use gdl_runtime::perft::perft;
/// # fn check<G: gdl_runtime::Game>(game: &G) {
/// let counts = perft(game, 2);
/// assert_eq!(counts.levels[0].paths, 1, "the initial state is the only path of length 0");
/// # }
/// ```
pub fn perft<G: Game>(game: &G, depth: usize) -> Perft {
    let mut walk = Walk { game, levels: vec![Level::default(); depth + 1], legal: Vec::new() };
    walk.visit(&game.initial_state(), 0);
    Perft { levels: walk.levels }
}

/// A depth-first walk over the tree, with a buffer of legal moves per depth.
struct Walk<'g, G: Game> {
    game: &'g G,
    levels: Vec<Level>,
    legal: Vec<Vec<Vec<G::Move>>>,
}

impl<G: Game> Walk<'_, G> {
    fn visit(&mut self, state: &G::State, depth: usize) {
        self.levels[depth].paths += 1;
        if self.game.is_terminal(state) {
            self.levels[depth].terminal += 1;
            return;
        }
        if depth + 1 == self.levels.len() {
            return;
        }
        if self.legal.len() <= depth {
            self.legal.resize_with(depth + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.legal[depth]);
        self.game.all_legal_moves(state, &mut moves);
        crate::joints::for_each_joint(&moves, |_, joint| {
            let next = self.game.next_state(state, joint);
            self.visit(&next, depth + 1);
            true
        });
        self.legal[depth] = moves;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-role game of counting: from 0, add 1 or 2; terminal at 3 or more. Paths of length
    /// 1: {1, 2}; length 2: {2, 3, 3, 4}, three of them terminal; length 3: from 2 (reached as
    /// 1+1) two more, both terminal.
    struct Count;

    impl Game for Count {
        type State = u32;
        type Move = u32;
        fn num_roles(&self) -> usize {
            1
        }
        fn role_name(&self, _: usize) -> &str {
            "counter"
        }
        fn initial_state(&self) -> u32 {
            0
        }
        fn legal_moves(&self, _: &u32, _: usize, out: &mut Vec<u32>) {
            out.clear();
            out.extend([1, 2]);
        }
        fn next_state(&self, state: &u32, joint: &[u32]) -> u32 {
            state + joint[0]
        }
        fn is_terminal(&self, state: &u32) -> bool {
            *state >= 3
        }
        fn goal(&self, _: &u32, _: usize) -> Option<u32> {
            Some(0)
        }
        fn state_facts(&self, state: &u32) -> Vec<String> {
            vec![format!("(count {state})")]
        }
        fn move_string(&self, m: &u32) -> String {
            format!("(add {m})")
        }
        fn parse_move(&self, _: usize, text: &str) -> Option<u32> {
            text.strip_prefix("(add ")?.strip_suffix(')')?.parse().ok()
        }
    }

    #[test]
    fn counts_paths_and_complete_games_per_depth() {
        let counts = perft(&Count, 4);
        let levels: Vec<(u64, u64)> = counts.levels.iter().map(|l| (l.paths, l.terminal)).collect();
        assert_eq!(levels, [(1, 0), (2, 0), (4, 3), (2, 2), (0, 0)]);
        assert_eq!((counts.nodes(), counts.complete_games()), (9, 5));
        assert!(counts.to_string().ends_with(
            "total: 9 nodes (paths of length 0 to 4), 5 complete games (paths that end in a terminal state)\n"
        ));
        assert_eq!(perft(&Count, 1).levels, [Level { paths: 1, terminal: 0 }, Level { paths: 2, terminal: 0 }]);
    }
}
