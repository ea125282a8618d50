//! Bottom-up evaluation of compiled rules, stratum by stratum, semi-naive within recursive
//! components: the stratified semantics of the specification (Defs. 13-14).

use super::compile::{CLit, CRule, PTerm, Pattern, RelId, VarId};
use super::store::{Overlay, Sym, TermId, TermRead, Terms};
pub(crate) use gdl_runtime::lifted::Table;
use rustc_hash::FxHashMap;

/// The value of a variable that is not bound yet.
const UNBOUND: TermId = TermId::MAX;

/// A term store that can also make new terms.
pub(crate) trait TermStore: TermRead {
    /// The id of the term `sym(args)`, made if it does not exist yet.
    fn intern_args(&mut self, sym: Sym, args: &[TermId]) -> TermId;
}

impl TermStore for Terms {
    fn intern_args(&mut self, sym: Sym, args: &[TermId]) -> TermId {
        Terms::intern_args(self, sym, args)
    }
}

impl TermStore for Overlay<'_> {
    fn intern_args(&mut self, sym: Sym, args: &[TermId]) -> TermId {
        Overlay::intern_args(self, sym, args)
    }
}

/// How a positive literal finds its matching facts, given what is bound before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Access {
    /// No argument is ground: scan every fact.
    Scan,
    /// Some arguments are ground: look the others up by an index on these positions.
    Index(Box<[usize]>),
    /// Every argument is ground: test membership.
    Member,
}

/// A rule ready for evaluation: which positive literals are recursive within its component, and
/// for each positive literal the argument position it can look up by index.
#[derive(Debug, Clone)]
pub(crate) struct PlannedRule {
    pub rule: usize,
    pub access: Vec<Access>,
    /// The access paths of each of the rule's delta variants.
    pub variant_access: Vec<Vec<Access>>,
}

/// A strongly connected component of relations and the rules that define them.
#[derive(Debug, Clone)]
pub(crate) struct Component {
    pub relations: Vec<RelId>,
    pub rules: Vec<PlannedRule>,
    pub recursive: bool,
}

/// For each literal of `rule`, how it finds its facts once the literals before it are matched.
pub(crate) fn access_paths(rule: &CRule) -> Vec<Access> {
    access_paths_from(rule, vec![false; rule.num_vars])
}

/// [`access_paths`] when the variables marked in `bound` are bound before the body (those of
/// the head, when the rule is asked whether it derives a given fact).
pub(crate) fn access_paths_from(rule: &CRule, mut bound: Vec<bool>) -> Vec<Access> {
    let mut out = Vec::with_capacity(rule.body.len());
    for lit in &rule.body {
        match lit {
            CLit::Pos(p) => {
                let ground: Box<[usize]> = (0..p.args.len()).filter(|&i| is_bound(&p.args[i], &bound)).collect();
                out.push(if ground.len() == p.args.len() {
                    Access::Member
                } else if ground.is_empty() {
                    Access::Scan
                } else {
                    Access::Index(ground)
                });
                for a in p.args.iter() {
                    mark_vars(a, &mut bound);
                }
            }
            _ => out.push(Access::Scan),
        }
    }
    out
}

/// The literals of `rule` that look their facts up by index, given its access paths `access`:
/// each one's relation and the positions of the index.
pub(crate) fn indexed_reads<'r>(rule: &'r CRule, access: &'r [Access]) -> impl Iterator<Item = (RelId, &'r [usize])> {
    rule.body.iter().zip(access).filter_map(|(lit, access)| match (lit, access) {
        (CLit::Pos(p), Access::Index(positions)) => Some((p.rel, &positions[..])),
        _ => None,
    })
}

/// The variables of a rule of `num_vars` variables that the positive literals of `body` bind.
pub(crate) fn bound_by(body: &[CLit], num_vars: usize) -> Vec<bool> {
    let mut bound = vec![false; num_vars];
    for lit in body {
        if let CLit::Pos(p) = lit {
            p.args.iter().for_each(|arg| mark_vars(arg, &mut bound));
        }
    }
    bound
}

