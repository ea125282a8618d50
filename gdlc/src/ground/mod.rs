//! Grounding: turns a checked game into a propositional program over base facts, moves and
//! derived propositions, the form the code generator compiles to straight-line Rust.
//!
//! The passes, one file each: [`strategy`] tries the grounding strategies in turn, each attempt
//! ([`instantiate`]) rewriting the rules ([`constant_fluents`], [`affected`], [`inline`],
//! [`deferrable`], [`decompose`], [`demand`]), computing what can ever hold ([`relaxed`], a
//! fixpoint under the grounder's [`budget`]) and instantiating every rule over it ([`builder`],
//! with the relations deferred to run time in [`deferred`]); [`simplify`] folds constants,
//! forwards aliases, merges equal propositions and removes what no output needs; [`legal_play`]
//! takes for granted, in the rules that read a move, what the move's legality requires;
//! [`thresholds`] turns rules that choose k of n conditions into a chain of counts; [`order`]
//! finds the evaluation order and the recursive groups with petgraph. For the table form,
//! [`de_morgan`] spreads a negated "or" of literals into the one rule that reads it, and
//! [`factor`] then takes literals that many rules of a proposition share out of them. Failures
//! are [`Error`]s.

pub mod affected;
mod budget;
mod builder;
pub(crate) mod cone;
pub mod constant_fluents;
pub mod coordinates;
pub mod de_morgan;
pub mod decompose;
pub mod deferrable;
mod deferred;
pub mod demand;
mod error;
pub mod factor;
pub mod inline;
mod instantiate;
pub mod layout;
pub mod legal_play;
pub mod order;
pub(crate) mod readers;
mod relaxed;
pub mod simplify;
mod strategy;
mod thresholds;
pub mod unreachable;

pub use error::{Error, Limit, Part, Undeferrable};

use crate::ast::Description;

/// Grounding settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// The most facts and rule instances the relaxed fixpoint may derive before grounding gives up.
    pub max_instances: usize,
    /// Check at run time every relation that can be (see [`deferrable`]), not only when grounding
    /// would go past the limit.
    pub defer_relations: bool,
    /// Read a fluent that only ever copies itself as the static relation of its initial facts
    /// (see [`constant_fluents`]). Off for rtGDL games, whose facts also end by expiring.
    pub fold_constant_fluents: bool,
    /// Take for granted, in a rule that reads a move as played, what the move's legality
    /// requires (see [`legal_play`]). Off for rtGDL games, whose facts also change at moments no
    /// move is checked at.
    pub assume_legal_play: bool,
    /// Drop the base facts that no state reachable by legal play holds, found through groups
    /// of facts of which a state holds at most one (see [`unreachable`]). Only with
    /// `assume_legal_play`.
    pub drop_unreachable: bool,
    /// How the front end reads the game's names, for the pipelines that start from its text
    /// ([`crate::compile`]).
    pub case: crate::parse::Case,
    /// Stop grounding with [`Error::ChecksMany`] once the first attempt that checks relations
    /// at run time (none forced) reads this many atoms of them: what `--form auto` asks, which
    /// compiles such a game lifted (see [`crate::compile::prefers_lifted`]) and needs only its
    /// base facts and moves from the grounding, not the rest of a program that large.
    pub lift_at_checks: Option<usize>,
    /// Read a frame through what its move affects (see [`affected`]): what incremental
    /// evaluation wants. Straight-line code reads a frame's moves through tables of moves, and
    /// `--form auto` leaves frames as written for the games it writes so (see
    /// [`crate::compile`]). Only with `assume_legal_play`.
    pub frames_through_moves: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_instances: DEFAULT_MAX_INSTANCES,
            defer_relations: false,
            fold_constant_fluents: true,
            assume_legal_play: true,
            drop_unreachable: true,
            case: crate::parse::Case::Insensitive,
            lift_at_checks: None,
            frames_through_moves: true,
        }
    }
}

/// The default of [`Options::max_instances`].
pub const DEFAULT_MAX_INSTANCES: usize = 4_000_000;

