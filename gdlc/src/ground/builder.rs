//! Instantiation: builds the propositional program from the relaxed fixpoint, numbering base
//! facts and moves in the byte order of their text and grounding every rule alternative with a
//! state-dependent head over the bindings of its instance query.

use super::budget::Budget;
use super::relaxed::{instance_relation, Alternative};
use super::{Error, Ground, Lit, Node, Prop, Value};
use crate::ast::{Atom, Term};
use crate::datalog::compile::{Basic, RelId, Relations};
use crate::datalog::eval::{Component, Eval};
use crate::datalog::store::{encoded, Node as TermNode, Symbols, TermId, TermRead, Terms};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

/// The error for going past the limit in a relation, given what the budget spent.
pub(super) type TooLarge<'a> = &'a dyn Fn(RelId, &Budget) -> Error;

/// Builds the propositional program from the relaxed tables.
pub(super) struct Builder<'a> {
    pub(super) symbols: &'a Symbols,
    /// The relaxed fixpoint, with every relation but the instance queries computed.
    pub(super) eval: Eval<'a, &'a mut Terms, Budget>,
    pub(super) relations: &'a Relations,
    /// The component of each instance query.
    queries: FxHashMap<RelId, &'a Component>,
    too_large: TooLarge<'a>,
    nodes: Vec<Node>,
    node_ids: FxHashMap<(RelId, Box<[TermId]>), u32>,
    base_ids: FxHashMap<TermId, u32>,
    move_ids: FxHashMap<TermId, u32>,
    pub(super) base_terms: Vec<TermId>,
    move_terms: Vec<TermId>,
    role_ids: FxHashMap<TermId, u32>,
    /// The relations checked at run time, and the atoms of them that ground rules read.
    checked: &'a BTreeSet<String>,
    check_ids: FxHashMap<(String, Box<[TermId]>), u32>,
    pub(super) deferred_atoms: Vec<(String, Box<[TermId]>)>,
    /// Stop with [`Error::ChecksMany`] once the rules read this many atoms to check.
    pub(super) stop_at_checks: Option<usize>,
}

/// The base facts and moves of a game, numbered.
struct Numbered {
    base: Vec<String>,
    moves: Vec<String>,
    inputs: Vec<BTreeSet<u32>>,
    initial: BTreeSet<u32>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(
        symbols: &'a Symbols,
        eval: Eval<'a, &'a mut Terms, Budget>,
        relations: &'a Relations,
        queries: FxHashMap<RelId, &'a Component>,
        too_large: TooLarge<'a>,
        checked: &'a BTreeSet<String>,
    ) -> Builder<'a> {
        Builder {
            symbols,
            eval,
            relations,
            queries,
            too_large,
            nodes: Vec::new(),
            node_ids: FxHashMap::default(),
            base_ids: FxHashMap::default(),
            move_ids: FxHashMap::default(),
            base_terms: Vec::new(),
            move_terms: Vec::new(),
            role_ids: FxHashMap::default(),
            checked,
            check_ids: FxHashMap::default(),
            deferred_atoms: Vec::new(),
            stop_at_checks: None,
        }
    }
}