/// Whether `lit` binds no variable once those marked in `bound` are: every term it reads is
/// bound, so that it is a test.
pub(crate) fn binds_nothing(lit: &CLit, bound: &[bool]) -> bool {
    match lit {
        CLit::Pos(p) | CLit::Neg(p) => p.args.iter().all(|arg| is_bound(arg, bound)),
        CLit::Distinct(x, y) | CLit::Equal(x, y) => is_bound(x, bound) && is_bound(y, bound),
    }
}

/// Whether every variable of `p` is marked in `bound`.
pub(crate) fn is_bound(p: &PTerm, bound: &[bool]) -> bool {
    match p {
        PTerm::Var(v) => bound[*v as usize],
        PTerm::Ground(_) => true,
        PTerm::Func(_, args) => args.iter().all(|a| is_bound(a, bound)),
    }
}

/// Marks in `bound` every variable of `p`.
pub(crate) fn mark_vars(p: &PTerm, bound: &mut [bool]) {
    match p {
        PTerm::Var(v) => bound[*v as usize] = true,
        PTerm::Ground(_) => {}
        PTerm::Func(_, args) => args.iter().for_each(|a| mark_vars(a, bound)),
    }
}

/// For every relation of a recursive component, the delta variants (as rule of the component,
/// variant of the rule) whose first literal reads it.
fn delta_readers(rules: &[CRule], component: &Component) -> FxHashMap<RelId, Vec<(usize, usize)>> {
    let mut readers: FxHashMap<RelId, Vec<(usize, usize)>> = FxHashMap::default();
    for (k, planned) in component.rules.iter().enumerate() {
        for (j, variant) in rules[planned.rule].delta_variants.iter().enumerate() {
            if let Some(CLit::Pos(p)) = variant.body.first() {
                readers.entry(p.rel).or_default().push((k, j));
            }
        }
    }
    readers
}

/// What an evaluation may spend, kept by its caller: the evaluation charges every step of a
/// join (a fact tried against a literal, a term built) and every new fact, and stops where the
/// budget says so, recording the relation it was deriving in [`Eval::exceeded`].
pub(crate) trait Budget {
    /// Charges `steps` steps of joins.
    fn charge(&mut self, steps: usize);
    /// Whether the steps charged so far go past the budget.
    fn overspent(&self) -> bool;
    /// Whether one more fact of `rel` may be derived while `pending` derived facts wait to be
    /// added to their tables.
    fn allows(&self, rel: RelId, pending: usize) -> bool;
    /// Counts a new fact of `rel`.
    fn count(&mut self, rel: RelId);
}

/// No limit: the budget of the interpreter's queries.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Unlimited;

impl Budget for Unlimited {
    #[inline]
    fn charge(&mut self, _steps: usize) {}

    #[inline]
    fn overspent(&self) -> bool {
        false
    }

    #[inline]
    fn allows(&self, _rel: RelId, _pending: usize) -> bool {
        true
    }

    #[inline]
    fn count(&mut self, _rel: RelId) {}
}

/// One evaluation: tables of the relations computed here, over read-only tables of relations
/// computed before (the static ones), within a budget.
pub(crate) struct Eval<'a, S, B = Unlimited> {
    pub store: S,
    pub rules: &'a [CRule],
    pub fixed: &'a [Table],
    pub is_fixed: &'a [bool],
    pub tables: Vec<Table>,
    /// What this evaluation may still spend.
    pub budget: B,
    /// The relation whose derivation went past the budget, if one did.
    pub exceeded: Option<RelId>,
}

impl<'a, S: TermStore, B: Budget> Eval<'a, S, B> {
    pub(crate) fn new(
        store: S,
        rules: &'a [CRule],
        fixed: &'a [Table],
        is_fixed: &'a [bool],
        num_relations: usize,
        budget: B,
    ) -> Self {
        let tables = vec![Table::default(); num_relations];
        Eval { store, rules, fixed, is_fixed, tables, budget, exceeded: None }
    }

    pub(crate) fn table(&self, rel: RelId) -> &Table {
        if self.is_fixed.get(rel).copied().unwrap_or(false) {
            &self.fixed[rel]
        } else {
            &self.tables[rel]
        }
    }

