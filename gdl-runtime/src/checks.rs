//! Checks: the relations of a compiled game that are evaluated at run time, top-down, because
//! grounding them would be too large. The ground program asks for a check atom (a relation
//! with constant arguments) as one of its literals; the check's rules are searched depth-first
//! against the current state, the way a Prolog prover would, with static relations and the
//! state's facts as sorted tables.
//!
//! Terms are symbols numbered by the compiler (`u32`); an argument of a rule with bit 31 set is
//! a variable of the rule, numbered by the low bits. The compiler orders every rule body for
//! each pattern of bound arguments the relation is called with (a *variant*), so that a
//! negation, a `distinct` and a call of a recursive relation always find their arguments bound.
//! A recursive relation is only called with all its arguments bound, and a call that repeats
//! one of its callers fails, so the search ends: a shortest proof never repeats a goal.

/// The mark of a variable argument.
pub const VAR: u32 = 1 << 31;
/// The value of a variable not bound yet.
const UNBOUND: u32 = u32::MAX;

/// The checks of one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    pub relations: Vec<Relation>,
    pub tables: Vec<Table>,
    /// The ground atoms the program reads: a relation and its constant arguments.
    pub atoms: Vec<(u32, Vec<u32>)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relation {
    pub arity: u32,
    /// Whether the relation depends on itself; it is then only called with every argument bound.
    pub recursive: bool,
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

    /// The rows whose first column is `first` (every row when it is unbound).
    fn candidates(&self, first: Option<u32>) -> &[u32] {
        let width = self.width();
        match (first, width) {
            (_, 0) => &[],
            (Some(value), _) if self.arity > 0 => {
                let rows = self.rows.len() / width;
                let start = partition_rows(rows, |i| self.rows[i * width] < value);
                let end = partition_rows(rows, |i| self.rows[i * width] <= value);
                &self.rows[start * width..end * width]
            }
            _ => &self.rows,
        }
    }

    /// Whether the row of `key` (every column bound) is in the table and holds.
    fn contains(&self, key: &[u32], state: &[u64]) -> bool {
        let width = self.width();
        if width == 0 {
            return false;
        }
        let rows = self.rows.len() / width;
        let row = |i: usize| &self.rows[i * width..i * width + self.arity as usize];
        let at = partition_rows(rows, |i| row(i) < key);
        at < rows && row(at) == key && self.row_holds(&self.rows[at * width..(at + 1) * width], state)
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

/// The calls in progress, each as its relation and arguments: a call that repeats one fails.
type Stack = Vec<u32>;

impl Checks {
    /// Whether check atom `atom` holds in `state`.
    pub fn holds(&self, state: &[u64], atom: u32) -> bool {
        let (relation, args) = &self.atoms[atom as usize];
        let mut stack = Stack::new();
        self.call(state, *relation, args, &mut stack, &mut |_, _| true)
    }

    /// Calls `relation` with `args` (`UNBOUND` where the caller leaves an argument free) and
    /// hands every answer to `on_answer`, which returns whether to stop. Returns whether it was
    /// stopped.
    fn call(
        &self,
        state: &[u64],
        relation: u32,
        args: &[u32],
        stack: &mut Stack,
        on_answer: &mut dyn FnMut(&[u32], &mut Stack) -> bool,
    ) -> bool {
        let rel = &self.relations[relation as usize];
        let bound = args.iter().enumerate().fold(0u64, |m, (i, &a)| if a == UNBOUND { m } else { m | 1 << i });
        let guarded = rel.recursive && bound.count_ones() == rel.arity;
        if guarded {
            if in_progress(stack, relation, args) {
                return false;
            }
            stack.extend([relation, args.len() as u32]);
            stack.extend_from_slice(args);
        }
        // The variant for exactly these bound arguments, or one that needs fewer of them (its
        // order stays valid; the extra bindings only filter).
        let variant = rel
            .variants
            .iter()
            .filter(|v| v.bound & !bound == 0)
            .max_by_key(|v| v.bound.count_ones())
            .expect("the compiler orders every called pattern of a check");
        let mut stopped = false;
        for rule in &variant.rules {
            let mut env = vec![UNBOUND; rule.vars as usize];
            if !bind_head(&rule.head, args, &mut env) {
                continue;
            }
            let mut answer = vec![0; args.len()];
            stopped = self.solve(state, &rule.goals, &mut env, stack, &mut |env, stack| {
                for (slot, &h) in answer.iter_mut().zip(&rule.head) {
                    *slot = if h & VAR != 0 { env[(h & !VAR) as usize] } else { h };
                }
                on_answer(&answer, stack)
            });
            if stopped {
                break;
            }
        }
        if guarded {
            stack.truncate(stack.len() - 2 - args.len());
        }
        stopped
    }

    /// Searches for the bindings that satisfy `goals` in order, handing each to `k`.
    fn solve(
        &self,
        state: &[u64],
        goals: &[Goal],
        env: &mut Vec<u32>,
        stack: &mut Stack,
        k: &mut dyn FnMut(&mut Vec<u32>, &mut Stack) -> bool,
    ) -> bool {
        let Some((goal, rest)) = goals.split_first() else { return k(env, stack) };
        match goal {
            Goal::Distinct { positive, a, b } => {
                if (value(*a, env) != value(*b, env)) == *positive {
                    self.solve(state, rest, env, stack, k)
                } else {
                    false
                }
            }
            Goal::Table { table, positive: false, args } => {
                let key: Vec<u32> = args.iter().map(|&a| value(a, env)).collect();
                if self.tables[*table as usize].contains(&key, state) {
                    false
                } else {
                    self.solve(state, rest, env, stack, k)
                }
            }
            Goal::Table { table, positive: true, args } => {
                let table = &self.tables[*table as usize];
                let key: Vec<u32> = args.iter().map(|&a| value(a, env)).collect();
                if !key.contains(&UNBOUND) {
                    return table.contains(&key, state) && self.solve(state, rest, env, stack, k);
                }
                let width = table.width();
                for row in table.candidates(key.first().copied().filter(|&v| v != UNBOUND)).chunks_exact(width) {
                    if !table.row_holds(row, state) {
                        continue;
                    }
                    let mut newly = Vec::new();
                    if unify(args, &row[..args.len()], env, &mut newly) && self.solve(state, rest, env, stack, k) {
                        return true;
                    }
                    for v in newly {
                        env[v] = UNBOUND;
                    }
                }
                false
            }
            Goal::Call { relation, positive: false, args } => {
                let key: Vec<u32> = args.iter().map(|&a| value(a, env)).collect();
                if self.call(state, *relation, &key, stack, &mut |_, _| true) {
                    false
                } else {
                    self.solve(state, rest, env, stack, k)
                }
            }
            Goal::Call { relation, positive: true, args } => {
                let key: Vec<u32> = args.iter().map(|&a| value(a, env)).collect();
                self.call(state, *relation, &key, stack, &mut |answer, stack| {
                    let mut newly = Vec::new();
                    let stop = unify(args, answer, env, &mut newly) && self.solve(state, rest, env, stack, k);
                    for v in newly {
                        env[v] = UNBOUND;
                    }
                    stop
                })
            }
        }
    }
}

/// The value of an argument: its symbol, or its variable's binding (`UNBOUND` when free).
fn value(arg: u32, env: &[u32]) -> u32 {
    if arg & VAR != 0 {
        env[(arg & !VAR) as usize]
    } else {
        arg
    }
}

/// Matches arguments against symbols, binding free variables (recorded in `newly`).
fn unify(args: &[u32], values: &[u32], env: &mut [u32], newly: &mut Vec<usize>) -> bool {
    for (&a, &v) in args.iter().zip(values) {
        if a & VAR == 0 {
            if a != v {
                return false;
            }
            continue;
        }
        let slot = (a & !VAR) as usize;
        if env[slot] == UNBOUND {
            env[slot] = v;
            newly.push(slot);
        } else if env[slot] != v {
            return false;
        }
    }
    true
}

/// Binds a rule's head variables to the bound arguments of a call; false when they clash.
fn bind_head(head: &[u32], args: &[u32], env: &mut [u32]) -> bool {
    head.iter().zip(args).all(|(&h, &a)| {
        if a == UNBOUND {
            true
        } else if h & VAR == 0 {
            h == a
        } else {
            let slot = &mut env[(h & !VAR) as usize];
            if *slot == UNBOUND {
                *slot = a;
                true
            } else {
                *slot == a
            }
        }
    })
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
            out.extend([relation.arity, u32::from(relation.recursive), relation.variants.len() as u32]);
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
            let (arity, recursive, variants) = (word()?, word()? != 0, word()?);
            let mut relation = Relation { arity, recursive, variants: Vec::new() };
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
        checks.validate()?;
        Ok(checks)
    }

    fn validate(&self) -> Result<(), String> {
        let var_ok = |a: u32, vars: u32| a & VAR == 0 || (a & !VAR) < vars;
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
        if !self.tables.iter().all(|t| t.width() == 0 || t.rows.len() % t.width() == 0) {
            return Err("a check table has a partial row".to_string());
        }
        let atom_ok = |(r, args): &(u32, Vec<u32>)| {
            self.relations.get(*r as usize).is_some_and(|rel| rel.arity as usize == args.len())
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
            variants: vec![Variant {
                bound: 0b01,
                rules: vec![Rule { vars: 2, head: vec![var(0), var(1)], goals: vec![open_goal(var(0), var(1))] }],
            }],
        };
        let elsewhere = Relation {
            arity: 1,
            recursive: false,
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
}