/// A proposition of the ground program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Prop {
    /// `(true f)` for base fact `f`, by index into [`Ground::base`].
    Base(u32),
    /// `(does r m)` by role index and index into [`Ground::moves`].
    Does(u32, u32),
    /// A derived proposition, by index into [`Ground::nodes`].
    Node(u32),
    /// An atom of a relation checked at run time, by index into the atoms of [`Ground::checks`].
    Deferred(u32),
}

/// A proposition or its negation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit {
    pub prop: Prop,
    pub positive: bool,
}

impl Lit {
    pub fn pos(prop: Prop) -> Lit {
        Lit { prop, positive: true }
    }

    pub fn negated(self) -> Lit {
        Lit { prop: self.prop, positive: !self.positive }
    }

    /// Whether the literal reads a role's move as played: `(does r m)`, not negated.
    pub fn is_move_played(&self) -> bool {
        self.positive && matches!(self.prop, Prop::Does(..))
    }
}

/// What an output is: a constant, or the value of a literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Const(bool),
    Lit(Lit),
}

/// A derived proposition: true when the literals of one of its rules all hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The ground atom it stands for, in canonical KIF (for comments and messages).
    pub name: String,
    pub rules: Vec<Vec<Lit>>,
}

impl Node {
    /// The derived propositions its rules read, in increasing order, each once.
    pub fn nodes_read(&self) -> Vec<u32> {
        let mut read: Vec<u32> = self
            .rules
            .iter()
            .flatten()
            .filter_map(|l| if let Prop::Node(n) = l.prop { Some(n) } else { None })
            .collect();
        read.sort_unstable();
        read.dedup();
        read
    }

    /// Whether a rule reads an atom proved at run time.
    pub fn reads_deferred(&self) -> bool {
        self.rules.iter().flatten().any(|lit| matches!(lit.prop, Prop::Deferred(_)))
    }

    /// Whether the node has rules and every one reads some role's move as played: only the
    /// joint move can make it true.
    pub fn made_by_moves_alone(&self) -> bool {
        !self.rules.is_empty() && self.rules.iter().all(|rule| rule.iter().any(Lit::is_move_played))
    }

    /// The move that the node says is played, when each of its rules is that move played by
    /// some role and nothing else (skirmish's "the move from here to there is played").
    pub fn move_played(&self) -> Option<u32> {
        let mut moves = self.rules.iter().map(|rule| match rule.as_slice() {
            [Lit { prop: Prop::Does(_, m), positive: true }] => Some(*m),
            _ => None,
        });
        let first = moves.next()??;
        moves.all(|m| m == Some(first)).then_some(first)
    }
}

/// A game as a propositional program.
#[derive(Clone, Debug)]
pub struct Ground {
    pub roles: Vec<String>,
    /// Every fact that can be true in a reachable state, in canonical KIF: sorted by bytes, until
    /// [`layout`] gives each the bit of its index (an empty string is a bit no fact uses).
    pub base: Vec<String>,
    /// Every move term some role may play, in canonical KIF, sorted by bytes.
    pub moves: Vec<String>,
    /// For every role, the moves it may ever play, as sorted indices into `moves`.
    pub inputs: Vec<Vec<u32>>,
    /// The base facts of the initial state, sorted.
    pub initial: Vec<u32>,
    pub nodes: Vec<Node>,
    /// For every role, its possible moves with when each is legal.
    pub legal: Vec<Vec<(u32, Value)>>,
    /// For every base fact, when it holds in the next state.
    pub next: Vec<Value>,
    pub terminal: Value,
    /// For every role, its numeric goal values with when each holds, largest value first.
    pub goals: Vec<Vec<(u32, Value)>>,
    /// Whether the game is written in GDL-II (it has `sees` rules or a `random` role).
    pub gdl_ii: bool,
    /// The GDL-II `random` role, if the game has one.
    pub random_role: Option<usize>,
    /// Every term some role may perceive (GDL-II's `sees`), in canonical KIF, sorted by bytes.
    pub percepts: Vec<String>,
    /// For every role, the percepts it may ever get (indices into `percepts`, sorted) with when
    /// each is perceived: like `next`, from the state and the joint move.
    pub sees: Vec<Vec<(u32, Value)>>,
    /// The recursive groups of `nodes`, as index ranges `start..end`: each is evaluated by
    /// iterating to its least fixpoint. Nodes are in evaluation order once simplified.
    pub cycles: Vec<(u32, u32)>,
    /// The relations checked at run time rather than grounded (none unless grounding them
    /// would go past the limit), with the atoms of them that the rules read.
    pub deferred: gdl_runtime::prover::Deferred,
    /// The atoms of `checks.atoms` in canonical KIF, for messages and comments.
    pub deferred_atoms: Vec<String>,
}