impl Builder<'_> {
    /// The propositional program: base facts, moves, the ground rules as nodes, and every
    /// output's value. Fails when an instance query goes past the budget.
    pub(super) fn run(
        &mut self,
        roles: &[String],
        alternatives: &[Alternative<'_>],
        dynamic: &BTreeSet<String>,
    ) -> Result<Ground, Error> {
        for (r, name) in roles.iter().enumerate() {
            let id = self.constant(name);
            self.role_ids.entry(id).or_insert(r as u32);
        }
        let numbered = self.number_facts_and_moves(roles.len());
        self.instantiate_rules(alternatives, dynamic).map_err(|error| match error {
            Error::ChecksMany { atoms, .. } => {
                Error::ChecksMany { atoms, known: numbered.base.iter().chain(&numbered.moves).cloned().collect() }
            }
            other => other,
        })?;
        let role_terms: Vec<TermId> = roles.iter().map(|r| self.constant(r)).collect();
        let legal = numbered
            .inputs
            .iter()
            .enumerate()
            .map(|(r, moves_of_role)| {
                moves_of_role
                    .iter()
                    .map(|&m| {
                        (m, self.output("legal", Box::new([role_terms[r], self.move_terms[m as usize]]), dynamic))
                    })
                    .collect()
            })
            .collect();
        let base_terms = self.base_terms.clone();
        let next = base_terms.iter().map(|&t| self.output("next", Box::new([t]), dynamic)).collect();
        let terminal = self.output("terminal", Box::new([]), dynamic);
        let goals = self.goals(roles.len(), dynamic);
        let (percepts, sees) = self.percepts(&role_terms, dynamic);
        let random_role = roles.iter().position(|r| r.eq_ignore_ascii_case(crate::interp::RANDOM_ROLE));
        let gdl_ii = random_role.is_some() || alternatives.iter().any(|a| a.head.name == "sees");
        Ok(Ground {
            roles: roles.to_vec(),
            base: numbered.base,
            moves: numbered.moves,
            inputs: numbered.inputs.into_iter().map(|s| s.into_iter().collect()).collect(),
            initial: numbered.initial.into_iter().collect(),
            nodes: std::mem::take(&mut self.nodes),
            legal,
            next,
            terminal,
            goals,
            gdl_ii,
            random_role,
            percepts,
            sees,
            cycles: Vec::new(),
            deferred: Default::default(),
            deferred_atoms: Vec::new(),
        })
    }

    /// Base facts and moves, numbered in the byte order of their canonical text, with the moves
    /// of each role and the initial facts.
    fn number_facts_and_moves(&mut self, roles: usize) -> Numbered {
        let true_facts = self.facts("true", 1);
        let base = self.numbered(true_facts.iter().map(|f| f[0]).collect(), Numbering::Base);
        let mut inputs = vec![BTreeSet::new(); roles];
        let does_facts: Vec<(u32, TermId)> =
            self.facts("does", 2).iter().filter_map(|f| self.role_ids.get(&f[0]).map(|&r| (r, f[1]))).collect();
        let moves = self.numbered(does_facts.iter().map(|&(_, m)| m).collect(), Numbering::Move);
        for (r, m) in does_facts {
            inputs[r as usize].insert(self.move_ids[&m]);
        }
        let initial: BTreeSet<u32> =
            self.facts("init", 1).iter().filter_map(|f| self.base_ids.get(&f[0])).copied().collect();
        Numbered { base, moves, inputs, initial }
    }

    /// Grounds every alternative with a state-dependent head over the bindings of its instance
    /// query, evaluated now and dropped once used.
    fn instantiate_rules(&mut self, alternatives: &[Alternative<'_>], dynamic: &BTreeSet<String>) -> Result<(), Error> {
        for (k, alternative) in alternatives.iter().enumerate() {
            if !dynamic.contains(&alternative.head.name) {
                continue;
            }
            let Some(rel) = self.relations.get(&instance_relation(k), alternative.vars.len()) else { continue };
            let Some(&query) = self.queries.get(&rel) else { continue };
            self.eval.run(query);
            if let Some(rel) = self.eval.exceeded {
                return Err((self.too_large)(rel, &self.eval.budget));
            }
            let instances = std::mem::take(&mut self.eval.tables[rel]);
            for binding in instances.facts() {
                let env: BTreeMap<&str, TermId> =
                    alternative.vars.iter().copied().zip(binding.iter().copied()).collect();
                if let Some(body) = self.ground_body(&alternative.body, &env, dynamic) {
                    let head = self.instantiate_atom(alternative.head, &env);
                    let node = self.node(head);
                    self.nodes[node as usize].rules.push(body);
                }
            }
            let atoms = self.deferred_atoms.len();
            if self.stop_at_checks.is_some_and(|limit| atoms >= limit) {
                // The base facts and moves are filled in by the caller, which numbered them.
                return Err(Error::ChecksMany { atoms, known: Vec::new() });
            }
        }
        Ok(())
    }

    /// For every role, its numeric goal values with when each holds, largest value first.
    fn goals(&mut self, roles: usize, dynamic: &BTreeSet<String>) -> Vec<Vec<(u32, Value)>> {
        let mut goals = vec![Vec::new(); roles];
        for fact in self.facts("goal", 2) {
            let Some(&r) = self.role_ids.get(&fact[0]) else { continue };
            let node = self.eval.store.node(fact[1]);
            let Some(value) = (node.args.is_empty()).then(|| self.symbols.name(node.sym).parse::<u32>().ok()).flatten()
            else {
                continue;
            };
            let v = self.output("goal", fact.clone(), dynamic);
            goals[r as usize].push((value, v));
        }
        for g in &mut goals {
            g.sort_by(|a, b| b.cmp(a));
        }
        goals
    }

    /// The percepts, numbered like moves by the byte order of their canonical text, and for
    /// every role the percepts it may get with when each is perceived.
    fn percepts(&mut self, role_terms: &[TermId], dynamic: &BTreeSet<String>) -> (Vec<String>, Vec<Vec<(u32, Value)>>) {
        let sees_facts: Vec<(u32, TermId)> =
            self.facts("sees", 2).iter().filter_map(|f| self.role_ids.get(&f[0]).map(|&r| (r, f[1]))).collect();
        let mut percept_terms: Vec<(String, TermId)> = sees_facts.iter().map(|&(_, p)| (self.kif(p), p)).collect();
        percept_terms.sort();
        percept_terms.dedup();
        let percept_ids: FxHashMap<TermId, u32> =
            percept_terms.iter().enumerate().map(|(i, &(_, t))| (t, i as u32)).collect();
        let mut sees_sets = vec![BTreeSet::new(); role_terms.len()];
        for &(r, p) in &sees_facts {
            sees_sets[r as usize].insert(percept_ids[&p]);
        }
        let sees = sees_sets
            .iter()
            .enumerate()
            .map(|(r, percepts)| {
                percepts
                    .iter()
                    .map(|&p| {
                        let args = Box::new([role_terms[r], percept_terms[p as usize].1]);
                        (p, self.output("sees", args, dynamic))
                    })
                    .collect()
            })
            .collect();
        (percept_terms.into_iter().map(|(text, _)| text).collect(), sees)
    }

    /// The facts of a relation of the relaxed program (none when it has no rules).
    fn facts(&self, name: &str, arity: usize) -> Vec<Box<[TermId]>> {
        self.relations
            .get(name, arity)
            .map(|r| self.eval.tables[r].facts().map(Box::from).collect())
            .unwrap_or_default()
    }

    /// Numbers distinct terms by the byte order of their canonical text; returns the texts.
    fn numbered(&mut self, mut ids: Vec<TermId>, numbering: Numbering) -> Vec<String> {
        ids.sort_unstable();
        ids.dedup();
        let mut texts: Vec<(String, TermId)> = ids.into_iter().map(|t| (self.kif(t), t)).collect();
        texts.sort();
        let (map, order) = match numbering {
            Numbering::Base => (&mut self.base_ids, &mut self.base_terms),
            Numbering::Move => (&mut self.move_ids, &mut self.move_terms),
        };
        for (i, (_, t)) in texts.iter().enumerate() {
            map.insert(*t, i as u32);
            order.push(*t);
        }
        texts.into_iter().map(|(s, _)| s).collect()
    }

    /// The value of output atom `name(args)`: exact for a static relation, a node otherwise.
    fn output(&mut self, name: &str, args: Box<[TermId]>, dynamic: &BTreeSet<String>) -> Value {
        let Some(rel) = self.relations.get(name, args.len()) else { return Value::Const(false) };
        if !dynamic.contains(name) {
            return Value::Const(self.eval.tables[rel].contains(&args));
        }
        match self.node_ids.get(&(rel, args)) {
            Some(&n) => Value::Lit(Lit::pos(Prop::Node(n))),
            None => Value::Const(false),
        }
    }

    /// The state-dependent literals of an instance, or `None` when the instance can never fire.
    fn ground_body(
        &mut self,
        body: &[Basic<'_>],
        env: &BTreeMap<&str, TermId>,
        dynamic: &BTreeSet<String>,
    ) -> Option<Vec<Lit>> {
        let mut lits = Vec::new();
        for b in body {
            let (atom, positive) = match *b {
                Basic::Pos(a) => (a, true),
                Basic::Neg(a) => (a, false),
                // Static literals and comparisons held in the instance query.
                Basic::Distinct(..) | Basic::Equal(..) => continue,
            };
            if !dynamic.contains(&atom.name) {
                continue;
            }
            if self.checked.contains(&atom.name) {
                let args: Box<[TermId]> = atom.args.iter().map(|t| self.instantiate(t, env)).collect();
                let atom = self.check_atom(&atom.name, args);
                lits.push(Lit { prop: Prop::Deferred(atom), positive });
                continue;
            }
            let (rel, args) = self.instantiate_atom(atom, env);
            let known = rel.is_some_and(|rel| self.eval.tables[rel].contains(&args));
            let prop = match atom.name.as_str() {
                "true" => self.base_ids.get(&args[0]).map(|&b| Prop::Base(b)),
                "does" => match (self.role_ids.get(&args[0]), self.move_ids.get(&args[1])) {
                    (Some(&r), Some(&m)) if known => Some(Prop::Does(r, m)),
                    _ => None,
                },
                _ if known => Some(Prop::Node(self.node((rel, args)))),
                _ => None,
            };
            match (prop, positive) {
                (Some(prop), _) => lits.push(Lit { prop, positive }),
                // A positive literal that never holds: the instance never fires.
                (None, true) => return None,
                // A negation of what never holds holds.
                (None, false) => {}
            }
        }
        Some(lits)
    }

    fn instantiate_atom(&mut self, atom: &Atom, env: &BTreeMap<&str, TermId>) -> (Option<RelId>, Box<[TermId]>) {
        let args = atom.args.iter().map(|t| self.instantiate(t, env)).collect();
        (self.relations.get(&atom.name, atom.args.len()), args)
    }

    fn instantiate(&mut self, term: &Term, env: &BTreeMap<&str, TermId>) -> TermId {
        match term {
            Term::Var(v, _) => env[v.as_str()],
            Term::Const(c, _) => self.constant(c),
            Term::Func(f, args, _) => {
                let args = args.iter().map(|a| self.instantiate(a, env)).collect();
                let sym = self.symbol(f);
                self.eval.store.intern(TermNode { sym, args })
            }
        }
    }

    fn symbol(&self, name: &str) -> u32 {
        // Every symbol of an instantiated rule occurs in the rules, which were compiled.
        self.symbols.get(name).unwrap_or(u32::MAX)
    }

    fn constant(&mut self, name: &str) -> TermId {
        let sym = self.symbol(name);
        self.eval.store.intern(TermNode { sym, args: Box::new([]) })
    }

    /// The node for a derived atom, made on first use.
    fn node(&mut self, (rel, args): (Option<RelId>, Box<[TermId]>)) -> u32 {
        let rel = rel.expect("a relation of the compiled rules");
        if let Some(&n) = self.node_ids.get(&(rel, args.clone())) {
            return n;
        }
        let name = &self.relations.keys[rel].0;
        let mut text = if args.is_empty() { name.clone() } else { format!("({name}") };
        for &a in args.iter() {
            text.push(' ');
            text.push_str(&self.kif(a));
        }
        if !args.is_empty() {
            text.push(')');
        }
        let n = self.nodes.len() as u32;
        self.nodes.push(Node { name: text, rules: Vec::new() });
        self.node_ids.insert((rel, args), n);
        n
    }

    /// The index of a checked atom, made on first use.
    fn check_atom(&mut self, name: &str, args: Box<[TermId]>) -> u32 {
        let key = (name.to_string(), args);
        if let Some(&k) = self.check_ids.get(&key) {
            return k;
        }
        let k = self.deferred_atoms.len() as u32;
        self.deferred_atoms.push(key.clone());
        self.check_ids.insert(key, k);
        k
    }

    /// A ground term in canonical KIF.
    pub(super) fn kif(&self, id: TermId) -> String {
        self.symbols.kif(&encoded(&*self.eval.store, id))
    }
}

/// Which numbering [`Builder::numbered`] makes.
enum Numbering {
    Base,
    Move,
}
