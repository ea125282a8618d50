//! A game of the lifted form loaded from its [`Program`], behind the [`Game`] interface: every
//! query loads the state and the moves into tables, runs the query's components, and reads the
//! facts of the relation that answers it.

use super::demand::{Plan, Plans};
use super::hash::FastMap;
use super::state::{Move, State};
use super::store::{with_words, FlatCache, Node, Symbols, TermId, TermRead, Terms};
use super::{Eval, Output, Outputs, Program, Table};
use crate::Game;
use std::cell::RefCell;

/// A game of the lifted form, loaded: its symbols, its terms and its static relations.
#[derive(Debug)]
pub struct LiftedGame {
    program: &'static Program,
    symbols: Symbols,
    terms: Terms,
    fixed: Vec<Table>,
    /// For `true`, then `does`: the relation of each function, by its symbol and arity.
    splits: [FastMap<(u32, usize), usize>; 2],
    /// For `true`, then `does`: the relation of the function of every term of `terms`, or
    /// [`NO_SPLIT`], so that loading a state or a move of known terms looks up no symbol.
    split_of: [Box<[u32]>; 2],
    initial: State,
    /// The flat encodings of the short terms of `terms`.
    flats: FlatCache,
    /// The components of each query, with what the pass that skips those not needed reads.
    plans: Plans,
    /// The relations whose tables are [`Table::bag`]s: `next`, which no rule reads, and `legal`
    /// and `goal` where no rule reads them. The queries that list their facts drop repeats.
    bags: Box<[usize]>,
}

/// Why a [`Program`] does not load: its data contradicts itself (gdlc wrote something else than
/// this runtime reads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadProgram(&'static str);

impl std::fmt::Display for BadProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the lifted program does not load: {}", self.0)
    }
}

impl std::error::Error for BadProgram {}

impl LiftedGame {
    /// Loads `program`: its terms interned, its static relations put in tables with their
    /// indexes.
    pub fn load(program: &'static Program) -> Result<LiftedGame, BadProgram> {
        LiftedGame::load_with_terms(program, &[])
    }

    /// [`LiftedGame::load`], with the ground terms `extra` (in KIF; those naming a symbol the
    /// program does not have are left out) in the game's store, so that they have ids of their
    /// own: the table form's base facts and moves, for [`super::OnBits`].
    pub fn load_with_terms(program: &'static Program, extra: &[&str]) -> Result<LiftedGame, BadProgram> {
        let words = |text| crate::program::text_to_words(text).map_err(|_| BadProgram("a table is not packed words"));
        let mut terms =
            Terms::from_flat(&words(program.terms)?).ok_or(BadProgram("its terms are not a list of terms"))?;
        let symbols = Symbols::from_names(program.names);
        for text in extra {
            terms.intern_kif(&symbols, text);
        }
        terms.freeze();
        let known = |id: TermId| (id as usize) < terms.len();
        let mut fixed = vec![Table::default(); program.relations];
        let words = words(program.fixed)?;
        let mut rest = words.as_slice();
        while let [relation, width, count, tail @ ..] = rest {
            let (width, count) = (*width as usize, *count as usize);
            let size = width.checked_mul(count).filter(|&n| n <= tail.len());
            let (Some(size), Some(table)) = (size, fixed.get_mut(*relation as usize)) else {
                return Err(BadProgram("a static table is cut short or of no relation"));
            };
            if !tail[..size].iter().all(|&t| known(t)) {
                return Err(BadProgram("a static fact holds an unknown term"));
            }
            for k in 0..count {
                table.insert(&tail[k * width..(k + 1) * width]);
            }
            rest = &tail[size..];
        }
        for &(rel, positions) in program.fixed_indexes {
            let table = fixed.get_mut(rel).ok_or(BadProgram("an index of no relation"))?;
            if !table.is_empty() && positions.iter().any(|&p| p >= table.fact(0).len()) {
                return Err(BadProgram("an index on an argument a static relation does not have"));
            }
            table.ensure_index(positions);
        }
        fixed.iter_mut().for_each(Table::freeze);
        if !program.role_terms.iter().chain(program.initial).all(|&t| known(t)) {
            return Err(BadProgram("a role or initial fact is not a known term"));
        }
        let flats = FlatCache::new(&terms);
        let initial = State::of_terms(program.initial.iter().copied(), &terms, &flats);
        let splits: [FastMap<(u32, usize), usize>; 2] =
            program.inputs.splits.map(|s| s.iter().map(|&(sym, arity, rel)| ((sym, arity), rel)).collect());
        let split_of = [0, 1].map(|k| split_of_terms(&terms, &splits[k]));
        let plans = Plans::new(program);
        let bags = bags(program);
        Ok(LiftedGame { program, symbols, terms, fixed, splits, split_of, initial, flats, plans, bags })
    }

