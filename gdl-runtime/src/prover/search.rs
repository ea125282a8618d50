//! The search for a deferred atom: depth-first through the rules of the variant that fits the
//! bound arguments, with the calls of recursive relations guarded or tabled.

use super::rules::{Deferred, Goal};
use super::tables::{Rows, StateRows, INDEXED_ROWS};
use super::{FUNC, UNBOUND, VAR};
use std::collections::{HashMap, HashSet};

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
    checks: &'c Deferred,
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
    /// Emptied buffers, kept to be used again: a search makes thousands of calls, each of
    /// which needs an environment, a trail and an answer.
    spare: Vec<Vec<u32>>,
}

impl Deferred {
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
            spare: Vec::new(),
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
    fn matches(&self, arg: u32, value: u32, env: &mut [u32], trail: &mut Vec<u32>) -> bool {
        if arg & VAR != 0 {
            let slot = (arg & !VAR) as usize;
            return if env[slot] == UNBOUND {
                env[slot] = value;
                trail.push(slot as u32);
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
    fn matches_all(&self, args: &[u32], values: &[u32], env: &mut [u32], trail: &mut Vec<u32>) -> bool {
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

    /// An empty buffer, spare or new.
    fn buffer(&mut self) -> Vec<u32> {
        let mut buffer = self.spare.pop().unwrap_or_default();
        buffer.clear();
        buffer
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
        let (mut trail, mut answer, mut env) = (self.buffer(), self.buffer(), self.buffer());
        let mut stopped = false;
        for rule in &variant.rules {
            // Each rule has its own variables: the bindings of the one before are not undone in
            // this one's (smaller, perhaps) environment.
            trail.clear();
            env.clear();
            env.resize(rule.vars as usize, UNBOUND);
            if !self.matches_all(&rule.head, args, &mut env, &mut trail) {
                continue;
            }
            stopped = self.solve(&rule.goals, &mut env, &mut |search, env| {
                answer.clear();
                for &h in &rule.head {
                    let value = search.build(h, env);
                    answer.push(value);
                }
                !answer.contains(&UNBOUND) && on_answer(search, &answer)
            });
            if stopped {
                break;
            }
        }
        self.spare.extend([trail, answer, env]);
        stopped
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
                // With its first column free a lookup scans every row, unless the rows are
                // ordered by the columns it binds: a static table's once for all searches, the
                // holding rows of a state table once for the state's searches.
                let ordered = first.is_none() && mask != 0 && table.arity <= 64;
                let index = match (table.state, read_state) {
                    _ if !ordered || rows.rows.len() < INDEXED_ROWS * width => None,
                    (false, _) => Some(checks.index(*t, mask)),
                    (true, false) => Some(self.state_rows.index(*t, mask, rows)),
                    (true, true) => None,
                };
                if let Some(index) = index {
                    // Rows whose bound columns are the key's, through the index on them.
                    let all = rows.rows;
                    let row = |r: u32| &all[r as usize * width..(r as usize + 1) * width];
                    let columns = |r: u32| (0..width).filter(move |&c| mask >> c & 1 != 0).map(move |c| row(r)[c]);
                    let bound = || key.iter().copied().filter(|&v| v != UNBOUND);
                    let start = index.partition_point(|&r| columns(r).lt(bound()));
                    let matching = index[start..].iter().take_while(|&&r| columns(r).eq(bound()));
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
                let mut trail = self.buffer();
                let stopped = self.call(*relation, &key, &mut |search, answer| {
                    if !search.matches_all(args, answer, env, &mut trail) {
                        return false;
                    }
                    let stop = search.solve(rest, env, k);
                    undo(env, &mut trail);
                    stop
                });
                trail.clear();
                self.spare.push(trail);
                stopped
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
        let mut trail = self.buffer();
        let mut stopped = false;
        for row in rows {
            if !self.matches_all(args, &row[..args.len()], env, &mut trail) {
                continue;
            }
            if self.solve(rest, env, k) {
                stopped = true;
                break;
            }
            undo(env, &mut trail);
        }
        trail.clear();
        self.spare.push(trail);
        stopped
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
fn undo(env: &mut [u32], trail: &mut Vec<u32>) {
    for v in trail.drain(..) {
        env[v as usize] = UNBOUND;
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