impl Ground {
    /// A literal in words, for comments: `(control white)`, `not (stuck white)`, `white plays
    /// noop`; an atom checked at run time by its number.
    pub fn describe(&self, lit: Lit) -> String {
        let text = match lit.prop {
            Prop::Base(i) => self.base[i as usize].clone(),
            Prop::Does(r, m) => format!("{} plays {}", self.roles[r as usize], self.moves[m as usize]),
            Prop::Node(n) => self.nodes[n as usize].name.clone(),
            Prop::Deferred(d) => format!("checked atom {d}"),
        };
        if lit.positive {
            text
        } else {
            format!("not {text}")
        }
    }

    /// Every output value: legal moves, next state, terminal, goals and percepts.
    pub fn outputs(&self) -> impl Iterator<Item = &Value> {
        self.legal
            .iter()
            .flat_map(|l| l.iter().map(|(_, v)| v))
            .chain(self.next.iter())
            .chain(std::iter::once(&self.terminal))
            .chain(self.goals.iter().flat_map(|g| g.iter().map(|(_, v)| v)))
            .chain(self.sees.iter().flat_map(|s| s.iter().map(|(_, v)| v)))
    }

    /// Every output value, for passes that rewrite or follow them all.
    pub fn outputs_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.legal
            .iter_mut()
            .flat_map(|l| l.iter_mut().map(|(_, v)| v))
            .chain(self.next.iter_mut())
            .chain(std::iter::once(&mut self.terminal))
            .chain(self.goals.iter_mut().flat_map(|g| g.iter_mut().map(|(_, v)| v)))
            .chain(self.sees.iter_mut().flat_map(|s| s.iter_mut().map(|(_, v)| v)))
    }

    /// For every node, the recursive group it is in, as an index into `cycles`.
    pub fn cycle_of(&self) -> Vec<Option<usize>> {
        let mut cycle_of = vec![None; self.nodes.len()];
        for (c, &(start, end)) in self.cycles.iter().enumerate() {
            cycle_of[start as usize..end as usize].iter_mut().for_each(|slot| *slot = Some(c));
        }
        cycle_of
    }

    /// For every node, whether it is in a recursive group.
    pub fn in_cycle(&self) -> Vec<bool> {
        self.cycle_of().iter().map(Option::is_some).collect()
    }

    /// The number of literals in all rules: the size of the program.
    pub fn size(&self) -> usize {
        self.nodes.iter().map(|n| n.rules.iter().map(|r| r.len().max(1)).sum::<usize>()).sum()
    }
}

/// Grounds and simplifies a checked game.
pub fn ground(description: &Description, options: &Options) -> Result<Ground, Error> {
    let mut ground = strategy::instantiate(description, options)?;
    simplify::simplify(&mut ground);
    if options.assume_legal_play && legal_play::assume_legal_play(&mut ground) {
        simplify::simplify(&mut ground);
    }
    if options.assume_legal_play && options.drop_unreachable && unreachable::drop_unreachable(&mut ground) {
        simplify::simplify(&mut ground);
    }
    if thresholds::count_thresholds(&mut ground) {
        simplify::simplify(&mut ground);
    }
    Ok(ground)
}

#[cfg(test)]
mod tests;
