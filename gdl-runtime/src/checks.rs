//! Checks: the relations of a compiled game that are evaluated at run time, top-down, because
//! grounding them would be too large. The ground program asks for a check atom (a relation
//! with ground arguments) as one of its literals; the check's rules are searched depth-first
//! against the current state, the way a Prolog prover would, with static relations and the
//! state's facts as sorted tables.
//!
//! Terms are symbols numbered by the compiler (`u32`, below [`FUNC`]); an argument of a rule
//! with bit 31 set is a variable of the rule, numbered by the low bits, and one with bit 30 set
//! is a compound term, an index into [`Checks::patterns`] (a function symbol and arguments in
//! the same encoding). While a search runs, the compound terms it builds are interned, so two
//! equal ground terms have the same value and compare as numbers; matching a rule's term
//! against a value takes the value apart (unification of a pattern with a ground term).
//!
//! The compiler orders every rule body for each pattern of bound arguments the relation is
//! called with (a *variant*), so that a negation, a `distinct` and a table's arguments are
//! ground when they are reached. A recursive relation called with all its arguments bound
//! fails on a call that repeats one of its callers, so the search ends: a shortest proof never
//! repeats a goal. The relations of a recursive group that is also called with free arguments
//! are *tabled* instead: each call is evaluated to its answers before they are handed on and
//! they are kept, a call that repeats one in progress reads the answers found so far, and the
//! first call of the group that such a repeat reads (its leader) evaluates its rules again
//! until no new answer appears, in the manner of SLG resolution. GDL's recursion restriction
//! keeps the calls and answers of such a group finite.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

/// The mark of a variable argument.
pub const VAR: u32 = 1 << 31;
/// The mark of a compound argument (an index into [`Checks::patterns`]) or, while a search
/// runs, of a compound value.
pub const FUNC: u32 = 1 << 30;
/// The value of a variable not bound yet.
const UNBOUND: u32 = u32::MAX;

/// The checks of one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    pub relations: Vec<Relation>,
    pub tables: Vec<Table>,
    /// The ground atoms the program reads: a relation and its ground arguments (symbols, or
    /// compound terms of `patterns` without variables).
    pub atoms: Vec<(u32, Vec<u32>)>,
    /// The compound terms of the rules and atoms; an argument refers only to earlier ones.
    pub patterns: Vec<Pattern>,
    /// Orders of static tables' rows by the columns searches bind, built when first needed.
    pub indexes: Indexes,
}

/// For a static table and a set of its columns (a mask) that a search has bound, the table's
/// row numbers sorted by those columns, built the first time a search looks rows up that way:
/// chess's searches look `(pawn_capture ?u ?v ?x ?y ?p)` up by `?x ?y`, which a table sorted
/// by its first column can only scan. Derived from the tables alone, so checks that differ only
/// in it are equal.
#[derive(Default)]
pub struct Indexes(RwLock<HashMap<IndexKey, Arc<[u32]>>>);

/// A static table and the mask of its columns an index orders rows by.
type IndexKey = (u32, u64);

impl Clone for Indexes {
    fn clone(&self) -> Indexes {
        Indexes::default()
    }
}

impl PartialEq for Indexes {
    fn eq(&self, _: &Indexes) -> bool {
        true
    }
}

impl Eq for Indexes {}

impl std::fmt::Debug for Indexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Indexes")
    }
}

/// The fewest rows a table needs for a lookup by other columns to go through an index.
const INDEXED_ROWS: usize = 16;

impl Checks {
    /// The row numbers of static table `t` sorted by the columns of `mask` (then by row).
    fn index(&self, t: u32, mask: u64) -> Arc<[u32]> {
        if let Some(index) = self.indexes.0.read().ok().and_then(|m| m.get(&(t, mask)).cloned()) {
            return index;
        }
        let table = &self.tables[t as usize];
        let width = table.width();
        let columns: Vec<usize> = (0..table.arity as usize).filter(|&c| mask >> c & 1 != 0).collect();
        let mut order: Vec<u32> = (0..(table.rows.len() / width.max(1)) as u32).collect();
        let key = |r: u32| columns.iter().map(move |&c| table.rows[r as usize * width + c]);
        order.sort_by(|&a, &b| key(a).cmp(key(b)).then(a.cmp(&b)));
        let index: Arc<[u32]> = order.into();
        if let Ok(mut map) = self.indexes.0.write() {
            map.insert((t, mask), index.clone());
        }
        index
    }
}

/// A compound term of a rule: a function symbol applied to arguments (symbols, variables or
/// earlier patterns).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    pub functor: u32,
    pub args: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relation {
    pub arity: u32,
    /// Whether the relation depends on itself.
    pub recursive: bool,
    /// Whether its calls are tabled (see the module's documentation): its recursive group is
    /// called with free arguments somewhere.
    pub tabled: bool,
    pub variants: Vec<Variant>,
}

/// A relation's rules ordered for one pattern of bound arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variant {
    /// Bit `i` is set when argument `i` is bound by the caller.
    pub bound: u64,
    pub rules: Vec<Rule>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rule {
    /// How many variables the rule has.
    pub vars: u32,
    pub head: Vec<u32>,
    pub goals: Vec<Goal>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// A (negated) call of another check relation.
    Call { relation: u32, positive: bool, args: Vec<u32> },
    /// A (negated) lookup in a table: a static relation, or the state's facts of one shape.
    Table { table: u32, positive: bool, args: Vec<u32> },
    /// `distinct` (positive) or equality (negative) of two arguments.
    Distinct { positive: bool, a: u32, b: u32 },
}