    /// Computes every relation of `component`, assuming all it depends on is complete.
    pub(crate) fn run(&mut self, component: &Component) {
        let rules = self.rules;
        for planned in &component.rules {
            let rule = &rules[planned.rule];
            let variants = rule.delta_variants.iter().zip(&planned.variant_access);
            for (r, accesses) in std::iter::once((rule, &planned.access)).chain(variants) {
                for (rel, positions) in indexed_reads(r, accesses) {
                    if !self.is_fixed.get(rel).copied().unwrap_or(false) {
                        self.tables[rel].index_for_reading(positions);
                    }
                }
            }
        }
        let mut derived: Vec<(RelId, Box<[TermId]>)> = Vec::new();
        // Every rule once over everything known.
        let mut seen: FxHashMap<RelId, usize> =
            component.relations.iter().map(|&r| (r, self.tables[r].len())).collect();
        for planned in &component.rules {
            self.fire(&rules[planned.rule], &planned.access, None, &mut derived);
        }
        let mut changed = self.add(std::mem::take(&mut derived));
        if !component.recursive {
            return;
        }
        let readers = delta_readers(rules, component);
        // Semi-naive rounds: each recursive literal in turn ranges over the last round's facts.
        // Only the variants that read a relation with new facts fire: a round costs what
        // changed, not the size of the component (a long cycle of relations takes as many
        // rounds as it has relations).
        while !changed.is_empty() && self.exceeded.is_none() {
            let mut ranges: FxHashMap<RelId, (usize, usize)> = FxHashMap::default();
            for rel in changed {
                let hi = self.tables[rel].len();
                let lo = seen.insert(rel, hi).unwrap_or(0);
                ranges.insert(rel, (lo, hi));
            }
            let mut firing: Vec<(usize, usize)> =
                ranges.keys().filter_map(|rel| readers.get(rel)).flatten().copied().collect();
            firing.sort_unstable();
            for (k, j) in firing {
                let planned = &component.rules[k];
                let variant = &rules[planned.rule].delta_variants[j];
                let CLit::Pos(p) = &variant.body[0] else { continue };
                self.fire(variant, &planned.variant_access[j], Some(ranges[&p.rel]), &mut derived);
            }
            changed = self.add(std::mem::take(&mut derived));
        }
    }

    /// Inserts derived facts; returns the relations that got new ones, in order. After the
    /// budget stopped the evaluation nothing is inserted: its caller discards what an
    /// evaluation stopped early computed, and inserting millions of facts would take longer
    /// than the budget allowed.
    fn add(&mut self, derived: Vec<(RelId, Box<[TermId]>)>) -> Vec<RelId> {
        let mut changed = Vec::new();
        if self.exceeded.is_some() {
            return changed;
        }
        for (rel, fact) in derived {
            if self.tables[rel].insert(&fact) {
                if changed.last() != Some(&rel) {
                    changed.push(rel);
                }
                self.budget.count(rel);
            }
        }
        changed.sort_unstable();
        changed.dedup();
        changed
    }

    /// Derives the heads of `rule` into `out`; with `delta`, its first literal ranges over
    /// only those facts of its relation.
    fn fire(
        &mut self,
        rule: &'a CRule,
        access: &[Access],
        delta: Option<(usize, usize)>,
        out: &mut Vec<(RelId, Box<[TermId]>)>,
    ) {
        let mut bindings = vec![UNBOUND; rule.num_vars];
        self.join(rule, access, 0, &mut bindings, delta, out);
    }