    /// The tables of an evaluation, empty: those this thread used last for this game, cleared
    /// (their memory kept), or new ones.
    fn fresh_tables(&self) -> Vec<Table> {
        let key = std::ptr::from_ref(self.program) as usize;
        match POOL.with(|pool| pool.borrow_mut().take()) {
            Some((owner, mut tables)) if owner == key => {
                tables.iter_mut().for_each(Table::clear);
                tables
            }
            _ => self.new_tables(),
        }
    }

    /// The tables of an evaluation, new: a [`Table::bag`] for each relation of
    /// [`LiftedGame::bags`], an ordinary table for every other.
    fn new_tables(&self) -> Vec<Table> {
        let mut tables = vec![Table::default(); self.program.relations];
        for &relation in &self.bags {
            if let Some(table) = tables.get_mut(relation) {
                *table = Table::bag();
            }
        }
        tables
    }

    /// Keeps an evaluation's tables for this thread's next evaluation.
    pub(super) fn recycle(&self, eval: Eval<'_>) {
        let key = std::ptr::from_ref(self.program) as usize;
        POOL.with(|pool| *pool.borrow_mut() = Some((key, eval.tables)));
    }

    /// An evaluation with the facts of `state` loaded, and `(does r m)` for each role `r` that
    /// plays a move `moves[r]`.
    fn load_state(&self, state: &State, moves: &[Move]) -> Eval<'_> {
        let mut eval = self.load_facts(state.facts());
        for (role, mv) in moves.iter().enumerate() {
            self.add_move(&mut eval, role, &mv.0);
        }
        eval
    }

    /// An evaluation with `facts` (flat-encoded) loaded as the state, and no move.
    fn load_facts<'f>(&self, facts: impl Iterator<Item = &'f [u32]>) -> Eval<'_> {
        let mut eval = self.empty_eval();
        for fact in facts {
            let id = self.flats.decode(&mut eval.store, fact);
            self.add_input(&mut eval, 0, &[], id);
        }
        eval
    }

    /// An evaluation with the facts of the game's store `ids` loaded as the state, and no move.
    pub(super) fn load_ids(&self, ids: impl Iterator<Item = TermId>) -> Eval<'_> {
        let mut eval = self.empty_eval();
        for id in ids {
            self.add_input(&mut eval, 0, &[], id);
        }
        eval
    }

    /// An evaluation with no fact of the state or move loaded.
    pub(super) fn empty_eval(&self) -> Eval<'_> {
        Eval { store: super::store::Overlay::new(&self.terms), tables: self.fresh_tables(), fixed: &self.fixed }
    }

    /// Adds `(does role mv)` to `eval`, the move flat-encoded.
    fn add_move(&self, eval: &mut Eval<'_>, role: usize, mv: &[u32]) {
        let id = self.flats.decode(&mut eval.store, mv);
        self.add_move_id(eval, role, id);
    }

    /// Adds `(does role mv)` to `eval`, the move a term of the game's store or of `eval`.
    fn add_move_id(&self, eval: &mut Eval<'_>, role: usize, mv: TermId) {
        self.add_input(eval, 1, &[self.program.role_terms[role]], mv);
    }

    /// The id of the flat-encoded term `flat` in the game's store, if it has it.
    pub(super) fn term_id(&self, flat: &[u32]) -> Option<TermId> {
        self.terms.find_flat(flat).filter(|(_, rest)| rest.is_empty()).map(|(id, _)| id)
    }

    /// The number of terms of the game's store: their ids are below it.
    pub(super) fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// The game's program.
    pub(super) fn program(&self) -> &'static Program {
        self.program
    }

    /// The plans of the game's queries.
    pub(super) fn plans(&self) -> &Plans {
        &self.plans
    }

    /// The game's symbols.
    pub(super) fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// Runs `plan` in `state` with `moves` and reads its answer with `read`.
    fn evaluate<R>(&self, plan: &Plan, state: &State, moves: &[Move], read: impl FnOnce(&Eval<'_>) -> R) -> R {
        let mut eval = self.load_state(state, moves);
        plan.run(&mut eval);
        let answer = read(&eval);
        self.recycle(eval);
        answer
    }

    /// One step of a uniformly random playout, as [`Game::random_step`] draws it: when one
    /// engine answers `terminal`, `legal` and `next`, the state is loaded once and each
    /// component runs once for the three.
    pub fn step(
        &self,
        state: &State,
        rng: &mut crate::rng::Rng,
        legal: &mut Vec<Vec<Move>>,
        joint: &mut Vec<Move>,
    ) -> Option<State> {
        let queries = &self.program.queries;
        if !queries.shared_step {
            if self.is_terminal(state) {
                return None;
            }
            self.all_legal_moves(state, legal);
            crate::draw_joint(legal, rng, joint)?;
            return Some(self.next_state(state, joint));
        }
        let mut eval = self.load_state(state, &[]);
        let plans = &self.plans;
        plans.run_step(0, &mut eval);
        if !eval.output(self.program.outputs.terminal).is_empty() {
            self.recycle(eval);
            return None;
        }
        plans.run_step(1, &mut eval);
        self.legal_of(&eval, legal);
        if crate::draw_joint(legal, rng, joint).is_none() {
            self.recycle(eval);
            return None;
        }
        for (role, mv) in joint.iter().enumerate() {
            self.add_move(&mut eval, role, &mv.0);
        }
        plans.run_step(2, &mut eval);
        let next = self.next_of(&eval);
        self.recycle(eval);
        Some(next)
    }

    /// Every role's legal moves in `eval`, into `out`.
    fn legal_of(&self, eval: &Eval<'_>, out: &mut Vec<Vec<Move>>) {
        out.resize_with(self.program.roles.len(), Vec::new);
        out.iter_mut().for_each(Vec::clear);
        for (role, term) in self.by_role(eval, self.program.outputs.legal) {
            out[role].push(Move(self.flats.encoded(&eval.store, term)));
        }
        if self.bags.contains(&self.program.outputs.legal.relation) {
            for moves in out.iter_mut() {
                moves.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                moves.dedup();
            }
        }
    }

    /// The next state in `eval` (`State::of_terms` drops a fact listed twice).
    fn next_of(&self, eval: &Eval<'_>) -> State {
        let facts = eval.output(self.program.outputs.next).facts().map(|fact| fact[0]);
        State::of_terms(facts, &eval.store, &self.flats)
    }

    /// Adds `(true last)` (`k` 0) or `(does outer last)` (`k` 1) to its relation and to the
    /// relation of its function. The facts of a state are distinct, and so are those of a
    /// joint move (one a role), so that none is compared with those loaded before it.
    fn add_input(&self, eval: &mut Eval<'_>, k: usize, outer: &[TermId], last: TermId) {
        let inputs = &self.program.inputs;
        if inputs.read_whole[k] {
            let whole = [inputs.true_, inputs.does][k];
            joined(outer, &[last], |fact| eval.tables[whole].insert_new(fact));
        }
        let node: &Node = eval.store.node(last);
        let rel = match self.split_of[k].get(last as usize) {
            Some(&NO_SPLIT) => return,
            Some(&rel) => rel as usize,
            None => match self.splits[k].get(&(node.sym, node.args.len())) {
                Some(&rel) => rel,
                None => return,
            },
        };
        joined(outer, &node.args, |fact| eval.tables[rel].insert_new(fact));
    }

    /// The relation of its function that the state's fact `id`, a term of the game's store, is
    /// loaded into, with its arguments there; `None` when no rule reads it through its function.
    pub(super) fn state_split(&self, id: TermId) -> Option<(usize, &[TermId])> {
        self.split(0, id)
    }

    /// The relation of its function that the move `id`, a term of the game's store, is loaded
    /// into after its role, with its arguments there; `None` when no rule reads it through its
    /// function.
    pub(super) fn move_split(&self, id: TermId) -> Option<(usize, &[TermId])> {
        self.split(1, id)
    }

    /// [`LiftedGame::state_split`] (`k` 0) or [`LiftedGame::move_split`] (`k` 1).
    fn split(&self, k: usize, id: TermId) -> Option<(usize, &[TermId])> {
        let rel = *self.split_of[k].get(id as usize).filter(|&&rel| rel != NO_SPLIT)?;
        Some((rel as usize, &*self.terms.node(id).args))
    }

    /// For each fact of `output` whose first argument is a role's term, that role and the second
    /// argument.
    pub(super) fn by_role<'e>(
        &'e self,
        eval: &'e Eval<'_>,
        output: Output,
    ) -> impl Iterator<Item = (usize, TermId)> + 'e {
        eval.output(output).facts().filter_map(|fact| {
            let role = self.program.role_terms.iter().position(|&t| t == fact[0])?;
            Some((role, fact[1]))
        })
    }

    fn goal_values_all(&self, state: &State) -> Vec<Vec<u32>> {
        let mut goals = vec![Vec::new(); self.program.roles.len()];
        self.evaluate(&self.plans.goal, state, &[], |eval| {
            for (role, term) in self.by_role(eval, self.program.outputs.goal) {
                goals[role].extend(self.symbols.natural(eval.store.node(term)));
            }
        });
        for values in &mut goals {
            values.sort_unstable();
            values.dedup();
        }
        goals
    }
}

