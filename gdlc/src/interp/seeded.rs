//! A random match with a fixed seed, played by asking a callback each query it needs: the
//! match in whose first states loading compares the engines ([`super::choose`]) and observes
//! the sizes of the relations ([`super::observe`]). The same seed gives the same match at
//! every load, so what loading decides from it does not vary between runs.

use super::{Interpreter, Move, Query, State};
use crate::datalog::eval::{Budget, Eval};
use crate::datalog::store::Overlay;
use gdl_runtime::rng::Rng;

/// What a seeded match reads of one query's answer.
pub(super) enum Answer {
    /// Whether the state is terminal.
    Terminal(bool),
    /// The legal moves of each role.
    Legal(Vec<Vec<Move>>),
    /// The next state.
    Next(State),
    /// A query whose answer the match does not read (goals, percepts): only that it came.
    Answered,
}

/// The states of a seeded match, each with the joint move played in it (none in a terminal
/// state, or one with a role without moves).
pub(super) type Played = Vec<(State, Option<Vec<Move>>)>;

impl Interpreter {
    /// What a seeded match reads of `eval`, the answer to `query`.
    pub(super) fn match_answer_of<B: Budget>(&self, query: Query, eval: &Eval<'_, Overlay<'_>, B>) -> Answer {
        match query {
            Query::Terminal => Answer::Terminal(self.terminal_of(eval)),
            Query::Legal => Answer::Legal(self.legal_of(eval)),
            Query::Next => Answer::Next(State(self.next_of(eval).into())),
            Query::Goal | Query::Sees => Answer::Answered,
        }
    }

    /// Plays at most `states` states of the random match of `seed` from the initial state,
    /// asking `ask` each query (terminal, goals, legal moves, then for the joint move chosen
    /// the percepts of a GDL-II game and the next state): the states played. The match ends
    /// early when `ask` gives no answer, or an answer of another query's kind.
    pub(super) fn play_seeded<E>(
        &self,
        seed: u64,
        states: usize,
        mut ask: impl FnMut(Query, &State, &[Option<&Move>]) -> Result<Option<Answer>, E>,
    ) -> Result<Played, E> {
        let mut rng = Rng::seeded(seed);
        let mut played = Vec::new();
        let mut state = self.initial.clone();
        for _ in 0..states {
            let Some(Answer::Terminal(terminal)) = ask(Query::Terminal, &state, &[])? else { break };
            if ask(Query::Goal, &state, &[])?.is_none() {
                break;
            }
            let Some(Answer::Legal(legal)) = ask(Query::Legal, &state, &[])? else { break };
            if terminal || legal.iter().any(Vec::is_empty) {
                played.push((state, None));
                break;
            }
            let joint: Vec<Move> = legal.iter().map(|moves| moves[rng.below(moves.len())].clone()).collect();
            let moves: Vec<Option<&Move>> = joint.iter().map(Some).collect();
            if self.gdl_ii && ask(Query::Sees, &state, &moves)?.is_none() {
                break;
            }
            let Some(Answer::Next(next)) = ask(Query::Next, &state, &moves)? else { break };
            played.push((state, Some(joint)));
            state = next;
        }
        Ok(played)
    }
}