    fn join(
        &mut self,
        rule: &'a CRule,
        access: &[Access],
        at: usize,
        b: &mut Vec<TermId>,
        delta: Option<(usize, usize)>,
        out: &mut Vec<(RelId, Box<[TermId]>)>,
    ) {
        if self.exceeded.is_some() {
            return;
        }
        self.budget.charge(1);
        if self.budget.overspent() {
            self.exceeded = Some(rule.head.rel);
            return;
        }
        let Some(lit) = rule.body.get(at) else {
            if !self.budget.allows(rule.head.rel, out.len()) {
                self.exceeded = Some(rule.head.rel);
                return;
            }
            let fact: Box<[TermId]> = rule.head.args.iter().map(|a| self.build(a, b)).collect();
            out.push((rule.head.rel, fact));
            return;
        };
        match lit {
            CLit::Pos(p) => {
                let candidates: Vec<u32> = match (delta, &access[at]) {
                    (Some((lo, hi)), _) if at == 0 => (lo as u32..hi as u32).collect(),
                    (_, Access::Member) => {
                        let fact: Option<Box<[TermId]>> = p.args.iter().map(|a| self.resolve(a, b)).collect();
                        if fact.is_some_and(|f| self.table(p.rel).contains(&f)) {
                            self.join(rule, access, at + 1, b, delta, out);
                        }
                        return;
                    }
                    (_, Access::Index(positions)) => {
                        let key: Option<Box<[TermId]>> =
                            positions.iter().map(|&i| self.resolve(&p.args[i], b)).collect();
                        match key {
                            Some(key) => match self.table(p.rel).lookup(positions, &key) {
                                Some(found) => found.map(|i| i as u32).collect(),
                                None => (0..self.table(p.rel).len() as u32).collect(),
                            },
                            None => return,
                        }
                    }
                    (_, Access::Scan) => (0..self.table(p.rel).len() as u32).collect(),
                };
                self.budget.charge(candidates.len());
                let mut trail = Vec::new();
                for i in candidates {
                    trail.clear();
                    if self.match_fact(p, i as usize, b, &mut trail) {
                        self.join(rule, access, at + 1, b, delta, out);
                    }
                    for &v in &trail {
                        b[v as usize] = UNBOUND;
                    }
                }
            }
            CLit::Neg(p) => {
                let fact: Option<Box<[TermId]>> = p.args.iter().map(|a| self.resolve(a, b)).collect();
                if !fact.is_some_and(|f| self.table(p.rel).contains(&f)) {
                    self.join(rule, access, at + 1, b, delta, out);
                }
            }
            CLit::Distinct(x, y) | CLit::Equal(x, y) => {
                let same = self.build(x, b) == self.build(y, b);
                if same == matches!(lit, CLit::Equal(..)) {
                    self.join(rule, access, at + 1, b, delta, out);
                }
            }
        }
    }

    fn match_fact(&self, p: &Pattern, i: usize, b: &mut [TermId], trail: &mut Vec<VarId>) -> bool {
        let fact = self.table(p.rel).fact(i);
        p.args.iter().zip(fact.iter()).all(|(a, &t)| self.match_term(a, t, b, trail))
    }

    fn match_term(&self, p: &PTerm, t: TermId, b: &mut [TermId], trail: &mut Vec<VarId>) -> bool {
        match p {
            PTerm::Var(v) => {
                let slot = &mut b[*v as usize];
                if *slot == UNBOUND {
                    *slot = t;
                    trail.push(*v);
                    true
                } else {
                    *slot == t
                }
            }
            PTerm::Ground(g) => *g == t,
            PTerm::Func(sym, args) => {
                let node = self.store.node(t);
                node.sym == *sym
                    && node.args.len() == args.len()
                    && args.iter().zip(node.args.iter()).all(|(a, &u)| self.match_term(a, u, b, trail))
            }
        }
    }

    /// The id of a bound pattern's term, or `None` when no such term exists yet (so no fact can
    /// hold it).
    fn resolve(&self, p: &PTerm, b: &[TermId]) -> Option<TermId> {
        match p {
            PTerm::Var(v) => Some(b[*v as usize]).filter(|&t| t != UNBOUND),
            PTerm::Ground(g) => Some(*g),
            PTerm::Func(sym, args) => {
                let args: Option<Vec<TermId>> = args.iter().map(|a| self.resolve(a, b)).collect();
                self.store.find(*sym, &args?)
            }
        }
    }

    /// The id of a bound pattern's term, made if it does not exist yet.
    fn build(&mut self, p: &PTerm, b: &[TermId]) -> TermId {
        match p {
            PTerm::Var(v) => {
                debug_assert_ne!(b[*v as usize], UNBOUND, "rule ordering binds every variable first");
                b[*v as usize]
            }
            PTerm::Ground(g) => *g,
            PTerm::Func(sym, args) => {
                // Interning a term is a step of work too (deep lists cost one per level).
                self.budget.charge(1);
                let args: Vec<TermId> = args.iter().map(|a| self.build(a, b)).collect();
                self.store.intern_args(*sym, &args)
            }
        }
    }
}

impl<T: TermStore> TermStore for &mut T {
    fn intern_args(&mut self, sym: Sym, args: &[TermId]) -> TermId {
        (**self).intern_args(sym, args)
    }
}
