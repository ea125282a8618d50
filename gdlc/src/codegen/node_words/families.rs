//! Rules over group members tested a word at a time: the rules of a node that are one shape at
//! different places (reversi's "an empty cell where a move is legal", in every cell of a
//! column; lines of action's "two pieces of a colour that are not connected", for every second
//! piece) are the templates of one word, tested against zero.

use super::{Template, WordLit};
use crate::codegen::emit::Body;
use crate::ground::{Lit, Prop};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// A test of rules over group members, a word at a time (see [`Body::word_families`]): the
/// literals that are the same for every rule tested, the word of the rest, which is not zero
/// when one of the rules holds, and the groups whose words it reads.
pub(crate) struct WordTest {
    pub(crate) fixed: Vec<TokenStream>,
    pub(crate) word: TokenStream,
    pub(crate) groups: BTreeSet<u32>,
}

impl WordTest {
    /// The test as one boolean expression.
    pub(crate) fn test(&self) -> TokenStream {
        let (fixed, word) = (&self.fixed, &self.word);
        match fixed.is_empty() {
            true => quote!(#word != 0),
            false => quote!(#((#fixed) &)* (#word != 0)),
        }
    }
}

/// Rules by shape (their literals as words relative to their anchors): the anchors, and the
/// rules.
type WordShapes = BTreeMap<Vec<WordLit>, (u64, Vec<usize>)>;

/// A state word and its table of the moves (see [`Body::transposed_tables`]).
type NearTable = (u32, Vec<u64>);

/// The fewest rules of a shape that reads more than group members for the shape to be tested
/// at once.
const WORD_FAMILY_MIN: usize = 4;

/// `shape` (relative to `anchor`) with the base facts at other distances than `kept` from the
/// anchor as literals of their own.
fn fixed_away(shape: &[WordLit], anchor: u32, kept: i32) -> Vec<WordLit> {
    let mut fixed: Vec<WordLit> = shape
        .iter()
        .map(|&lit| match lit {
            WordLit::Base { word, shift, positive } if shift != kept => {
                let bit = (anchor as i32 + shift) as u32;
                WordLit::Fixed(Lit { prop: Prop::Base(64 * word + bit), positive })
            }
            lit => lit,
        })
        .collect();
    fixed.sort();
    fixed
}

/// The distances from the anchor at which a rule of `shape` may keep its base facts relative
/// (see [`fixed_away`]): the anchor's own first, then those of its base facts.
fn kept_distances(shape: &[WordLit]) -> Vec<i32> {
    let mut kept = vec![0];
    for lit in shape {
        if let WordLit::Base { shift, .. } = *lit {
            if !kept.contains(&shift) {
                kept.push(shift);
            }
        }
    }
    kept
}

impl Body<'_> {
    /// Whether some of `rules` are tested as one shape by [`Self::word_families`].
    pub(crate) fn has_word_families(&self, rules: &[Vec<Lit>]) -> bool {
        self.in_word_families(rules).contains(&true)
    }

    /// For each of `rules`, whether [`Self::word_families`] tests it with others at once.
    pub(crate) fn in_word_families(&self, rules: &[Vec<Lit>]) -> Vec<bool> {
        let mut taken = vec![false; rules.len()];
        if !self.emitter.words.groups.is_empty() {
            for (shape, (_, members)) in self.word_shapes(rules) {
                if is_family(&shape, &members) {
                    members.iter().for_each(|&i| taken[i] = true);
                }
            }
        }
        taken
    }

    /// The rules among `rules` that read members of groups of [`super::NodeWords`], beside base
    /// facts and other nodes, and are one shape moved to different places, each shape tested at
    /// once (reversi's "an empty cell where a move is legal", in every cell of a column; lines
    /// of action's "two pieces of a colour that are not connected", for every second piece): the
    /// `&` of the words it reads, shifted onto the places of its first group literal, masked by
    /// those places, against zero, after the literals that are the same in every rule of the
    /// shape. Returns those tests, and the other rules.
    pub(crate) fn word_families(&self, rules: &[Vec<Lit>]) -> (Vec<TokenStream>, Vec<Vec<Lit>>) {
        let (tests, rest) = self.word_family_tests(rules);
        (tests.iter().map(WordTest::test).collect(), rest)
    }

    /// The tests of [`Self::word_families`], each with what it reads, and the other rules.
    pub(crate) fn word_family_tests(&self, rules: &[Vec<Lit>]) -> (Vec<WordTest>, Vec<Vec<Lit>>) {
        if self.emitter.words.groups.is_empty() {
            return (Vec::new(), rules.to_vec());
        }
        let mut taken = vec![false; rules.len()];
        let mut tests = Vec::new();
        // The shapes tested as the templates of one word against zero, by the literals the same
        // for every member that they read, tested before it.
        let mut by_fixed: BTreeMap<Vec<WordLit>, Vec<Template>> = BTreeMap::new();
        // By role, the tables of the families of transposed groups, by state word.
        let mut at_move: BTreeMap<u32, BTreeMap<u32, Vec<u64>>> = BTreeMap::new();
        for (shape, (anchors, members)) in self.word_shapes(rules) {
            if !is_family(&shape, &members) {
                continue;
            }
            members.iter().for_each(|&i| taken[i] = true);
            if let Some((role, tables)) = self.transposed_tables(&shape, anchors) {
                // The families of one role are one test: their tables or-ed word by word.
                let merged = at_move.entry(role).or_default();
                for (w, table) in tables {
                    let into = merged.entry(w).or_insert_with(|| vec![0; table.len()]);
                    into.iter_mut().zip(table).for_each(|(a, b)| *a |= b);
                }
                continue;
            }
            let (fixed, words): (Vec<WordLit>, Vec<WordLit>) =
                shape.into_iter().partition(|lit| matches!(lit, WordLit::Fixed(_)));
            by_fixed.entry(fixed).or_default().push(Template { literals: words, mask: anchors });
        }
        for (fixed, templates) in by_fixed {
            let fixed: Vec<TokenStream> = (fixed.into_iter())
                .filter_map(|lit| match lit {
                    WordLit::Fixed(lit) => Some(self.lit(lit)),
                    _ => None,
                })
                .collect();
            let groups = templates.iter().flat_map(|t| &t.literals).filter_map(WordLit::group).collect();
            let word = self.templates_or(&templates.iter().collect::<Vec<_>>());
            tests.push(WordTest { fixed, word, groups });
        }
        for (role, tables) in at_move {
            let role = Literal::u32_unsuffixed(role);
            let terms = tables.into_iter().map(|(w, table)| {
                let table = self.emitter.near_table(table);
                let w = Literal::u32_unsuffixed(w);
                quote!((s.0[#w] & #table[joint[#role].0 as usize]))
            });
            tests.push(WordTest { fixed: Vec::new(), word: quote!(#(#terms)|*), groups: BTreeSet::new() });
        }
        let rest = rules.iter().zip(&taken).filter(|(_, &t)| !t).map(|(rule, _)| rule.clone()).collect();
        (tests, rest)
    }

    /// For a family of rules of `shape`, a member of a transposed group and a move at its
    /// place, over the places `anchors` (see `transpose.rs`): the role whose move it reads, and
    /// for every state word the group would be made of, its table of the moves, whose word for
    /// the move played has the bits of that state word that put a member beside the move.
    fn transposed_tables(&self, shape: &[WordLit], anchors: u64) -> Option<(u32, Vec<NearTable>)> {
        let emitter = self.emitter;
        let [WordLit::Group { group, shift: 0, positive: true }, WordLit::Does { kind, shift: 0, positive: true }] =
            *shape
        else {
            return None;
        };
        if !emitter.transposed.get(group as usize).copied().unwrap_or(false) {
            return None;
        }
        let words = &emitter.words;
        let kind_of = &words.move_kinds[kind as usize];
        let move_place = kind_of.place_words(emitter.ground.moves.len());
        let tables = (super::transpose::source_words(words, group).into_iter())
            .map(|w| (w, super::transpose::table(words, group, w, anchors, &move_place)))
            .collect();
        Some((kind_of.role, tables))
    }

    /// The rules among `rules` that read members of groups of node words, and otherwise only
    /// base facts and nodes, by shape: each literal as a word relative to the place of the
    /// rule's first group literal (its anchor). A rule whose shape no other rule has is shaped
    /// again with its base facts at all distances from its anchor but one as literals of their
    /// own (see [`fixed_away`]), so that "this piece, and a piece there not connected to it"
    /// over every second piece is one shape. For every shape, the anchors of its rules, and
    /// those rules (one per anchor).
    fn word_shapes(&self, rules: &[Vec<Lit>]) -> WordShapes {
        let relative: Vec<Option<(u32, Vec<WordLit>)>> = rules.iter().map(|rule| self.relative_shape(rule)).collect();
        let mut count: BTreeMap<&[WordLit], usize> = BTreeMap::new();
        for (_, shape) in relative.iter().flatten() {
            *count.entry(shape).or_default() += 1;
        }
        // A shape that no other rule has keeps relative the base facts at one distance from
        // its anchor, the others fixed: at the anchor's own place, unless another distance
        // gives a shape more such rules share (a colour whose facts sit past another's in the
        // same word, its pieces at a fixed distance from the places of the node words).
        let candidates: Vec<Vec<Vec<WordLit>>> = (relative.iter())
            .map(|shaped| match shaped {
                Some((anchor, shape)) if count[shape.as_slice()] == 1 => {
                    kept_distances(shape).into_iter().map(|kept| fixed_away(shape, *anchor, kept)).collect()
                }
                _ => Vec::new(),
            })
            .collect();
        let mut fixed_count: BTreeMap<&[WordLit], usize> = BTreeMap::new();
        for fixed in candidates.iter().flatten() {
            *fixed_count.entry(fixed).or_default() += 1;
        }
        let mut shapes = WordShapes::new();
        for (i, (shaped, candidates)) in relative.iter().zip(&candidates).enumerate() {
            let Some((anchor, shape)) = shaped else { continue };
            // The first candidate (the anchor's own place) wins a tie: `max_by_key` keeps the
            // last of equals.
            let fixed = candidates.iter().rev().max_by_key(|fixed| fixed_count[fixed.as_slice()]);
            let shape = fixed.unwrap_or(shape).clone();
            let (anchors, members) = shapes.entry(shape).or_default();
            if *anchors >> anchor & 1 == 0 {
                *anchors |= 1 << anchor;
                members.push(i);
            }
        }
        shapes
    }

    /// A rule's anchor (the place of its first group literal, by group, sign and place; else of
    /// its first node of the move table's row, by word, sign and bit, the row's words of nodes
    /// at places of a board having them at their places) and its literals relative to it,
    /// sorted; `None` when it reads neither, or reads a move that has no place.
    fn relative_shape(&self, rule: &[Lit]) -> Option<(u32, Vec<WordLit>)> {
        let member = &self.emitter.words.member;
        let group_anchor = rule
            .iter()
            .filter_map(|lit| match lit.prop {
                Prop::Node(m) => member[m as usize].map(|(g, place)| (g, lit.positive, place)),
                _ => None,
            })
            .min();
        let row_anchor = || {
            rule.iter()
                .filter_map(|lit| match lit.prop {
                    Prop::Node(m) => self.row_bit(m).map(|t| (t / 64, lit.positive, t % 64)),
                    _ => None,
                })
                .min()
        };
        let anchor = group_anchor.or_else(row_anchor)?.2;
        let mut shape = Vec::with_capacity(rule.len());
        for &lit in rule {
            let positive = lit.positive;
            shape.push(match lit.prop {
                Prop::Node(m) => match (member[m as usize], self.row_bit(m)) {
                    (Some((group, place)), _) => {
                        WordLit::Group { group, shift: place as i32 - anchor as i32, positive }
                    }
                    (None, Some(t)) => {
                        WordLit::Table { word: t / 64, shift: (t % 64) as i32 - anchor as i32, positive }
                    }
                    (None, None) => WordLit::Fixed(lit),
                },
                Prop::Base(b) => WordLit::Base { word: b / 64, shift: (b % 64) as i32 - anchor as i32, positive },
                Prop::Does(role, m) => match self.emitter.words.move_places.get(&(role, m)) {
                    Some(&(kind, place)) => WordLit::Does { kind, shift: place as i32 - anchor as i32, positive },
                    None => return None,
                },
                Prop::Deferred(_) => return None,
            });
        }
        shape.sort();
        Some((anchor, shape))
    }
}

/// Whether a shape with these `members` (rules, by index) is tested at once: a shape that
/// reads only groups from two rules on, any other from [`WORD_FAMILY_MIN`].
fn is_family(shape: &[WordLit], members: &[usize]) -> bool {
    let reads_only_groups = shape.iter().all(|lit| matches!(lit, WordLit::Group { .. }));
    members.len() >= if reads_only_groups { 2 } else { WORD_FAMILY_MIN }
}