/// Rows of symbols, sorted. A table of the state's facts ends every row with the index of the
/// base fact it stands for, and a row holds only while that fact is true.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    pub arity: u32,
    pub state: bool,
    pub rows: Vec<u32>,
}

impl Table {
    fn width(&self) -> usize {
        self.arity as usize + usize::from(self.state)
    }

    fn row_holds(&self, row: &[u32], state: &[u64]) -> bool {
        !self.state || {
            let bit = row[self.arity as usize] as usize;
            state.get(bit / 64).is_some_and(|w| w >> (bit % 64) & 1 != 0)
        }
    }

    /// All its rows, each `width` long, whether or not they hold.
    fn all_rows(&self) -> Rows<'_> {
        Rows { rows: &self.rows, width: self.width(), arity: self.arity as usize }
    }
}

/// The rows of the state's tables that hold in one state. A table of the state's facts lists
/// every fact of its shape that can ever hold (chess's 832 `(cell x y piece)`), few of which
/// hold at a time (64): a search reads these instead, built once for all the atoms a state's
/// evaluation asks for.
#[derive(Clone, Debug, Default)]
pub struct StateRows {
    /// For every table of the state's facts with arguments, the arguments of its rows that
    /// hold, in the table's order; `None` for the other tables.
    rows: Vec<Option<Vec<u32>>>,
}

impl StateRows {
    /// The rows of `checks`'s state tables that hold in `state`.
    pub fn new(checks: &Checks, state: &[u64]) -> StateRows {
        let rows = checks
            .tables
            .iter()
            .map(|table| {
                (table.state && table.arity > 0).then(|| {
                    let arity = table.arity as usize;
                    let holding = table.rows.chunks_exact(table.width()).filter(|row| table.row_holds(row, state));
                    holding.flat_map(|row| &row[..arity]).copied().collect()
                })
            })
            .collect();
        StateRows { rows }
    }
}

/// Rows of `width` symbols sorted by their first `arity`: a table's (a state table's end with
/// the index of their fact), or the holding rows of a state table (just their arguments).
#[derive(Clone, Copy)]
struct Rows<'a> {
    rows: &'a [u32],
    width: usize,
    arity: usize,
}

impl<'a> Rows<'a> {
    /// The rows whose first column is `first` (every row when it is unbound).
    fn candidates(self, first: Option<u32>) -> &'a [u32] {
        let width = self.width;
        match first {
            _ if width == 0 => &[],
            Some(value) if self.arity > 0 => {
                let rows = self.rows.len() / width;
                let start = partition_rows(rows, |i| self.rows[i * width] < value);
                let end = partition_rows(rows, |i| self.rows[i * width] <= value);
                &self.rows[start * width..end * width]
            }
            _ => self.rows,
        }
    }

    /// The row whose arguments are `key` (every column bound), if there is one.
    fn find(self, key: &[u32]) -> Option<&'a [u32]> {
        let width = self.width;
        if width == 0 {
            return None;
        }
        let rows = self.rows.len() / width;
        let row = |i: usize| &self.rows[i * width..(i + 1) * width];
        let at = partition_rows(rows, |i| &row(i)[..self.arity] < key);
        (at < rows && &row(at)[..self.arity] == key).then(|| row(at))
    }
}

/// The first of `n` rows for which `before` is false (`before` is true then false).
fn partition_rows(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The compound values a search has built, interned: value `FUNC | at` is the term whose
/// function symbol is `words[at]`, its arity `words[at + 1]` and its arguments the next words.
#[derive(Default)]
struct Terms {
    words: Vec<u32>,
    ids: HashMap<Vec<u32>, u32>,
    /// The key of the term being looked up, kept so that finding a known term allocates nothing.
    key: Vec<u32>,
}

impl Terms {
    /// The value of a function symbol applied to values, or `UNBOUND` when there is no room.
    fn intern(&mut self, functor: u32, args: &[u32]) -> u32 {
        self.key.clear();
        self.key.push(functor);
        self.key.extend_from_slice(args);
        if let Some(&id) = self.ids.get(self.key.as_slice()) {
            return id;
        }
        let key = self.key.clone();
        let at = self.words.len() as u32;
        if at >= FUNC - 1 || args.len() >= FUNC as usize {
            return UNBOUND;
        }
        self.words.extend([functor, args.len() as u32]);
        self.words.extend_from_slice(args);
        self.ids.insert(key, FUNC | at);
        FUNC | at
    }

    /// The function symbol and arguments of a compound value.
    fn parts(&self, value: u32) -> Option<(u32, &[u32])> {
        if value == UNBOUND || value & FUNC == 0 {
            return None;
        }
        let at = (value & !FUNC) as usize;
        let arity = self.words[at + 1] as usize;
        Some((self.words[at], &self.words[at + 2..at + 2 + arity]))
    }
}

/// Where a tabled call stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Its answers are sound but may be missing some: evaluate it when it is called.
    Incomplete,
    /// Being evaluated, at this depth of tabled calls.
    InProgress(u32),
    Complete,
}

/// The answers of one tabled call.
struct Entry {
    answers: Vec<Vec<u32>>,
    seen: HashSet<Vec<u32>>,
    status: Status,
}

/// What a callback returns: whether to stop the search.
type Stop = bool;

/// One search for a check atom: the terms it built, the calls in progress and the tables of
/// tabled calls.
struct Search<'c> {
    checks: &'c Checks,
    state: &'c [u64],
    state_rows: &'c StateRows,
    terms: Terms,
    /// The calls of untabled recursive relations in progress, each as its relation, the number
    /// of its arguments and its arguments: a call that repeats one fails.
    stack: Vec<u32>,
    memo: HashMap<(u32, Vec<u32>), usize>,
    entries: Vec<Entry>,
    /// How many tabled calls are in progress.
    depth: u32,
    /// The least depth of a call in progress whose answers the current evaluation read.
    low: u32,
    /// How many answers all tables have gained.
    added: u64,
}