/// The relations of `program` whose tables are bags (see [`LiftedGame::bags`]): the outputs
/// computed in the evaluation (not static) that no rule reads, which `next` never is.
fn bags(program: &Program) -> Box<[usize]> {
    let Outputs { next, legal, goal, .. } = program.outputs;
    let unread = |output: &Output| !output.fixed && !program.queries.read_by_rules(output.relation);
    [next, legal, goal].iter().filter(|output| unread(output)).map(|output| output.relation).collect()
}

/// What [`LiftedGame::split_of`] holds for a term whose function no rule reads by its
/// arguments.
const NO_SPLIT: u32 = u32::MAX;

/// The relation in `splits` of the function of every term of `terms`, or [`NO_SPLIT`].
fn split_of_terms(terms: &Terms, splits: &FastMap<(u32, usize), usize>) -> Box<[u32]> {
    let relation_of = |id: usize| {
        let node = terms.node(id as TermId);
        splits.get(&(node.sym, node.args.len())).map_or(NO_SPLIT, |&rel| rel as u32)
    };
    match splits.is_empty() {
        true => Box::default(),
        false => (0..terms.len()).map(relation_of).collect(),
    }
}

/// Calls `f` with `outer` followed by `args`: `args` itself when `outer` is empty (a fact of
/// the state), else a copy.
#[inline]
pub(super) fn joined<R>(outer: &[TermId], args: &[TermId], f: impl FnOnce(&[TermId]) -> R) -> R {
    if outer.is_empty() {
        return f(args);
    }
    let fill = |fact: &mut [TermId]| {
        let (head, tail) = fact.split_at_mut(outer.len());
        head.copy_from_slice(outer);
        tail.copy_from_slice(args);
    };
    with_words(outer.len() + args.len(), fill, f)
}

