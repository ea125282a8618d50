//! The lifted form over a grounded game's states and moves: a state is the bits of its base
//! facts and a move its index, as the table form has them, so that the rules with variables can
//! play a game that gdlc also grounded (see [`crate::program::TablesOrLifted`]). Each base
//! fact and move is a term of the game's store (loaded with them) and known by its id.

use super::game::{joined, LiftedGame};
use super::store::{TermId, TermRead};
use super::Eval;
use crate::rng::Rng;

/// A [`LiftedGame`] read and written through bits of base facts and move indices.
#[derive(Debug)]
pub struct OnBits {
    game: &'static LiftedGame,
    /// The term of every base fact in the game's store, by its bit ([`NO_TERM`] for a bit no
    /// fact uses).
    facts: Vec<TermId>,
    /// The term of every move, by its index.
    moves: Vec<TermId>,
    /// For every term of the game's store, the bit of the base fact it is and the index of the
    /// move it is ([`NOT_ONE`] when it is none).
    bit_of: Vec<u32>,
    move_of: Vec<u32>,
    /// For every role, its moves as a bit set over their indices.
    role_has: Vec<Vec<u64>>,
    /// Every role's legal moves, sorted, when `legal` is a static relation: the same in every
    /// state, computed once when the game is loaded.
    fixed_legal: Option<Vec<Vec<u32>>>,
    /// For every bit, the relation its fact is loaded into and the fact's arguments there (`None`
    /// for a bit whose fact no rule reads, or that no fact uses), so that loading a state looks
    /// up neither; `None` when some rule reads `true` whole.
    loads: Option<Vec<Option<Load>>>,
    /// For every move, the relation of its function it is loaded into after its role, and its
    /// arguments there (`None` when no rule reads it so), so that adding a joint move looks up
    /// neither.
    move_loads: Vec<Option<Load>>,
}

/// Where a state's fact is loaded: a relation, and the fact's arguments there.
type Load = (usize, &'static [TermId]);

/// The goals of the last terminal state a random step found on a thread, computed in the
/// evaluation that found it: a playout asks them next, and would load the state again.
#[derive(Default)]
struct TerminalGoals {
    /// The [`OnBits::key`] of the game.
    game: usize,
    state: Vec<u64>,
    /// Each role's largest goal value, as [`OnBits::goals`] gives them.
    goals: Vec<Option<u32>>,
}

impl TerminalGoals {
    /// Fills `out` with the goals kept, when they are `game`'s in `state`: whether they were.
    fn answer(&self, game: usize, state: &[u64], out: &mut [Option<u32>]) -> bool {
        let kept = self.game == game && self.state == state && self.goals.len() == out.len();
        if kept {
            out.copy_from_slice(&self.goals);
        }
        kept
    }
}

thread_local! {
    static TERMINAL_GOALS: std::cell::RefCell<TerminalGoals> = std::cell::RefCell::default();
}

/// The indices of the bits set in `words`, in increasing order.
fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                w * 64 + bit
            })
        })
    })
}

/// The term of a bit that no base fact uses.
const NO_TERM: TermId = TermId::MAX;

/// What [`OnBits::bit_of`] and [`OnBits::move_of`] hold for a term that is no base fact or no
/// move.
const NOT_ONE: u32 = u32::MAX;

/// What a lifted evaluation found that the table form's bits and move indices cannot say: a next
/// fact that is no base fact, or a legal move that is not among the role's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmapped;

impl OnBits {
    /// The lifted `game` over the table form's base facts `base` (by bit, `""` for a bit no
    /// fact uses), its moves `moves` (by index) and each role's moves `role_moves`, all in
    /// canonical KIF; `None` when a fact or move is not a term of the game's store (load it with
    /// [`LiftedGame::load_with_terms`] given them).
    pub fn new(game: &'static LiftedGame, base: &[&str], moves: &[&str], role_moves: &[&[u32]]) -> Option<OnBits> {
        let id = |text: &str| -> Option<TermId> { game.term_id(&game.symbols().encode_kif(text)?) };
        let facts = base
            .iter()
            .map(|&text| if text.is_empty() { Some(NO_TERM) } else { id(text) })
            .collect::<Option<Vec<_>>>()?;
        let moves = moves.iter().map(|&text| id(text)).collect::<Option<Vec<_>>>()?;
        let index_of = |ids: &[TermId]| {
            let mut of = vec![NOT_ONE; game.term_count()];
            for (k, &id) in ids.iter().enumerate().filter(|&(_, &id)| id != NO_TERM) {
                of[id as usize] = k as u32;
            }
            of
        };
        let (bit_of, move_of) = (index_of(&facts), index_of(&moves));
        let mut role_has = vec![vec![0u64; moves.len().div_ceil(64)]; role_moves.len()];
        for (set, indices) in role_has.iter_mut().zip(role_moves) {
            for &m in indices.iter() {
                *set.get_mut(m as usize / 64)? |= 1 << (m % 64);
            }
        }
        if role_moves.len() != game.program().roles.len() {
            return None;
        }
        let load = |&id: &TermId| (id != NO_TERM).then(|| game.state_split(id)).flatten();
        let loads = (!game.program().inputs.read_whole[0]).then(|| facts.iter().map(load).collect());
        let move_loads = moves.iter().map(|&id| game.move_split(id)).collect();
        let fixed_legal = None;
        let mut bits = OnBits { game, facts, moves, bit_of, move_of, role_has, fixed_legal, loads, move_loads };
        if game.program().outputs.legal.fixed {
            let eval = game.load_ids(std::iter::empty());
            let mut legal = Vec::new();
            let found = bits.legal_of(&eval, &mut legal);
            game.recycle(eval);
            bits.fixed_legal = found.ok().map(|()| legal);
        }
        Some(bits)
    }

