//! A game of the lifted form loaded from its [`Program`], behind the [`Game`] interface: every
//! query loads the state and the moves into tables, runs the query's components, and reads the
//! facts of the relation that answers it.

use super::hash::FastMap;
use super::store::{encode, write_flat, Node, Symbols, TermId, TermRead, Terms};
use super::{run, Component, Eval, Output, Program, Table};
use crate::{kif, Game};
use std::sync::Arc;

/// A game state: its facts, each a ground term in the flat prefix encoding (`sym, arity,
/// args...`), sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State(Arc<[Box<[u32]>]>);

/// A move: a ground term in the flat prefix encoding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move(Box<[u32]>);

/// A game of the lifted form, loaded: its symbols, its terms and its static relations.
#[derive(Debug)]
pub struct LiftedGame {
    program: &'static Program,
    symbols: Symbols,
    terms: Terms,
    fixed: Vec<Table>,
    /// For `true`, then `does`: the relation of each function, by its symbol and arity.
    splits: [FastMap<(u32, usize), usize>; 2],
    initial: State,
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
        let words = |text| crate::program::text_to_words(text).map_err(|_| BadProgram("a table is not packed words"));
        let terms = Terms::from_flat(&words(program.terms)?).ok_or(BadProgram("its terms are not a list of terms"))?;
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
                table.insert(tail[k * width..(k + 1) * width].into());
            }
            rest = &tail[size..];
        }
        for &(rel, positions) in program.fixed_indexes {
            fixed.get_mut(rel).ok_or(BadProgram("an index of no relation"))?.ensure_index(positions);
        }
        if !program.role_terms.iter().chain(program.initial).all(|&t| known(t)) {
            return Err(BadProgram("a role or initial fact is not a known term"));
        }
        let mut initial: Vec<Box<[u32]>> = program.initial.iter().map(|&id| flat(&terms, id)).collect();
        initial.sort();
        initial.dedup();
        let splits = program.inputs.splits.map(|s| s.iter().map(|&(sym, arity, rel)| ((sym, arity), rel)).collect());
        let symbols = Symbols::from_names(program.names);
        Ok(LiftedGame { program, symbols, terms, fixed, splits, initial: State(initial.into()) })
    }

    /// Evaluates the components of a query in `state`, with `(does r m)` for each role `r`
    /// that plays a move `moves[r]`.
    fn evaluate(&self, query: &[Component], state: &State, moves: &[Move]) -> Eval<'_> {
        let mut eval = Eval {
            store: super::store::Overlay::new(&self.terms),
            tables: vec![Table::default(); self.program.relations],
            fixed: &self.fixed,
        };
        for fact in state.0.iter() {
            let (id, _) = eval.store.decode(fact);
            self.add_input(&mut eval, 0, &[], id);
        }
        for (role, mv) in moves.iter().enumerate() {
            let (id, _) = eval.store.decode(&mv.0);
            self.add_input(&mut eval, 1, &[self.program.role_terms[role]], id);
        }
        for component in query {
            run(&mut eval, component);
        }
        eval
    }

    /// Adds `(true last)` (`k` 0) or `(does outer last)` (`k` 1) to its relation and to the
    /// relation of its function.
    fn add_input(&self, eval: &mut Eval<'_>, k: usize, outer: &[TermId], last: TermId) {
        let inputs = &self.program.inputs;
        if inputs.read_whole[k] {
            let whole = [inputs.true_, inputs.does][k];
            eval.tables[whole].insert(outer.iter().copied().chain([last]).collect());
        }
        let node: &Node = eval.store.node(last);
        if let Some(&rel) = self.splits[k].get(&(node.sym, node.args.len())) {
            let fact: Box<[TermId]> = outer.iter().chain(node.args.iter()).copied().collect();
            eval.tables[rel].insert(fact);
        }
    }

    /// For each fact of `output` whose first argument is a role's term, that role and the second
    /// argument.
    fn by_role<'e>(&'e self, eval: &'e Eval<'_>, output: Output) -> impl Iterator<Item = (usize, TermId)> + 'e {
        eval.output(output).facts.iter().filter_map(|fact| {
            let role = self.program.role_terms.iter().position(|&t| t == fact[0])?;
            Some((role, fact[1]))
        })
    }

    fn goal_values_all(&self, state: &State) -> Vec<Vec<u32>> {
        let eval = self.evaluate(self.program.queries.goal, state, &[]);
        let mut goals = vec![Vec::new(); self.program.roles.len()];
        for (role, term) in self.by_role(&eval, self.program.outputs.goal) {
            let node = eval.store.node(term);
            if let (true, Ok(value)) = (node.args.is_empty(), self.symbols.name(node.sym).parse()) {
                goals[role].push(value);
            }
        }
        for values in &mut goals {
            values.sort_unstable();
            values.dedup();
        }
        goals
    }

    fn flat_string(&self, flat: &[u32]) -> String {
        let mut s = String::new();
        write_flat(&self.symbols, flat, &mut s);
        s
    }

    /// The flat encoding of an s-expression over this game's symbols, if it has them all.
    fn flat_of(&self, sx: &kif::Sx, out: &mut Vec<u32>) -> Option<()> {
        match sx {
            kif::Sx::Atom(a) => out.extend([self.symbols.find_in_any_case(a)?, 0]),
            kif::Sx::List(items) => {
                let (kif::Sx::Atom(f), args) = items.split_first()? else { return None };
                out.extend([self.symbols.find_in_any_case(f)?, args.len() as u32]);
                for a in args {
                    self.flat_of(a, out)?;
                }
            }
        }
        Some(())
    }
}

