//! Which components of a query one evaluation needs. A rule whose body tests the state or the
//! moves (`(true shoot)`, `(does ?p (shoot ?x ?y))`) derives nothing in an evaluation whose
//! inputs fail the test, and a relation that only such rules read need not be computed. Before
//! a query's components run, a pass from its output back towards its inputs marks the
//! relations read by the rules whose tests pass, and only the components with a marked relation
//! run; an evaluation that answers several queries (a random step's terminal, legal and next)
//! runs each component at most once.
//!
//! The tests are on the inputs only, which an evaluation loads before it runs a component, so a
//! rule skipped by the pass would have derived nothing.

use super::store::TermId;
use super::{run, Component, Eval, Queries, Table};

/// A test of the inputs that a rule's body makes, without which the rule derives nothing.
#[derive(Debug)]
pub enum Guard {
    /// The input relation has a fact.
    Any(usize),
    /// The input relation has this fact.
    Has(usize, &'static [TermId]),
    /// The input relation lacks this fact.
    Lacks(usize, &'static [TermId]),
}

impl Guard {
    /// Whether the test passes on the input tables `tables`.
    #[inline]
    fn passes(&self, tables: &[Table]) -> bool {
        match *self {
            Guard::Any(rel) => !tables[rel].is_empty(),
            Guard::Has(rel, fact) => tables[rel].contains(fact),
            Guard::Lacks(rel, fact) => !tables[rel].contains(fact),
        }
    }
}

/// What one rule of a component needs: its tests of the inputs, and the relations computed in
/// the evaluation that its body reads (a rule that reads none is not listed).
#[derive(Debug)]
pub struct Demand {
    /// The tests; the rule derives nothing unless all pass.
    pub guards: &'static [Guard],
    /// The relations read, each once.
    pub reads: &'static [usize],
}

/// A set of relations, as bits.
#[derive(Debug, Default)]
struct Relations(Vec<u64>);

impl Relations {
    /// Empties the set, sized for relations below `count`.
    fn reset(&mut self, count: usize) {
        self.0.clear();
        self.0.resize(count.div_ceil(64), 0);
    }

    /// Adds `rel`, when it is below the count the set was sized for.
    #[inline]
    fn insert(&mut self, rel: usize) {
        if let Some(word) = self.0.get_mut(rel / 64) {
            *word |= 1 << (rel % 64);
        }
    }

    #[inline]
    fn contains(&self, rel: usize) -> bool {
        self.0.get(rel / 64).is_some_and(|word| word & (1 << (rel % 64)) != 0)
    }
}

/// The components of a query in the order they run, the relation that answers it, and whether
/// some component may go unneeded (else every one runs without the pass).
#[derive(Debug)]
pub(super) struct Plan {
    components: Box<[&'static Component]>,
    output: usize,
    selective: bool,
}

impl Plan {
    /// The plan of the components `query` answering `output`.
    pub(super) fn new(query: &'static [Component], output: usize) -> Plan {
        let components: Box<[&'static Component]> = query.iter().filter(|c| !c.relations.is_empty()).collect();
        let selective = !Plan::needed_always(&components, output).iter().all(|&needed| needed);
        Plan { components, output, selective }
    }

    /// Whether each component is needed whatever the inputs: it computes the output, or a rule
    /// that tests no input reads it from a component needed always.
    fn needed_always(components: &[&Component], output: usize) -> Vec<bool> {
        let mut marked = vec![output];
        let mut needed = vec![false; components.len()];
        for (k, component) in components.iter().enumerate().rev() {
            if !component.relations.iter().any(|r| marked.contains(r)) {
                continue;
            }
            needed[k] = true;
            let unguarded = component.demands.iter().filter(|d| d.guards.is_empty());
            marked.extend(unguarded.flat_map(|d| d.reads.iter().copied()));
        }
        needed
    }

    /// Runs the components of the plan in `eval`, which has run no other plan: those it needs
    /// when the plan is selective, else all.
    #[inline]
    pub(super) fn run(&self, eval: &mut Eval<'_>) {
        if self.selective {
            self.run_after(eval, true);
        } else {
            self.components.iter().for_each(|component| run(eval, component));
        }
    }

    /// Runs the components of the plan that `eval` needs (all when the plan is not selective)
    /// and has not run, in order, and records them as run: `fresh` when `eval` has run no other
    /// plan.
    fn run_after(&self, eval: &mut Eval<'_>, fresh: bool) {
        let chosen = SCRATCH.with_borrow_mut(|scratch| {
            if fresh {
                scratch.ran.reset(eval.tables.len());
            }
            let mut chosen = std::mem::take(&mut scratch.chosen);
            chosen.clear();
            if self.selective {
                self.choose(&eval.tables, scratch, &mut chosen);
            } else {
                self.choose_not_run(scratch, &mut chosen);
            }
            chosen
        });
        for &k in chosen.iter().rev() {
            run(eval, self.components[k]);
        }
        SCRATCH.with_borrow_mut(|scratch| scratch.chosen = chosen);
    }

    /// The first relation of component `k`, which stands for it in the set of those run.
    #[inline]
    fn first(&self, k: usize) -> usize {
        self.components[k].relations[0]
    }

    /// Puts in `chosen`, last first, the components not yet run, and records them as run.
    fn choose_not_run(&self, scratch: &mut Scratch, chosen: &mut Vec<usize>) {
        for k in (0..self.components.len()).rev() {
            if !scratch.ran.contains(self.first(k)) {
                scratch.ran.insert(self.first(k));
                chosen.push(k);
            }
        }
    }

    /// Puts in `chosen`, last first, the components not yet run whose relations the output
    /// needs through rules whose tests of the inputs `tables` pass, and records them as run.
    fn choose(&self, tables: &[Table], scratch: &mut Scratch, chosen: &mut Vec<usize>) {
        let Scratch { ran, needed, .. } = scratch;
        needed.reset(tables.len());
        needed.insert(self.output);
        for (k, component) in self.components.iter().enumerate().rev() {
            let first = component.relations[0];
            if ran.contains(first) || !component.relations.iter().any(|&r| needed.contains(r)) {
                continue;
            }
            ran.insert(first);
            chosen.push(k);
            for rule in component.demands {
                if rule.guards.iter().all(|guard| guard.passes(tables)) {
                    rule.reads.iter().for_each(|&r| needed.insert(r));
                }
            }
        }
    }
}

/// The working sets of the pass, kept on each thread between evaluations so that the pass
/// allocates nothing once they have grown.
#[derive(Debug, Default)]
struct Scratch {
    /// The first relation of each component that the evaluation being made has run: a random
    /// step answers terminal, legal and next in one evaluation, and runs a component once.
    ran: Relations,
    /// The relations the query being answered needs.
    needed: Relations,
    /// The components chosen to run, as positions in a plan, last first.
    chosen: Vec<usize>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// The plan of each query of a program, and how a random step runs them.
#[derive(Debug)]
pub(super) struct Plans {
    pub(super) legal: Plan,
    pub(super) next: Plan,
    pub(super) terminal: Plan,
    pub(super) goal: Plan,
    pub(super) sees: Plan,
    /// When no plan of a random step is selective: the components of `terminal`, then those of
    /// `legal` and of `next` that an earlier query has not run, listed once for every step.
    step: Option<[Box<[&'static Component]>; 3]>,
    /// The components of `goal` that `terminal`'s do not include.
    goal_after_terminal: Box<[&'static Component]>,
}

impl Plans {
    /// The plans of `program`'s queries.
    pub(super) fn new(program: &'static super::Program) -> Plans {
        let (queries, outputs) = (&program.queries, &program.outputs);
        let terminal = Plan::new(queries.terminal, outputs.terminal.relation);
        let legal = Plan::new(queries.legal, outputs.legal.relation);
        let next = Plan::new(queries.next, outputs.next.relation);
        let step = [&terminal, &legal, &next].iter().all(|plan| !plan.selective).then(|| step_lists(queries));
        Plans {
            legal,
            next,
            terminal,
            goal: Plan::new(queries.goal, outputs.goal.relation),
            sees: Plan::new(queries.sees, outputs.sees.relation),
            step,
            goal_after_terminal: not_in(queries.goal, queries.terminal),
        }
    }

    /// Runs the components of `goal` in `eval`, which has run part 0 (`terminal`) of a random
    /// step and no other: how a random step that found the state terminal answers its goals
    /// too.
    pub(super) fn run_goal_after_terminal(&self, eval: &mut Eval<'_>) {
        match &self.step {
            Some(_) => self.goal_after_terminal.iter().for_each(|component| run(eval, component)),
            None => self.goal.run_after(eval, false),
        }
    }

    /// Runs the components of part `phase` of a random step (0 `terminal`, 1 `legal`, 2
    /// `next`) in `eval`, which has run the parts before it.
    #[inline]
    pub(super) fn run_step(&self, phase: usize, eval: &mut Eval<'_>) {
        match &self.step {
            Some(lists) => lists[phase].iter().for_each(|component| run(eval, component)),
            None => [&self.terminal, &self.legal, &self.next][phase].run_after(eval, phase == 0),
        }
    }
}

/// The components of `query` that `before` does not include (a component is known by its first
/// relation).
fn not_in(query: &'static [Component], before: &'static [Component]) -> Box<[&'static Component]> {
    let firsts: Vec<usize> = before.iter().filter_map(|c| c.relations.first().copied()).collect();
    query.iter().filter(|c| c.relations.first().is_some_and(|first| !firsts.contains(first))).collect()
}

/// The components that a random step of one evaluation runs for `terminal`, `legal` and `next`
/// in turn: each query's that an earlier one did not run (a component is known by its first
/// relation).
fn step_lists(queries: &'static Queries) -> [Box<[&'static Component]>; 3] {
    let mut ran = Vec::new();
    [queries.terminal, queries.legal, queries.next].map(|query| {
        let mut new = |component: &&'static Component| match component.relations.first() {
            Some(first) if !ran.contains(first) => {
                ran.push(*first);
                true
            }
            _ => false,
        };
        query.iter().filter(|component| new(component)).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifted::store::{Overlay, Terms};
    use crate::lifted::{Derived, Join};
    use std::cell::Cell;

    // Relation 0 is an input; 1 is computed from nothing; 2 copies 1 when the input has the fact
    // `[5]`, and 3 copies 1 whatever the input holds.
    thread_local! {
        static MADE: Cell<usize> = const { Cell::new(0) };
    }

    fn make_one(_: &mut Eval<'_>, _: (usize, usize), out: &mut Derived) {
        MADE.set(MADE.get() + 1);
        out.push(1, &[9]);
    }

    fn copy_one_if_five(eval: &mut Eval<'_>, _: (usize, usize), out: &mut Derived) {
        if eval.tables[0].contains(&[5]) {
            eval.tables[1].facts().for_each(|fact| out.push(2, fact));
        }
    }

    fn copy_one(eval: &mut Eval<'_>, _: (usize, usize), out: &mut Derived) {
        eval.tables[1].facts().for_each(|fact| out.push(3, fact));
    }

    static IF_FIVE: [Guard; 1] = [Guard::Has(0, &[5])];
    static GUARDED: [Demand; 1] = [Demand { guards: &IF_FIVE, reads: &[1] }];
    static UNGUARDED: [Demand; 1] = [Demand { guards: &[], reads: &[1] }];

    const MAKE_ONE: Component = Component {
        relations: &[1],
        rules: &[make_one as Join],
        variants: &[],
        recursive: false,
        indexes: &[],
        demands: &[],
    };
    const COPY_IF_FIVE: Component = Component {
        relations: &[2],
        rules: &[copy_one_if_five as Join],
        variants: &[],
        recursive: false,
        indexes: &[],
        demands: &GUARDED,
    };
    const COPY: Component = Component {
        relations: &[3],
        rules: &[copy_one as Join],
        variants: &[],
        recursive: false,
        indexes: &[],
        demands: &UNGUARDED,
    };

    /// The query of relation 2, and of relation 3, as gdlc lists them: each with every component
    /// it reads.
    static OF_TWO: [Component; 2] = [MAKE_ONE, COPY_IF_FIVE];
    static OF_THREE: [Component; 2] = [MAKE_ONE, COPY];
    static ALL: [Component; 3] = [MAKE_ONE, COPY_IF_FIVE, COPY];

    /// Runs `f` on an evaluation whose input (relation 0) holds `input`, and gives the number of
    /// times relation 1 was computed and the facts of relations 1 to 3.
    fn evaluate(input: &[u32], f: impl FnOnce(&mut Eval<'_>)) -> (usize, [usize; 3]) {
        let terms = Terms::default();
        let mut eval = Eval { store: Overlay::new(&terms), tables: vec![Table::default(); 4], fixed: &[] };
        for &term in input {
            eval.tables[0].insert(&[term]);
        }
        MADE.set(0);
        f(&mut eval);
        (MADE.get(), [1, 2, 3].map(|rel| eval.tables[rel].len()))
    }

    #[test]
    fn a_relation_read_only_by_rules_whose_test_fails_is_not_computed() {
        let plan = Plan::new(&OF_TWO, 2);
        assert!(plan.selective);
        assert_eq!(evaluate(&[4], |eval| plan.run(eval)), (0, [0, 0, 0]));
        assert_eq!(evaluate(&[4, 5], |eval| plan.run(eval)), (1, [1, 1, 0]));
    }

    #[test]
    fn a_relation_read_by_a_rule_without_tests_is_always_computed() {
        let plan = Plan::new(&OF_THREE, 3);
        assert!(!plan.selective);
        assert_eq!(evaluate(&[4], |eval| plan.run(eval)), (1, [1, 0, 1]));
    }

    #[test]
    fn a_component_that_the_output_does_not_read_is_not_run() {
        let plan = Plan::new(&ALL, 3);
        assert!(plan.selective);
        assert_eq!(evaluate(&[5], |eval| plan.run(eval)), (1, [1, 0, 1]));
    }

    #[test]
    fn plans_run_one_after_another_compute_each_component_once() {
        let (of_two, of_three) = (Plan::new(&OF_TWO, 2), Plan::new(&OF_THREE, 3));
        // The first plan skips relation 1; the second computes it.
        let made = evaluate(&[4], |eval| {
            of_two.run_after(eval, true);
            of_three.run_after(eval, false);
        });
        assert_eq!(made, (1, [1, 0, 1]));
        // The first plan computes relation 1; the second does not again.
        let made = evaluate(&[5], |eval| {
            of_two.run_after(eval, true);
            of_three.run_after(eval, false);
        });
        assert_eq!(made, (1, [1, 1, 1]));
        // The other way round, and a fresh evaluation forgets what the last one ran.
        let made = evaluate(&[5], |eval| {
            of_three.run_after(eval, true);
            of_two.run_after(eval, false);
        });
        assert_eq!(made, (1, [1, 1, 1]));
    }

    #[test]
    fn guards_test_the_input_tables() {
        let mut tables = vec![Table::default(); 2];
        tables[0].insert(&[5]);
        assert!(Guard::Any(0).passes(&tables) && !Guard::Any(1).passes(&tables));
        assert!(Guard::Has(0, &[5]).passes(&tables) && !Guard::Has(0, &[6]).passes(&tables));
        assert!(Guard::Lacks(0, &[6]).passes(&tables) && !Guard::Lacks(0, &[5]).passes(&tables));
    }

    #[test]
    fn a_set_of_relations_holds_what_was_put_in_until_reset() {
        let mut set = Relations::default();
        set.reset(130);
        [0, 64, 129].into_iter().for_each(|rel| set.insert(rel));
        assert!([0, 64, 129].iter().all(|&rel| set.contains(rel)));
        assert!(![1, 63, 65, 128, 500].iter().any(|&rel| set.contains(rel)));
        set.reset(130);
        assert!(!set.contains(64));
    }
}
