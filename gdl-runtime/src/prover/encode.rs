//! The prover's data as words, for the table form of a compiled game: written by the compiler,
//! read and validated by the generated module so that evaluation cannot go out of bounds.

use super::rules::{Deferred, Goal, Pattern, Relation, Rule, Variant};
use super::tables::Table;
use super::{FUNC, VAR};

impl Deferred {
    /// Appends the checks as words (see [`Deferred::decode`]).
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

    /// Reads checks written by [`Deferred::encode`] from `words` at `*at`, checking every index
    /// and arity they hold so that evaluation cannot go out of bounds.
    pub fn decode(words: &[u32], at: &mut usize) -> Result<Deferred, String> {
        let mut word = || -> Result<u32, String> {
            let w = *words.get(*at).ok_or("the check tables end early")?;
            *at += 1;
            Ok(w)
        };
        let mut checks = Deferred::default();
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