fn flat(terms: &impl TermRead, id: TermId) -> Box<[u32]> {
    let mut out = Vec::new();
    encode(terms, id, &mut out);
    out.into_boxed_slice()
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
        out.resize_with(self.num_roles(), Vec::new);
        out.iter_mut().for_each(Vec::clear);
        let eval = self.evaluate(self.program.queries.legal, state, &[]);
        for (role, term) in self.by_role(&eval, self.program.outputs.legal) {
            out[role].push(Move(flat(&eval.store, term)));
        }
    }

    fn next_state(&self, state: &State, joint: &[Move]) -> State {
        let eval = self.evaluate(self.program.queries.next, state, joint);
        let mut facts: Vec<Box<[u32]>> =
            eval.output(self.program.outputs.next).facts.iter().map(|f| flat(&eval.store, f[0])).collect();
        facts.sort();
        facts.dedup();
        State(facts.into())
    }

    fn is_terminal(&self, state: &State) -> bool {
        let eval = self.evaluate(self.program.queries.terminal, state, &[]);
        !eval.output(self.program.outputs.terminal).facts.is_empty()
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
        let mut facts: Vec<String> = state.0.iter().map(|f| self.flat_string(f)).collect();
        facts.sort();
        facts
    }

    fn move_string(&self, mv: &Move) -> String {
        self.flat_string(&mv.0)
    }

    /// The move `text` spells, each symbol found by its spelling or else in any letter case
    /// when only one matches, as the interpreter reads moves.
    fn parse_move(&self, _role: usize, text: &str) -> Option<Move> {
        let sx = kif::parse_one(text).ok()?;
        let mut out = Vec::new();
        self.flat_of(&sx, &mut out)?;
        Some(Move(out.into_boxed_slice()))
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
        let eval = self.evaluate(self.program.queries.sees, state, joint);
        for (role, term) in self.by_role(&eval, self.program.outputs.sees) {
            out[role].push(self.flat_string(&flat(&eval.store, term)));
        }
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
            fn all_percepts(&self, state: &Self::State, joint: &[Self::Move], out: &mut Vec<Vec<String>>) {
                $crate::Game::all_percepts($loaded(), state, joint, out)
            }
        }
    };
}