    /// An evaluation with the facts of `state` loaded: each into the relation [`OnBits::loads`]
    /// gives, when it has them.
    fn load(&self, state: &[u64]) -> Eval<'static> {
        let Some(loads) = &self.loads else {
            let ids = set_bits(state).filter_map(|b| self.facts.get(b).copied()).filter(|&id| id != NO_TERM);
            return self.game.load_ids(ids);
        };
        let mut eval = self.game.empty_eval();
        // A word at a time, its bits' loads side by side: a state's words are few.
        for (word, loads) in state.iter().zip(loads.chunks(64)) {
            let mut rest = *word;
            while rest != 0 {
                if let Some(&Some((rel, args))) = loads.get(rest.trailing_zeros() as usize) {
                    eval.tables[rel].insert_new(args);
                }
                rest &= rest - 1;
            }
        }
        eval
    }

    /// Adds every role's move of `joint` to `eval`: `(does role move)` whole when a rule reads it
    /// so, and into the relation of the move's function after the role.
    fn add_joint(&self, eval: &mut Eval<'static>, joint: &[u32]) {
        let program = self.game.program();
        for (role, &m) in joint.iter().enumerate() {
            let (Some(&mv), Some(&role_term)) = (self.moves.get(m as usize), program.role_terms.get(role)) else {
                continue;
            };
            if program.inputs.read_whole[1] {
                eval.tables[program.inputs.does].insert_new(&[role_term, mv]);
            }
            if let Some(&Some((rel, args))) = self.move_loads.get(m as usize) {
                joined(&[role_term], args, |fact| eval.tables[rel].insert_new(fact));
            }
        }
    }

    /// The index that `of` gives term `id` of `eval`, unless it is not one.
    fn index(of: &[u32], id: TermId) -> Result<u32, Unmapped> {
        of.get(id as usize).copied().filter(|&k| k != NOT_ONE).ok_or(Unmapped)
    }

    /// Every role's legal moves in `eval`, sorted, into `legal`.
    fn legal_of(&self, eval: &Eval<'static>, legal: &mut Vec<Vec<u32>>) -> Result<(), Unmapped> {
        if let Some(fixed) = &self.fixed_legal {
            legal.clone_from(fixed);
            return Ok(());
        }
        legal.resize_with(self.role_has.len(), Vec::new);
        legal.iter_mut().for_each(Vec::clear);
        for (role, term) in self.game.by_role(eval, self.game.program().outputs.legal) {
            let m = OnBits::index(&self.move_of, term)?;
            if self.role_has[role][m as usize / 64] & 1 << (m % 64) == 0 {
                return Err(Unmapped);
            }
            legal[role].push(m);
        }
        // Facts come in the order they were derived, mostly that of the moves already, and a
        // bag of them (no rule reads `legal`) may list a move twice.
        for moves in legal.iter_mut().filter(|moves| !moves.windows(2).all(|pair| pair[0] < pair[1])) {
            moves.sort_unstable();
            moves.dedup();
        }
        Ok(())
    }

    /// Writes the next state of `eval` into `out` (a fact listed twice sets its bit twice).
    fn next_of(&self, eval: &Eval<'static>, out: &mut [u64]) -> Result<(), Unmapped> {
        out.iter_mut().for_each(|w| *w = 0);
        let next = eval.output(self.game.program().outputs.next);
        // `next` has one argument: its words are its facts' terms.
        debug_assert!(next.is_empty() || next.words().len() == next.len(), "next of another width");
        for &term in next.words() {
            let bit = OnBits::index(&self.bit_of, term)?;
            let word = out.get_mut(bit as usize / 64).ok_or(Unmapped)?;
            *word |= 1 << (bit % 64);
        }
        Ok(())
    }

    /// Every role's legal moves in `state`, each role's in increasing order.
    pub fn legal(&self, state: &[u64], legal: &mut Vec<Vec<u32>>) -> Result<(), Unmapped> {
        let mut eval = self.load(state);
        self.game.plans().legal.run(&mut eval);
        let answer = self.legal_of(&eval, legal);
        self.game.recycle(eval);
        answer
    }

    /// Writes the state after `joint` (a move index per role) into `out`.
    pub fn next(&self, state: &[u64], joint: &[u32], out: &mut [u64]) -> Result<(), Unmapped> {
        let mut eval = self.load(state);
        self.add_joint(&mut eval, joint);
        self.game.plans().next.run(&mut eval);
        let answer = self.next_of(&eval, out);
        self.game.recycle(eval);
        answer
    }

    /// Whether `state` is terminal.
    pub fn terminal(&self, state: &[u64]) -> bool {
        let program = self.game.program();
        let mut eval = self.load(state);
        self.game.plans().terminal.run(&mut eval);
        let terminal = !eval.output(program.outputs.terminal).is_empty();
        self.game.recycle(eval);
        terminal
    }

    /// Fills `out[r]` with role `r`'s largest goal value in `state`, `None` when it has none.
    pub fn goals(&self, state: &[u64], out: &mut [Option<u32>]) {
        if TERMINAL_GOALS.with_borrow(|kept| kept.answer(self.key(), state, out)) {
            return;
        }
        let mut eval = self.load(state);
        self.game.plans().goal.run(&mut eval);
        self.goals_of(&eval, out);
        self.game.recycle(eval);
    }

    /// Fills `out[r]` with role `r`'s largest goal value in `eval`, whose goals are computed.
    fn goals_of(&self, eval: &Eval<'static>, out: &mut [Option<u32>]) {
        out.iter_mut().for_each(|goal| *goal = None);
        for (role, term) in self.game.by_role(eval, self.game.program().outputs.goal) {
            let value = self.game.symbols().natural(eval.store.node(term));
            if let Some(goal) = out.get_mut(role) {
                *goal = (*goal).max(value);
            }
        }
    }

    /// What tells this game's goals kept on a thread from another game's: the address of its
    /// program, static data that generated code writes.
    fn key(&self) -> usize {
        std::ptr::from_ref(self.game.program()) as usize
    }

    /// Computes the goals of `state` in `eval`, which found it terminal in part 0 of a random
    /// step, and keeps them for the query that a playout makes next.
    fn keep_terminal_goals(&self, state: &[u64], eval: &mut Eval<'static>) {
        self.game.plans().run_goal_after_terminal(eval);
        TERMINAL_GOALS.with_borrow_mut(|kept| {
            kept.game = self.key();
            kept.state.clear();
            kept.state.extend_from_slice(state);
            kept.goals.resize(self.role_has.len(), None);
            self.goals_of(eval, &mut kept.goals);
        });
    }

    /// One step of a uniformly random playout from `state`, drawn as [`crate::Game::random_step`]
    /// draws it (each role's legal moves in increasing order): `Ok(false)` when `state` is
    /// terminal or some role has no legal move, else `Ok(true)` with the next state in `out`.
    /// When one engine answers `terminal`, `legal` and `next`, the state is loaded once.
    pub fn random_step(
        &self,
        state: &[u64],
        rng: &mut Rng,
        legal: &mut Vec<Vec<u32>>,
        joint: &mut Vec<u32>,
        out: &mut [u64],
    ) -> Result<bool, Unmapped> {
        let program = self.game.program();
        if !program.queries.shared_step {
            if self.terminal(state) {
                return Ok(false);
            }
            self.legal(state, legal)?;
            if crate::draw_joint(legal, rng, joint).is_none() {
                return Ok(false);
            }
            return self.next(state, joint, out).map(|()| true);
        }
        let mut eval = self.load(state);
        let plans = self.game.plans();
        plans.run_step(0, &mut eval);
        let answer = if !eval.output(program.outputs.terminal).is_empty() {
            self.keep_terminal_goals(state, &mut eval);
            Ok(false)
        } else {
            plans.run_step(1, &mut eval);
            // Static legal moves are drawn from where they are kept, not copied first.
            let drawn = match &self.fixed_legal {
                Some(fixed) => Ok(crate::draw_joint(fixed, rng, joint)),
                None => self.legal_of(&eval, legal).map(|()| crate::draw_joint(legal, rng, joint)),
            };
            drawn.and_then(|drawn| {
                if drawn.is_none() {
                    return Ok(false);
                }
                self.add_joint(&mut eval, joint);
                plans.run_step(2, &mut eval);
                self.next_of(&eval, out).map(|()| true)
            })
        };
        self.game.recycle(eval);
        answer
    }
}