thread_local! {
    /// This thread's tables of its last evaluation, with the address of the program they were
    /// for: clearing them costs less than making new ones for every query.
    static POOL: RefCell<Option<(usize, Vec<Table>)>> = const { RefCell::new(None) };
}

impl Game for LiftedGame {
    type State = State;
    type Move = Move;

    fn num_roles(&self) -> usize {
        self.program.roles.len()
    }

    fn role_name(&self, role: usize) -> &str {
        self.program.roles[role]
    }

    fn initial_state(&self) -> State {
        self.initial.clone()
    }

    fn legal_moves(&self, state: &State, role: usize, out: &mut Vec<Move>) {
        let mut all = Vec::new();
        self.all_legal_moves(state, &mut all);
        *out = std::mem::take(&mut all[role]);
    }

    fn all_legal_moves(&self, state: &State, out: &mut Vec<Vec<Move>>) {
        self.evaluate(&self.plans.legal, state, &[], |eval| self.legal_of(eval, out));
    }

    fn next_state(&self, state: &State, joint: &[Move]) -> State {
        self.evaluate(&self.plans.next, state, joint, |eval| self.next_of(eval))
    }

    fn is_terminal(&self, state: &State) -> bool {
        let terminal = self.program.outputs.terminal;
        self.evaluate(&self.plans.terminal, state, &[], |eval| !eval.output(terminal).is_empty())
    }

    fn random_step(
        &self,
        state: &State,
        rng: &mut crate::rng::Rng,
        scratch: &mut crate::Playout<Self>,
    ) -> Option<State> {
        let (legal, joint) = scratch.move_buffers();
        self.step(state, rng, legal, joint)
    }

    fn goal(&self, state: &State, role: usize) -> Option<u32> {
        self.goal_values_all(state)[role].last().copied()
    }

    fn goals_into(&self, state: &State, out: &mut [Option<u32>]) {
        for (goal, values) in out.iter_mut().zip(self.goal_values_all(state)) {
            *goal = values.last().copied();
        }
    }

    fn goal_values(&self, state: &State, role: usize, out: &mut Vec<u32>) -> bool {
        *out = std::mem::take(&mut self.goal_values_all(state)[role]);
        true
    }

    fn state_facts(&self, state: &State) -> Vec<String> {
        let mut facts: Vec<String> = state.facts().map(|f| self.symbols.kif(f)).collect();
        facts.sort();
        facts
    }

    fn move_string(&self, mv: &Move) -> String {
        self.symbols.kif(&mv.0)
    }