impl Checks {
    /// Whether check atom `atom` holds in `state`.
    pub fn holds(&self, state: &[u64], atom: u32) -> bool {
        self.holds_with(state, &StateRows::new(self, state), atom)
    }

    /// Whether check atom `atom` holds in `state`, whose holding rows `state_rows` gives.
    pub fn holds_with(&self, state: &[u64], state_rows: &StateRows, atom: u32) -> bool {
        let Some((relation, args)) = self.atoms.get(atom as usize) else { return false };
        let mut search = Search {
            checks: self,
            state,
            state_rows,
            terms: Terms::default(),
            stack: Vec::new(),
            memo: HashMap::new(),
            entries: Vec::new(),
            depth: 0,
            low: u32::MAX,
            added: 0,
        };
        let values: Vec<u32> = args.iter().map(|&a| search.build(a, &[])).collect();
        if values.contains(&UNBOUND) {
            return false;
        }
        search.call(*relation, &values, &mut |_, _| true)
    }
}

impl<'c> Search<'c> {
    /// The value of a rule's argument under `env`, building compound terms; `UNBOUND` when one
    /// of its variables is.
    fn build(&mut self, arg: u32, env: &[u32]) -> u32 {
        if arg & VAR != 0 {
            return env.get((arg & !VAR) as usize).copied().unwrap_or(UNBOUND);
        }
        if arg & FUNC == 0 {
            return arg;
        }
        let pattern = &self.checks.patterns[(arg & !FUNC) as usize];
        let mut args = Vec::with_capacity(pattern.args.len());
        for &a in &pattern.args {
            let v = self.build(a, env);
            if v == UNBOUND {
                return UNBOUND;
            }
            args.push(v);
        }
        self.terms.intern(pattern.functor, &args)
    }

    /// The values of a goal's arguments under `env` (`UNBOUND` where free), on the stack when
    /// they are few.
    fn key(&mut self, args: &[u32], env: &[u32]) -> Key {
        let mut key = Key::default();
        if args.len() <= KEY_LEN {
            for (slot, &a) in key.few.iter_mut().zip(args) {
                *slot = self.build(a, env);
            }
            key.len = args.len();
        } else {
            key.many = args.iter().map(|&a| self.build(a, env)).collect();
        }
        key
    }

    /// Matches a rule's argument against a value, binding free variables (recorded in `trail`).
    fn matches(&self, arg: u32, value: u32, env: &mut [u32], trail: &mut Vec<usize>) -> bool {
        if arg & VAR != 0 {
            let slot = (arg & !VAR) as usize;
            return if env[slot] == UNBOUND {
                env[slot] = value;
                trail.push(slot);
                true
            } else {
                env[slot] == value
            };
        }
        if arg & FUNC == 0 {
            return arg == value;
        }
        let pattern = &self.checks.patterns[(arg & !FUNC) as usize];
        match self.terms.parts(value) {
            Some((functor, values)) if functor == pattern.functor && values.len() == pattern.args.len() => {
                pattern.args.iter().zip(values).all(|(&a, &v)| self.matches(a, v, env, trail))
            }
            _ => false,
        }
    }

    /// Matches arguments against values; on failure the bindings made are undone.
    fn matches_all(&self, args: &[u32], values: &[u32], env: &mut [u32], trail: &mut Vec<usize>) -> bool {
        let ok = args.iter().zip(values).all(|(&a, &v)| v == UNBOUND || self.matches(a, v, env, trail));
        if !ok {
            undo(env, trail);
        }
        ok
    }

    /// Calls `relation` with `args` (`UNBOUND` where the caller leaves an argument free) and
    /// hands every answer to `on_answer`. Returns whether it was stopped.
    fn call(&mut self, relation: u32, args: &[u32], on_answer: &mut dyn FnMut(&mut Self, &[u32]) -> Stop) -> Stop {
        let rel = &self.checks.relations[relation as usize];
        if rel.tabled {
            return self.tabled(relation, args, on_answer);
        }
        let guarded = rel.recursive && !args.contains(&UNBOUND);
        if guarded {
            if in_progress(&self.stack, relation, args) {
                return false;
            }
            self.stack.extend([relation, args.len() as u32]);
            self.stack.extend_from_slice(args);
        }
        let stopped = self.rules(relation, args, on_answer);
        if guarded {
            self.stack.truncate(self.stack.len() - 2 - args.len());
        }
        stopped
    }

    /// Searches the rules of `relation` for `args`, handing every answer to `on_answer`.
    fn rules(&mut self, relation: u32, args: &[u32], on_answer: &mut dyn FnMut(&mut Self, &[u32]) -> Stop) -> Stop {
        let checks = self.checks;
        let rel = &checks.relations[relation as usize];
        let bound = args.iter().enumerate().fold(0u64, |m, (i, &a)| if a == UNBOUND { m } else { m | 1 << i });
        // The variant for exactly these bound arguments, or one that needs fewer of them (its
        // order stays valid; the extra bindings only filter).
        let Some(variant) = rel.variants.iter().filter(|v| v.bound & !bound == 0).max_by_key(|v| v.bound.count_ones())
        else {
            return false;
        };
        let mut trail = Vec::new();
        let mut answer = Vec::with_capacity(args.len());
        let mut env = Vec::with_capacity(variant.rules.iter().map(|r| r.vars as usize).max().unwrap_or(0));
        for rule in &variant.rules {
            // Each rule has its own variables: the bindings of the one before are not undone in
            // this one's (smaller, perhaps) environment.
            trail.clear();
            env.clear();
            env.resize(rule.vars as usize, UNBOUND);
            if !self.matches_all(&rule.head, args, &mut env, &mut trail) {
                continue;
            }
            let stopped = self.solve(&rule.goals, &mut env, &mut |search, env| {
                answer.clear();
                for &h in &rule.head {
                    let value = search.build(h, env);
                    answer.push(value);
                }
                !answer.contains(&UNBOUND) && on_answer(search, &answer)
            });
            if stopped {
                return true;
            }
        }
        false
    }

