//! The relations deferred to run-time checks: the runtime's description of them
//! (`gdl_runtime::prover::Deferred`), with the rows of the static relations and state facts that
//! their rules read as tables, for a game too large to ground in full.

use super::builder::Builder;
use super::deferrable::Plan;
use super::error::Undeferrable;
use super::relaxed::Alternative;
use crate::ast::{Atom, Term};
use crate::datalog::compile::Basic;
use crate::datalog::store::{TermId, TermRead};
use gdl_runtime::prover::{
    Deferred, Goal, Pattern, Relation as CheckRelation, Rule as CheckRule, Table as CheckTable, Variant, FUNC, VAR,
};
use std::collections::{BTreeMap, BTreeSet};

impl Builder<'_> {
    /// The symbol of a constant term, or an error for a compound one (checks compare symbols).
    fn check_symbol(&self, id: TermId, symbols: &mut BTreeMap<String, u32>) -> Result<u32, Undeferrable> {
        if !self.eval.store.node(id).args.is_empty() {
            return Err(Undeferrable::CompoundTerm(self.kif(id)));
        }
        let name = self.kif(id);
        let next = symbols.len() as u32;
        Ok(*symbols.entry(name).or_insert(next))
    }

    /// A ground term as an argument of a check atom: its symbol, or a compound term added to
    /// `patterns`.
    fn check_term(&self, id: TermId, symbols: &mut BTreeMap<String, u32>, patterns: &mut Vec<Pattern>) -> u32 {
        let node = self.eval.store.node(id);
        if node.args.is_empty() {
            let next = symbols.len() as u32;
            return *symbols.entry(self.kif(id)).or_insert(next);
        }
        let args = node.args.iter().map(|&a| self.check_term(a, symbols, patterns)).collect();
        let next = symbols.len() as u32;
        let functor = *symbols.entry(self.symbols.name(node.sym).to_string()).or_insert(next);
        patterns.push(Pattern { functor, args });
        FUNC | (patterns.len() - 1) as u32
    }

    /// The runtime's description of the checked relations, with the names of the atoms the
    /// ground rules read. Symbols are numbered in the byte order of their names.
    pub(super) fn checks(
        &mut self,
        plan: &Plan,
        alternatives: &[Alternative<'_>],
        dynamic: &BTreeSet<String>,
    ) -> Result<(Deferred, Vec<String>), Undeferrable> {
        let mut symbols: BTreeMap<String, u32> = BTreeMap::new();
        let relation_ids: BTreeMap<&str, u32> =
            plan.relations.keys().enumerate().map(|(i, name)| (name.as_str(), i as u32)).collect();
        let mut table_ids: BTreeMap<(bool, String, usize), u32> = BTreeMap::new();
        let mut checks = Deferred::default();
        for (name, checked) in &plan.relations {
            let arity = alternatives.iter().find(|a| &a.head.name == name).map_or(0, |a| a.head.args.len());
            let mut relation = CheckRelation {
                arity: arity as u32,
                recursive: checked.recursive,
                tabled: checked.tabled,
                variants: Vec::new(),
            };
            for (&bound, rules) in &checked.variants {
                let mut variant = Variant { bound, rules: Vec::new() };
                'rules: for (k, order) in rules {
                    let alternative = &alternatives[*k];
                    let var_ids: BTreeMap<&str, u32> =
                        alternative.vars.iter().enumerate().map(|(i, &v)| (v, i as u32)).collect();
                    let arg = |t: &Term, symbols: &mut BTreeMap<String, u32>, patterns: &mut Vec<Pattern>| {
                        rule_arg(t, &var_ids, symbols, patterns)
                    };
                    let head =
                        alternative.head.args.iter().map(|t| arg(t, &mut symbols, &mut checks.patterns)).collect();
                    let mut goals = Vec::new();
                    for &j in order {
                        let (atom, positive) = match alternative.body[j] {
                            Basic::Distinct(x, y) => {
                                let (a, b) = (
                                    arg(x, &mut symbols, &mut checks.patterns),
                                    arg(y, &mut symbols, &mut checks.patterns),
                                );
                                goals.push(Goal::Distinct { positive: true, a, b });
                                continue;
                            }
                            Basic::Equal(x, y) => {
                                let (a, b) = (
                                    arg(x, &mut symbols, &mut checks.patterns),
                                    arg(y, &mut symbols, &mut checks.patterns),
                                );
                                goals.push(Goal::Distinct { positive: false, a, b });
                                continue;
                            }
                            Basic::Pos(a) => (a, true),
                            Basic::Neg(a) => (a, false),
                        };
                        if let Some(&relation) = relation_ids.get(atom.name.as_str()) {
                            let args = atom.args.iter().map(|t| arg(t, &mut symbols, &mut checks.patterns)).collect();
                            goals.push(Goal::Call { relation, positive, args });
                            continue;
                        }
                        let (state, name, args): (bool, String, Vec<&Term>) = if atom.name == "true" {
                            match &atom.args[0] {
                                Term::Func(f, args, _) => (true, f.clone(), args.iter().collect()),
                                Term::Const(c, _) => (true, c.clone(), Vec::new()),
                                Term::Var(..) => return Err(Undeferrable::WholeFact),
                            }
                        } else if dynamic.contains(&atom.name) {
                            return Err(Undeferrable::StateDependent(atom.name.clone()));
                        } else {
                            (false, atom.name.clone(), atom.args.iter().collect())
                        };
                        if !state && args.is_empty() {
                            // A static proposition is known now: it holds, or the rule never fires.
                            let holds = self.relations.get(&name, 0).is_some_and(|r| !self.eval.tables[r].is_empty());
                            if holds == positive {
                                continue;
                            }
                            continue 'rules;
                        }
                        let key = (state, name.clone(), args.len());
                        let table = match table_ids.get(&key) {
                            Some(&t) => t,
                            None => {
                                let t = checks.tables.len() as u32;
                                let table = self.check_table(state, &name, args.len(), &mut symbols)?;
                                checks.tables.push(table);
                                table_ids.insert(key, t);
                                t
                            }
                        };
                        let args = args.iter().map(|t| arg(t, &mut symbols, &mut checks.patterns)).collect();
                        goals.push(Goal::Table { table, positive, args });
                    }
                    variant.rules.push(CheckRule { vars: alternative.vars.len() as u32, head, goals });
                }
                relation.variants.push(variant);
            }
            checks.relations.push(relation);
        }
        let mut names = Vec::new();
        for (name, args) in std::mem::take(&mut self.deferred_atoms) {
            let mut text = format!("({name}");
            for &t in args.iter() {
                text.push(' ');
                text.push_str(&self.kif(t));
            }
            text.push(')');
            let args = args.iter().map(|&t| self.check_term(t, &mut symbols, &mut checks.patterns)).collect();
            let relation = *relation_ids.get(name.as_str()).ok_or_else(|| Undeferrable::NotChecked(name.clone()))?;
            checks.atoms.push((relation, args));
            names.push(text);
        }
        renumber_symbols(&mut checks, &symbols);
        Ok((checks, names))
    }

    /// The mean number of facts of static relation `atom` that share the arguments of `mask`
    /// (every fact when the mask is empty); `None` for a relation that is not static.
    pub(super) fn static_fanout(&self, atom: &Atom, mask: u64, dynamic: &BTreeSet<String>) -> Option<f64> {
        if atom.name == "true" || dynamic.contains(&atom.name) {
            return None;
        }
        let Some(facts) = self.relations.get(&atom.name, atom.args.len()).map(|r| &self.eval.tables[r]) else {
            return Some(0.0);
        };
        if facts.is_empty() {
            return Some(0.0);
        }
        let columns: Vec<usize> = (0..atom.args.len()).filter(|&c| c < 64 && mask >> c & 1 != 0).collect();
        let keys: BTreeSet<Vec<TermId>> = facts.facts().map(|f| columns.iter().map(|&c| f[c]).collect()).collect();
        Some(facts.len() as f64 / keys.len() as f64)
    }

    /// The rows of a static relation, or of the state's facts of one shape (each row then ends
    /// with its base fact's index).
    fn check_table(
        &self,
        state: bool,
        name: &str,
        arity: usize,
        symbols: &mut BTreeMap<String, u32>,
    ) -> Result<CheckTable, Undeferrable> {
        let mut table = CheckTable { arity: arity as u32, state, rows: Vec::new() };
        if state {
            for (index, &fact) in self.base_terms.iter().enumerate() {
                let node = self.eval.store.node(fact);
                if self.symbols.name(node.sym) != name || node.args.len() != arity {
                    continue;
                }
                for &a in node.args.iter() {
                    let symbol = self.check_symbol(a, symbols)?;
                    table.rows.push(symbol);
                }
                table.rows.push(index as u32);
            }
        } else if let Some(rel) = self.relations.get(name, arity) {
            for fact in self.eval.tables[rel].facts() {
                for &a in fact.iter() {
                    let symbol = self.check_symbol(a, symbols)?;
                    table.rows.push(symbol);
                }
            }
        }
        Ok(table)
    }
}