    /// The move `text` spells, each symbol found by its spelling or else in any letter case
    /// when only one matches, as the interpreter reads moves.
    fn parse_move(&self, _role: usize, text: &str) -> Option<Move> {
        Some(Move(self.symbols.encode_kif(text)?.into_boxed_slice()))
    }

    fn is_gdl_ii(&self) -> bool {
        self.program.gdl_ii
    }

    fn random_role(&self) -> Option<usize> {
        self.program.random_role
    }

    fn percepts(&self, state: &State, joint: &[Move], role: usize, out: &mut Vec<String>) {
        let mut all = Vec::new();
        self.all_percepts(state, joint, &mut all);
        *out = std::mem::take(&mut all[role]);
    }

    fn all_percepts(&self, state: &State, joint: &[Move], out: &mut Vec<Vec<String>>) {
        out.resize_with(self.num_roles(), Vec::new);
        out.iter_mut().for_each(Vec::clear);
        if !self.program.gdl_ii {
            return;
        }
        self.evaluate(&self.plans.sees, state, joint, |eval| {
            for (role, term) in self.by_role(eval, self.program.outputs.sees) {
                out[role].push(self.symbols.kif(&self.flats.encoded(&eval.store, term)));
            }
        });
        for percepts in out.iter_mut() {
            percepts.sort();
            percepts.dedup();
        }
    }
}

/// Implements [`Game`] for a unit struct `$game` by delegating every method to the
/// [`LiftedGame`] that `$loaded()` returns: how a generated module of the lifted form makes
/// its `Game` a value that players and drivers take, as every other form's is.
#[macro_export]
macro_rules! delegate_lifted_game {
    ($game:ty, $loaded:path) => {
        impl $crate::Game for $game {
            type State = $crate::lifted::State;
            type Move = $crate::lifted::Move;

            fn num_roles(&self) -> usize {
                $crate::Game::num_roles($loaded())
            }
            fn role_name(&self, role: usize) -> &str {
                $crate::Game::role_name($loaded(), role)
            }
            fn initial_state(&self) -> Self::State {
                $crate::Game::initial_state($loaded())
            }
            fn legal_moves(&self, state: &Self::State, role: usize, out: &mut Vec<Self::Move>) {
                $crate::Game::legal_moves($loaded(), state, role, out)
            }
            fn all_legal_moves(&self, state: &Self::State, out: &mut Vec<Vec<Self::Move>>) {
                $crate::Game::all_legal_moves($loaded(), state, out)
            }
            fn next_state(&self, state: &Self::State, joint: &[Self::Move]) -> Self::State {
                $crate::Game::next_state($loaded(), state, joint)
            }
            fn is_terminal(&self, state: &Self::State) -> bool {
                $crate::Game::is_terminal($loaded(), state)
            }
            fn goal(&self, state: &Self::State, role: usize) -> Option<u32> {
                $crate::Game::goal($loaded(), state, role)
            }
            fn goals_into(&self, state: &Self::State, out: &mut [Option<u32>]) {
                $crate::Game::goals_into($loaded(), state, out)
            }
            fn goal_values(&self, state: &Self::State, role: usize, out: &mut Vec<u32>) -> bool {
                $crate::Game::goal_values($loaded(), state, role, out)
            }
            fn state_facts(&self, state: &Self::State) -> Vec<String> {
                $crate::Game::state_facts($loaded(), state)
            }
            fn move_string(&self, mv: &Self::Move) -> String {
                $crate::Game::move_string($loaded(), mv)
            }
            fn parse_move(&self, role: usize, text: &str) -> Option<Self::Move> {
                $crate::Game::parse_move($loaded(), role, text)
            }
            fn is_gdl_ii(&self) -> bool {
                $crate::Game::is_gdl_ii($loaded())
            }
            fn random_role(&self) -> Option<usize> {
                $crate::Game::random_role($loaded())
            }
            fn percepts(&self, state: &Self::State, joint: &[Self::Move], role: usize, out: &mut Vec<String>) {
                $crate::Game::percepts($loaded(), state, joint, role, out)
            }
            fn random_step(
                &self,
                state: &Self::State,
                rng: &mut $crate::rng::Rng,
                scratch: &mut $crate::Playout<Self>,
            ) -> Option<Self::State> {
                let (legal, joint) = scratch.move_buffers();
                $loaded().step(state, rng, legal, joint)
            }
            fn all_percepts(&self, state: &Self::State, joint: &[Self::Move], out: &mut Vec<Vec<String>>) {
                $crate::Game::all_percepts($loaded(), state, joint, out)
            }
        }
    };
}