    /// A call of a tabled relation. A new call is evaluated before any answer is handed on: a
    /// repeat of a call in progress reads the answers found so far, and the first call of a
    /// recursive group that such a repeat reads evaluates its rules again until no table gains
    /// an answer; the calls it made that read a call above it stay incomplete, to be evaluated
    /// again when they are called again. Handing answers on only once they are known keeps
    /// every reader of a call in progress inside the evaluation that repeats it.
    fn tabled(&mut self, relation: u32, args: &[u32], on_answer: &mut dyn FnMut(&mut Self, &[u32]) -> Stop) -> Stop {
        let key = (relation, args.to_vec());
        let entry = match self.memo.get(&key) {
            Some(&e) => e,
            None => {
                self.entries.push(Entry { answers: Vec::new(), seen: HashSet::new(), status: Status::Incomplete });
                self.memo.insert(key, self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        match self.entries[entry].status {
            Status::InProgress(depth) => self.low = self.low.min(depth),
            Status::Complete => {}
            Status::Incomplete => {
                let depth = self.depth;
                self.depth += 1;
                self.entries[entry].status = Status::InProgress(depth);
                let outer_low = self.low;
                let (status, low) = loop {
                    self.low = u32::MAX;
                    let added = self.added;
                    self.rules(relation, args, &mut |search, answer| {
                        let e = &mut search.entries[entry];
                        if e.seen.insert(answer.to_vec()) {
                            e.answers.push(answer.to_vec());
                            search.added += 1;
                        }
                        false
                    });
                    let low = self.low;
                    if low < depth {
                        // It read a call in progress above it, whose answers may still grow.
                        break (Status::Incomplete, low);
                    }
                    if low > depth || self.added == added {
                        break (Status::Complete, u32::MAX);
                    }
                };
                self.entries[entry].status = status;
                self.depth -= 1;
                self.low = outer_low.min(low);
            }
        }
        let mut i = 0;
        while let Some(answer) = self.entries[entry].answers.get(i).cloned() {
            if on_answer(self, &answer) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Searches for the bindings that satisfy `goals` in order, handing each to `k`.
    fn solve(
        &mut self,
        goals: &[Goal],
        env: &mut Vec<u32>,
        k: &mut dyn FnMut(&mut Self, &mut Vec<u32>) -> Stop,
    ) -> Stop {
        let Some((goal, rest)) = goals.split_first() else { return k(self, env) };
        let checks = self.checks;
        match goal {
            Goal::Distinct { positive, a, b } => {
                let (a, b) = (self.build(*a, env), self.build(*b, env));
                if (a != b) == *positive {
                    self.solve(rest, env, k)
                } else {
                    false
                }
            }
            Goal::Table { table: t, positive, args } => {
                let table = &checks.tables[*t as usize];
                let key = self.key(args, env);
                // The state's rows that hold, when it has them apart; else all the table's, whose
                // fact a state table's row then names.
                let (rows, read_state) = match self.state_rows.rows.get(*t as usize) {
                    Some(Some(rows)) => {
                        (Rows { rows, width: table.arity as usize, arity: table.arity as usize }, false)
                    }
                    _ => (table.all_rows(), table.state),
                };
                let holds = |row: &[u32]| !read_state || table.row_holds(row, self.state);
                if !key.contains(&UNBOUND) {
                    let found = rows.find(&key).is_some_and(holds);
                    return found == *positive && self.solve(rest, env, k);
                }
                if !positive {
                    return false;
                }
                let first = key.first().copied().filter(|&v| v != UNBOUND);
                let mask = key.iter().enumerate().fold(0u64, |m, (i, &v)| {
                    if v == UNBOUND {
                        m
                    } else {
                        m | 1u64.checked_shl(i as u32).unwrap_or(0)
                    }
                });
                let width = rows.width;
                let indexable = !table.state && table.arity <= 64 && table.rows.len() >= INDEXED_ROWS * width;
                if indexable && first.is_none() && mask != 0 {
                    // Rows whose bound columns are the key's, through the index on them.
                    let index = checks.index(*t, mask);
                    let bound: Vec<u32> = key.iter().copied().filter(|&v| v != UNBOUND).collect();
                    let row = |r: u32| &table.rows[r as usize * width..(r as usize + 1) * width];
                    let columns = |r: u32| (0..width).filter(move |&c| mask >> c & 1 != 0).map(move |c| row(r)[c]);
                    let start = index.partition_point(|&r| columns(r).lt(bound.iter().copied()));
                    let matching = index[start..].iter().take_while(|&&r| columns(r).eq(bound.iter().copied()));
                    return self.solve_rows(matching.map(|&r| row(r)), args, rest, env, k);
                }
                let candidates = rows.candidates(first).chunks_exact(width.max(1)).filter(|row| holds(row));
                self.solve_rows(candidates, args, rest, env, k)
            }
            Goal::Call { relation, positive: false, args } => {
                let key = self.key(args, env);
                if self.call(*relation, &key, &mut |_, _| true) {
                    false
                } else {
                    self.solve(rest, env, k)
                }
            }
            Goal::Call { relation, positive: true, args } => {
                let key = self.key(args, env);
                self.call(*relation, &key, &mut |search, answer| {
                    let mut trail = Vec::new();
                    if !search.matches_all(args, answer, env, &mut trail) {
                        return false;
                    }
                    let stop = search.solve(rest, env, k);
                    undo(env, &mut trail);
                    stop
                })
            }
        }
    }
}

impl<'c> Search<'c> {
    /// [`Search::solve`] of `rest` after a table goal of `args`, for each of `rows` that
    /// matches them.
    fn solve_rows<'r>(
        &mut self,
        rows: impl Iterator<Item = &'r [u32]>,
        args: &[u32],
        rest: &[Goal],
        env: &mut Vec<u32>,
        k: &mut dyn FnMut(&mut Self, &mut Vec<u32>) -> Stop,
    ) -> Stop {
        let mut trail = Vec::new();
        for row in rows {
            if !self.matches_all(args, &row[..args.len()], env, &mut trail) {
                continue;
            }
            if self.solve(rest, env, k) {
                return true;
            }
            undo(env, &mut trail);
        }
        false
    }
}

/// The most arguments a [`Key`] holds without allocating.
const KEY_LEN: usize = 8;

/// A goal's argument values: `few[..len]`, or `many` when there are more than [`KEY_LEN`].
#[derive(Default)]
struct Key {
    few: [u32; KEY_LEN],
    len: usize,
    many: Vec<u32>,
}

impl std::ops::Deref for Key {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        if self.many.is_empty() {
            &self.few[..self.len]
        } else {
            &self.many
        }
    }
}

/// Unbinds the variables bound since `trail` was empty.
fn undo(env: &mut [u32], trail: &mut Vec<usize>) {
    for v in trail.drain(..) {
        env[v] = UNBOUND;
    }
}

fn in_progress(stack: &[u32], relation: u32, args: &[u32]) -> bool {
    let mut at = 0;
    while at + 1 < stack.len() {
        let len = stack[at + 1] as usize;
        if stack[at] == relation && &stack[at + 2..at + 2 + len] == args {
            return true;
        }
        at += 2 + len;
    }
    false
}

impl Checks {
    /// Appends the checks as words (see [`Checks::decode`]).
    pub fn encode(&self, out: &mut Vec<u32>) {
        let list = |out: &mut Vec<u32>, items: &[u32]| {
            out.push(items.len() as u32);
            out.extend_from_slice(items);
        };
        out.push(self.relations.len() as u32);
        for relation in &self.relations {
            let flags = u32::from(relation.recursive) | u32::from(relation.tabled) << 1;
            out.extend([relation.arity, flags, relation.variants.len() as u32]);
            for variant in &relation.variants {
                out.extend([variant.bound as u32, (variant.bound >> 32) as u32, variant.rules.len() as u32]);
                for rule in &variant.rules {
                    out.push(rule.vars);
                    list(out, &rule.head);
                    out.push(rule.goals.len() as u32);
                    for goal in &rule.goals {
                        match goal {
                            Goal::Call { relation, positive, args } => {
                                out.extend([0, *relation, u32::from(*positive)]);
                                list(out, args);
                            }
                            Goal::Table { table, positive, args } => {
                                out.extend([1, *table, u32::from(*positive)]);
                                list(out, args);
                            }
                            Goal::Distinct { positive, a, b } => out.extend([2, u32::from(*positive), *a, *b]),
                        }
                    }
                }
            }
        }
        out.push(self.tables.len() as u32);
        for table in &self.tables {
            out.extend([table.arity, u32::from(table.state)]);
            list(out, &table.rows);
        }
        out.push(self.atoms.len() as u32);
        for (relation, args) in &self.atoms {
            out.push(*relation);
            list(out, args);
        }
        out.push(self.patterns.len() as u32);
        for pattern in &self.patterns {
            out.push(pattern.functor);
            list(out, &pattern.args);
        }
    }

    /// Reads checks written by [`Checks::encode`] from `words` at `*at`, checking every index
    /// and arity they hold so that evaluation cannot go out of bounds.
    pub fn decode(words: &[u32], at: &mut usize) -> Result<Checks, String> {
        let mut word = || -> Result<u32, String> {
            let w = *words.get(*at).ok_or("the check tables end early")?;
            *at += 1;
            Ok(w)
        };
        let mut checks = Checks::default();
        let read_list = |word: &mut dyn FnMut() -> Result<u32, String>| -> Result<Vec<u32>, String> {
            let len = word()? as usize;
            (0..len).map(|_| word()).collect()
        };
        let relations = word()?;
        for _ in 0..relations {
            let (arity, flags, variants) = (word()?, word()?, word()?);
            let mut relation =
                Relation { arity, recursive: flags & 1 != 0, tabled: flags & 2 != 0, variants: Vec::new() };
            for _ in 0..variants {
                let bound = u64::from(word()?) | u64::from(word()?) << 32;
                let rules = word()?;
                let mut variant = Variant { bound, rules: Vec::new() };
                for _ in 0..rules {
                    let vars = word()?;
                    let head = read_list(&mut word)?;
                    let goals = word()?;
                    let mut rule = Rule { vars, head, goals: Vec::new() };
                    for _ in 0..goals {
                        let goal = match word()? {
                            0 => Goal::Call { relation: word()?, positive: word()? != 0, args: read_list(&mut word)? },
                            1 => Goal::Table { table: word()?, positive: word()? != 0, args: read_list(&mut word)? },
                            2 => Goal::Distinct { positive: word()? != 0, a: word()?, b: word()? },
                            _ => return Err("an unknown kind of check goal".to_string()),
                        };
                        rule.goals.push(goal);
                    }
                    variant.rules.push(rule);
                }
                relation.variants.push(variant);
            }
            checks.relations.push(relation);
        }
        let tables = word()?;
        for _ in 0..tables {
            let (arity, state) = (word()?, word()? != 0);
            checks.tables.push(Table { arity, state, rows: read_list(&mut word)? });
        }
        let atoms = word()?;
        for _ in 0..atoms {
            let relation = word()?;
            checks.atoms.push((relation, read_list(&mut word)?));
        }
        let patterns = word()?;
        for _ in 0..patterns {
            let functor = word()?;
            checks.patterns.push(Pattern { functor, args: read_list(&mut word)? });
        }
        checks.validate()?;
        Ok(checks)
    }

    fn validate(&self) -> Result<(), String> {
        // How many variables each pattern needs (one past its largest), its arguments referring
        // only to earlier patterns so that building and matching end.
        let mut needs: Vec<u32> = Vec::with_capacity(self.patterns.len());
        for (i, pattern) in self.patterns.iter().enumerate() {
            if pattern.functor >= FUNC {
                return Err("a check pattern's function symbol is out of range".to_string());
            }
            let mut need = 0;
            for &a in &pattern.args {
                need = need.max(match a {
                    _ if a & VAR != 0 => (a & !VAR).saturating_add(1),
                    _ if a & FUNC != 0 && ((a & !FUNC) as usize) < i => needs[(a & !FUNC) as usize],
                    _ if a & FUNC != 0 => return Err("a check pattern refers to a later one".to_string()),
                    _ => 0,
                });
            }
            needs.push(need);
        }
        let var_ok = |a: u32, vars: u32| match a {
            _ if a & VAR != 0 => (a & !VAR) < vars,
            _ if a & FUNC != 0 => needs.get((a & !FUNC) as usize).is_some_and(|&need| need <= vars),
            _ => true,
        };
        for relation in &self.relations {
            if relation.arity > 64 || relation.variants.is_empty() {
                return Err("a check relation with no variant or over 64 arguments".to_string());
            }
            for rule in relation.variants.iter().flat_map(|v| &v.rules) {
                if rule.head.len() != relation.arity as usize || !rule.head.iter().all(|&a| var_ok(a, rule.vars)) {
                    return Err("a check rule's head does not fit its relation".to_string());
                }
                for goal in &rule.goals {
                    let fits = match goal {
                        Goal::Call { relation, args, .. } => self.relations.get(*relation as usize).is_some_and(|r| {
                            r.arity as usize == args.len() && args.iter().all(|&a| var_ok(a, rule.vars))
                        }),
                        Goal::Table { table, args, .. } => self.tables.get(*table as usize).is_some_and(|t| {
                            t.arity as usize == args.len() && args.iter().all(|&a| var_ok(a, rule.vars))
                        }),
                        Goal::Distinct { a, b, .. } => var_ok(*a, rule.vars) && var_ok(*b, rule.vars),
                    };
                    if !fits {
                        return Err("a check goal refers past its tables".to_string());
                    }
                }
            }
        }
        let symbols_ok = |t: &Table| {
            t.rows.chunks_exact(t.width().max(1)).all(|row| row[..t.arity as usize].iter().all(|&v| v < FUNC))
        };
        if !self.tables.iter().all(|t| (t.width() == 0 || t.rows.len() % t.width() == 0) && symbols_ok(t)) {
            return Err("a check table has a partial row or a value out of range".to_string());
        }
        let atom_ok = |(r, args): &(u32, Vec<u32>)| {
            self.relations.get(*r as usize).is_some_and(|rel| rel.arity as usize == args.len())
                && args.iter().all(|&a| var_ok(a, 0))
        };
        if !self.atoms.iter().all(atom_ok) {
            return Err("a check atom does not fit its relation".to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: u32 = 0;
    const B: u32 = 1;
    const C: u32 = 2;
    const fn var(i: u32) -> u32 {
        VAR | i
    }

    /// Symbols a, b, c; the state's facts `(open X Y)` are base facts 0..9 (X*3+Y). Relations:
    /// 0 `(path X Y)`: `(open X Y)`, or `(open X Z) (path Z Y)` — recursive, called bound;
    /// 1 `(out X Y)`: `(open X Y)` — called with X bound and Y free;
    /// 2 `(elsewhere X)`: `(out X Y) (distinct X Y) (not (path Y X))`.
    fn sample() -> Checks {
        let mut open = Table { arity: 2, state: true, rows: Vec::new() };
        for x in [A, B, C] {
            for y in [A, B, C] {
                open.rows.extend([x, y, x * 3 + y]);
            }
        }
        let open_goal = |a, b| Goal::Table { table: 0, positive: true, args: vec![a, b] };
        let path = Relation {
            arity: 2,
            recursive: true,
            tabled: false,
            variants: vec![Variant {
                bound: 0b11,
                rules: vec![
                    Rule { vars: 2, head: vec![var(0), var(1)], goals: vec![open_goal(var(0), var(1))] },
                    Rule {
                        vars: 3,
                        head: vec![var(0), var(1)],
                        goals: vec![
                            open_goal(var(0), var(2)),
                            Goal::Call { relation: 0, positive: true, args: vec![var(2), var(1)] },
                        ],
                    },
                ],
            }],
        };
        let out = Relation {
            arity: 2,
            recursive: false,
            tabled: false,
            variants: vec![Variant {
                bound: 0b01,
                rules: vec![Rule { vars: 2, head: vec![var(0), var(1)], goals: vec![open_goal(var(0), var(1))] }],
            }],
        };
        let elsewhere = Relation {
            arity: 1,
            recursive: false,
            tabled: false,
            variants: vec![Variant {
                bound: 0b1,
                rules: vec![Rule {
                    vars: 2,
                    head: vec![var(0)],
                    goals: vec![
                        Goal::Call { relation: 1, positive: true, args: vec![var(0), var(1)] },
                        Goal::Distinct { positive: true, a: var(0), b: var(1) },
                        Goal::Call { relation: 0, positive: false, args: vec![var(1), var(0)] },
                    ],
                }],
            }],
        };
        Checks {
            relations: vec![path, out, elsewhere],
            tables: vec![open],
            atoms: vec![(0, vec![A, C]), (0, vec![C, A]), (2, vec![A]), (2, vec![B])],
            patterns: Vec::new(),
            indexes: Indexes::default(),
        }
    }

    fn state(edges: &[(u32, u32)]) -> [u64; 1] {
        [edges.iter().fold(0, |w, &(x, y)| w | 1 << (x * 3 + y))]
    }

    #[test]
    fn recursion_follows_the_state_and_ends_on_cycles() {
        let checks = sample();
        // a -> b -> a (a cycle) and b -> c: a reaches c; c reaches nothing.
        let s = state(&[(A, B), (B, A), (B, C)]);
        assert!(checks.holds(&s, 0));
        assert!(!checks.holds(&s, 1));
        let s = state(&[(A, B), (B, A)]);
        assert!(!checks.holds(&s, 0), "the cycle a-b never reaches c");
    }

    #[test]
    fn free_arguments_are_enumerated_and_negations_read_bound_calls() {
        let checks = sample();
        // elsewhere(a): a -> b with b not reaching a back.
        assert!(checks.holds(&state(&[(A, B)]), 2));
        assert!(!checks.holds(&state(&[(A, B), (B, A)]), 2));
        assert!(checks.holds(&state(&[(A, B), (B, A), (A, C)]), 2), "c does not lead back to a");
        assert!(!checks.holds(&state(&[(A, A)]), 2), "a loop to itself is not elsewhere");
        assert!(!checks.holds(&state(&[(A, B)]), 3));
    }

    #[test]
    fn a_rule_with_fewer_variables_after_a_matched_head_is_searched_safely() {
        // (r X): a first rule whose head binds its third variable (its body then fails), a
        // second with one variable whose constant head does not match, and a third that holds.
        let mut checks = sample();
        let open_goal = |a, b| Goal::Table { table: 0, positive: true, args: vec![a, b] };
        checks.relations.push(Relation {
            arity: 1,
            recursive: false,
            tabled: false,
            variants: vec![Variant {
                bound: 0b1,
                rules: vec![
                    Rule { vars: 3, head: vec![var(2)], goals: vec![open_goal(var(2), var(2))] },
                    Rule { vars: 1, head: vec![B], goals: Vec::new() },
                    Rule { vars: 1, head: vec![var(0)], goals: vec![open_goal(var(0), B)] },
                ],
            }],
        });
        checks.atoms.push((3, vec![A]));
        assert!(checks.holds(&state(&[(A, B)]), 4));
        assert!(!checks.holds(&state(&[(B, A)]), 4));
    }

    #[test]
    fn a_static_table_is_looked_up_by_a_later_column() {
        // (succ x y) for x in 10..30, and (has_pred ?y) :- (succ ?x ?y), (distinct ?x 20):
        // called with ?y bound, the lookup binds ?x through the index on the second column.
        let mut succ = Table { arity: 2, state: false, rows: Vec::new() };
        for x in 10..30 {
            succ.rows.extend([x, x + 1]);
        }
        let rule = Rule {
            vars: 2,
            head: vec![var(0)],
            goals: vec![
                Goal::Table { table: 0, positive: true, args: vec![var(1), var(0)] },
                Goal::Distinct { positive: true, a: var(1), b: 20 },
            ],
        };
        let checks = Checks {
            relations: vec![relation(1, false, false, 0b1, vec![rule])],
            tables: vec![succ],
            atoms: (5..35).map(|y| (0, vec![y])).collect(),
            ..Checks::default()
        };
        for y in 5..35u32 {
            let expected = (11..=30).contains(&y) && y != 21;
            assert_eq!(checks.holds(&[], y - 5), expected, "has_pred {y}");
        }
        assert_eq!(checks.indexes.0.read().unwrap().len(), 1, "one index, on the second column");
    }

    #[test]
    fn encoding_round_trips_and_damage_is_refused() {
        let checks = sample();
        let mut words = Vec::new();
        checks.encode(&mut words);
        let mut at = 0;
        assert_eq!(Checks::decode(&words, &mut at).unwrap(), checks);
        assert_eq!(at, words.len());
        let mut at = 0;
        assert!(Checks::decode(&words[..words.len() - 1], &mut at).is_err());
        let mut bad = checks.clone();
        bad.atoms.push((7, vec![]));
        let mut words = Vec::new();
        bad.encode(&mut words);
        assert!(Checks::decode(&words, &mut 0).is_err());
    }

    fn relation(arity: u32, recursive: bool, tabled: bool, bound: u64, rules: Vec<Rule>) -> Relation {
        Relation { arity, recursive, tabled, variants: vec![Variant { bound, rules }] }
    }

    fn call(relation: u32, positive: bool, args: Vec<u32>) -> Goal {
        Goal::Call { relation, positive, args }
    }

    /// Symbols a, b, c, then `nil` (3) and `list` (4); the state's facts `(edge X Y)` as in
    /// [`sample`]. Patterns: 0 `(list ?0 ?1)`, 1 `(list ?2 ?1)`, 2 `(list a nil)`. Relations:
    /// 0 `(member E L)`: `(member ?0 (list ?0 ?1))`, `(member ?0 (list ?2 ?1)) :- (member ?0 ?1)`,
    ///   recursive and called bound;
    /// 1 `(conn X Y V)`, the simple paths from X avoiding the list V, called with Y free (so
    ///   tabled): `(edge ?0 ?1) (not (member ?1 ?2))`, and
    ///   `(edge ?0 ?3) (not (member ?3 ?2)) (conn ?3 ?1 (list ?3 ?2))`;
    /// 2 `(tc X Y)`, left-recursive and called with Y free: `(edge ?0 ?1)`, `(tc ?0 ?2) (edge ?2 ?1)`;
    /// 3 `(hits W)`: `(tc a ?1) (= ?1 ?0)`; 4 `(goes W)`: `(conn a ?1 (list a nil)) (= ?1 ?0)`.
    fn lists() -> Checks {
        const NIL: u32 = 3;
        const LIST: u32 = 4;
        let mut checks = sample();
        let edge = |a, b| Goal::Table { table: 0, positive: true, args: vec![a, b] };
        let member = relation(
            2,
            true,
            false,
            0b11,
            vec![
                Rule { vars: 2, head: vec![var(0), FUNC], goals: vec![] },
                Rule { vars: 3, head: vec![var(0), FUNC | 1], goals: vec![call(0, true, vec![var(0), var(1)])] },
            ],
        );
        let conn = relation(
            3,
            true,
            true,
            0b101,
            vec![
                Rule {
                    vars: 3,
                    head: vec![var(0), var(1), var(2)],
                    goals: vec![edge(var(0), var(1)), call(0, false, vec![var(1), var(2)])],
                },
                Rule {
                    vars: 5,
                    head: vec![var(0), var(1), var(2)],
                    goals: vec![
                        edge(var(0), var(3)),
                        call(0, false, vec![var(3), var(2)]),
                        call(1, true, vec![var(3), var(1), FUNC | 3]),
                    ],
                },
            ],
        );
        let tc = relation(
            2,
            true,
            true,
            0b01,
            vec![
                Rule { vars: 2, head: vec![var(0), var(1)], goals: vec![edge(var(0), var(1))] },
                Rule {
                    vars: 3,
                    head: vec![var(0), var(1)],
                    goals: vec![call(2, true, vec![var(0), var(2)]), edge(var(2), var(1))],
                },
            ],
        );
        let equal = Goal::Distinct { positive: false, a: var(1), b: var(0) };
        let hits = relation(
            1,
            false,
            false,
            0b1,
            vec![Rule { vars: 2, head: vec![var(0)], goals: vec![call(2, true, vec![A, var(1)]), equal.clone()] }],
        );
        let goes = relation(
            1,
            false,
            false,
            0b1,
            vec![Rule { vars: 2, head: vec![var(0)], goals: vec![call(1, true, vec![A, var(1), FUNC | 2]), equal] }],
        );
        checks.relations = vec![member, conn, tc, hits, goes];
        checks.patterns = vec![
            Pattern { functor: LIST, args: vec![var(0), var(1)] },
            Pattern { functor: LIST, args: vec![var(2), var(1)] },
            Pattern { functor: LIST, args: vec![A, NIL] },
            Pattern { functor: LIST, args: vec![var(3), var(2)] },
        ];
        checks.atoms = vec![(3, vec![C]), (3, vec![A]), (4, vec![C]), (4, vec![A]), (1, vec![B, A, FUNC | 2])];
        checks
    }

    #[test]
    fn compound_terms_are_built_matched_and_compared() {
        let checks = lists();
        // a -> b -> c: a simple path from a reaches c but never returns to a.
        let s = state(&[(A, B), (B, C)]);
        assert!(checks.holds(&s, 2));
        assert!(!checks.holds(&s, 3));
        // With c -> a the path could return to a, but a is on the visited list.
        let s = state(&[(A, B), (B, C), (C, A)]);
        assert!(checks.holds(&s, 2));
        assert!(!checks.holds(&s, 3), "a is visited");
        // (conn b a (list a nil)): b -> a directly is a's own cell, which is visited.
        assert!(!checks.holds(&state(&[(B, A)]), 4));
        assert!(!checks.holds(&state(&[(B, C), (C, A)]), 4), "a is on the list");
        let mut words = Vec::new();
        checks.encode(&mut words);
        assert_eq!(Checks::decode(&words, &mut 0).unwrap(), checks);
    }

    #[test]
    fn left_recursion_with_free_arguments_reaches_its_fixpoint() {
        let checks = lists();
        let s = state(&[(A, B), (B, C)]);
        assert!(checks.holds(&s, 0), "a reaches c through b");
        assert!(!checks.holds(&s, 1), "nothing leads back to a");
        let s = state(&[(A, B), (B, C), (C, A)]);
        assert!(checks.holds(&s, 0) && checks.holds(&s, 1));
        assert!(!checks.holds(&state(&[(B, C), (C, A)]), 0), "a has no edge out");
    }

    #[test]
    fn damaged_patterns_are_refused() {
        let mut bad = lists();
        bad.patterns[0].args[0] = FUNC | 3;
        let mut words = Vec::new();
        bad.encode(&mut words);
        assert!(Checks::decode(&words, &mut 0).is_err(), "a pattern may only refer to earlier ones");
        let mut bad = lists();
        bad.atoms.push((3, vec![FUNC]));
        let mut words = Vec::new();
        bad.encode(&mut words);
        assert!(Checks::decode(&words, &mut 0).is_err(), "an atom's pattern has variables");
    }
}