/// A term of a checked rule as the runtime reads it: a variable, a symbol, or a compound term
/// added to `patterns`.
fn rule_arg(
    term: &Term,
    var_ids: &BTreeMap<&str, u32>,
    symbols: &mut BTreeMap<String, u32>,
    patterns: &mut Vec<Pattern>,
) -> u32 {
    let symbol = |name: &str, symbols: &mut BTreeMap<String, u32>| {
        let next = symbols.len() as u32;
        *symbols.entry(name.to_string()).or_insert(next)
    };
    match term {
        Term::Var(v, _) => VAR | var_ids.get(v.as_str()).copied().unwrap_or(0),
        Term::Const(c, _) => symbol(c, symbols),
        Term::Func(f, args, _) => {
            let args = args.iter().map(|a| rule_arg(a, var_ids, symbols, patterns)).collect();
            let functor = symbol(f, symbols);
            patterns.push(Pattern { functor, args });
            FUNC | (patterns.len() - 1) as u32
        }
    }
}

/// Renumbers the symbols of `checks` in the byte order of their names, and sorts the tables
/// again.
fn renumber_symbols(checks: &mut Deferred, symbols: &BTreeMap<String, u32>) {
    let order: Vec<u32> = {
        let mut by_first_use = vec![0u32; symbols.len()];
        for (rank, (_, &id)) in symbols.iter().enumerate() {
            by_first_use[id as usize] = rank as u32;
        }
        by_first_use
    };
    let renumber = |a: u32| if a & (VAR | FUNC) != 0 { a } else { order[a as usize] };
    for pattern in &mut checks.patterns {
        pattern.functor = order[pattern.functor as usize];
        pattern.args.iter_mut().for_each(|a| *a = renumber(*a));
    }
    for rule in checks.relations.iter_mut().flat_map(|r| r.variants.iter_mut()).flat_map(|v| v.rules.iter_mut()) {
        rule.head.iter_mut().for_each(|a| *a = renumber(*a));
        for goal in &mut rule.goals {
            match goal {
                Goal::Call { args, .. } | Goal::Table { args, .. } => args.iter_mut().for_each(|a| *a = renumber(*a)),
                Goal::Distinct { a, b, .. } => {
                    *a = renumber(*a);
                    *b = renumber(*b);
                }
            }
        }
    }
    for table in &mut checks.tables {
        let (arity, width) = (table.arity as usize, table.arity as usize + usize::from(table.state));
        let mut rows: Vec<Vec<u32>> = table
            .rows
            .chunks_exact(width.max(1))
            .map(|row| row.iter().enumerate().map(|(i, &a)| if i < arity { order[a as usize] } else { a }).collect())
            .collect();
        rows.sort_unstable();
        rows.dedup();
        table.rows = rows.concat();
    }
    for (_, args) in &mut checks.atoms {
        args.iter_mut().for_each(|a| *a = renumber(*a));
    }
}
