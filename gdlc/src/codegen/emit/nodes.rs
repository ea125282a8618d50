//! The evaluation of a function's nodes: which nodes it needs, the slots of its node array
//! `n`, and the statements that compute the nodes into their slots in evaluation order, each
//! recursive group looping to its fixpoint.

use super::{guards, keyed, Body, Emitter, Phase};
use crate::codegen::cones::Cones;
use crate::codegen::token_count;
use crate::codegen::tokens::mentions;
use crate::ground::Value;
use proc_macro2::{Delimiter, Literal, TokenStream, TokenTree};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// The most atoms a comment on a word of node words names.
const MAX_NAMED: usize = 4;

/// The most tokens of node statements that a function written in parts has in one piece; past
/// them they are split into parts (see [`Body::in_parts`]). Once the nodes after skirmish's
/// move were words, its statements there (under 20,000 tokens) stayed in its `evaluate`, which
/// played at 0.70x; in a part of their own it played 1.5x faster than that.
const SPLIT_TOKENS: usize = 5_000;

/// About how many tokens of node statements each part has.
const PART_TOKENS: usize = 30_000;

/// The slot of every node that a function computes in its local array `n`, and of every group
/// of node words in its local array `g` (`u32::MAX` for the others). One array rather than a
/// `let` per node keeps functions of thousands of nodes within what rustc and LLVM handle well;
/// the arrays hold only what the function computes, since they are zeroed at every call.
pub(crate) struct Slots {
    slot: Vec<u32>,
    word: Vec<u32>,
    /// The lengths of the arrays `n` and `g`, when the function declares them.
    lengths: Lengths,
}

/// The lengths of a function's local arrays: `n` of nodes evaluated by themselves and `g` of
/// node words, when it has them.
#[derive(Clone, Copy)]
struct Lengths {
    nodes: Option<usize>,
    words: Option<usize>,
}

impl Slots {
    /// The index of `node` in `n`, as a literal.
    pub(crate) fn of(&self, node: u32) -> Literal {
        Literal::u32_unsuffixed(self.slot[node as usize])
    }

    /// The index of the word of group `group` in `g`, as a literal.
    pub(crate) fn word(&self, group: u32) -> Literal {
        Literal::u32_unsuffixed(self.word_index(group))
    }

    /// The index of the word of group `group` in `g`.
    pub(crate) fn word_index(&self, group: u32) -> u32 {
        self.word[group as usize]
    }
}

/// A function's arrays as first declared, and then extended for the nodes of a later branch.
pub(crate) struct TwoSlots {
    /// The declaration of the arrays of the first nodes.
    pub(crate) declare: TokenStream,
    /// The slots of the first nodes.
    pub(crate) first: Slots,
    /// Statements that extend the arrays with room for the later nodes (nothing when they
    /// need none), each array's first entries copied.
    pub(crate) extend: TokenStream,
    /// The slots of the first nodes and the later ones.
    pub(crate) all: Slots,
}

impl Emitter<'_> {
    /// Statements computing, in evaluation order, every node that `values` need, into the
    /// local array `n`, and the slots they have there.
    pub(crate) fn evaluate(&self, values: &[Value]) -> (TokenStream, Slots) {
        let needed = self.whole_groups(Cones::new(self.ground).cone(values));
        let (declare, slots) = self.assign_slots(&needed);
        let compute = Body::new(self, &slots, Phase::State).emit_nodes(&needed);
        (quote!(#declare #compute), slots)
    }

    /// Gives every node of `needed` (sorted) a slot of the local array `n`, or its group one of
    /// `g`: the arrays' declaration (nothing when no node is needed), and the slots.
    pub(crate) fn assign_slots(&self, needed: &[u32]) -> (TokenStream, Slots) {
        let TwoSlots { declare, first, .. } = self.assign_slots_then(needed, &[]);
        (declare, first)
    }

    /// Slots for the nodes of `first` (sorted), then for those of `later` (sorted) that are not
    /// among them: a branch that computes `later` (the goals only a playout's end reads)
    /// extends the arrays, so that the other branches zero only what they compute.
    pub(crate) fn assign_slots_then(&self, first: &[u32], later: &[u32]) -> TwoSlots {
        let mut slot = vec![u32::MAX; self.ground.nodes.len()];
        let mut word = vec![u32::MAX; self.words.groups.len()];
        let (mut nodes, mut words) = (0u32, 0u32);
        let mut lengths = Vec::new();
        for part in [first, later] {
            for &n in part {
                match self.words.member[n as usize] {
                    Some((g, _)) if word[g as usize] == u32::MAX => {
                        word[g as usize] = words;
                        words += 1;
                    }
                    Some(_) => {}
                    None if slot[n as usize] == u32::MAX => {
                        slot[n as usize] = nodes;
                        nodes += 1;
                    }
                    None => {}
                }
            }
            let length = |count: u32| (count > 0).then_some(count as usize);
            lengths.push(Lengths { nodes: length(nodes), words: length(words) });
        }
        let (before, after) = (lengths[0], lengths[1]);
        let declare = declare_arrays(before);
        let extend = extend_arrays(before, after);
        let first = Slots { slot: slot.clone(), word: word.clone(), lengths: before };
        TwoSlots { declare, first, extend, all: Slots { slot, word, lengths: after } }
    }

    /// The nodes that `values` need evaluated at run time, sorted: their cone, less the nodes
    /// the move table gives.
    pub(crate) fn runtime_cone(&self, values: &[Value]) -> Vec<u32> {
        self.whole_groups(self.cone_less_table(values))
    }

    /// The cone of `values`, sorted, less the nodes the move table gives, not yet widened to
    /// whole groups.
    pub(crate) fn cone_less_table(&self, values: &[Value]) -> Vec<u32> {
        match &self.tables {
            Some(tables) => tables.runtime_cone(self.ground, values),
            None => Cones::new(self.ground).cone(values),
        }
    }
}

impl Body<'_> {
    /// Statements computing the nodes of `nodes` (sorted, each recursive group whole) into
    /// their slots, in the order of [`NodeWords::rank`](crate::codegen::node_words::NodeWords):
    /// each recursive group as a loop, each group of node words as its word.
    pub(crate) fn emit_nodes(&self, nodes: &[u32]) -> TokenStream {
        let emitter = self.emitter;
        let mut nodes = nodes.to_vec();
        nodes.sort_by_key(|&n| emitter.words.rank[n as usize]);
        let twins = emitter.twins(&nodes);
        let mut out = Vec::new();
        // The groups of node words whose word is computed.
        let mut words = BTreeSet::new();
        let by_itself = |n: u32| twins.contains_key(&n) || emitter.words.member[n as usize].is_some();
        let alone = |n: u32| !by_itself(n) && emitter.cycle_of[n as usize].is_none();
        // The loops computed where their one reader reads them are not computed in their place.
        words.extend(self.lazy_groups(&nodes, alone));
        let mut i = 0;
        while i < nodes.len() {
            let n = nodes[i];
            if alone(n) {
                let stretch: Vec<u32> = nodes[i..].iter().copied().take_while(|&m| alone(m)).collect();
                i += stretch.len();
                out.push(self.guarded_stretch(&stretch));
                continue;
            }
            match emitter.cycle_of[n as usize] {
                Some(c) if !by_itself(n) => {
                    let group: Vec<u32> =
                        nodes[i..].iter().copied().take_while(|&m| emitter.cycle_of[m as usize] == Some(c)).collect();
                    i += group.len();
                    out.push(self.cycle(&group));
                }
                _ => {
                    out.extend(self.emit_node(n, &twins, &mut words));
                    i += 1;
                }
            }
        }
        self.in_parts(out)
    }

    /// The statements `statements`, written as they are when they are few or the function is
    /// not written in parts ([`Emitter::split`]), else in parts of
    /// about [`PART_TOKENS`] tokens, each a function of its own that the body calls: rustc's
    /// time grows faster than a function's length (linesOfAction's 21,000 lines of state nodes
    /// in one function built in 134 s, in parts of 2,000 lines in 29 s). A part is never
    /// inlined, since inlined it would be one function again. Node statements read the state
    /// `s` and the arrays `n` and `g`, and after the move is known the joint move `joint` and
    /// the move table's row `mt`: a part takes them.
    fn in_parts(&self, statements: Vec<TokenStream>) -> TokenStream {
        if !self.emitter.split.get() {
            return quote!(#(#statements)*);
        }
        let statements: Vec<TokenStream> = statements.iter().flat_map(one_by_one).collect();
        if statements.iter().map(token_count).sum::<usize>() <= SPLIT_TOKENS {
            return quote!(#(#statements)*);
        }
        let statements: Vec<TokenStream> = statements.iter().flat_map(split_if).collect();
        let parts = pieces(statements).into_iter().map(|piece| self.part(piece));
        quote!(#(#parts)*)
    }

    /// `statements` as a function of their own, and its call.
    pub(super) fn part(&self, statements: Vec<TokenStream>) -> TokenStream {
        let name = self.emitter.part_name();
        let Lengths { nodes, words } = self.slots.lengths;
        // A part may call a part of its own (a keyed run's, `keyed.rs`), where `n` and `g` are
        // references already: its parameters are then mutable bindings, and `&mut n` is coerced
        // to the array's reference.
        let nested = statements.iter().any(|s| mentions(s.clone(), &["fn"])).then(|| quote!(mut));
        let n_param = nodes.map(|len| {
            let len = Literal::usize_unsuffixed(len);
            quote!(#nested n: &mut [bool; #len],)
        });
        let g_param = words.map(|len| {
            let len = Literal::usize_unsuffixed(len);
            quote!(#nested g: &mut [u64; #len],)
        });
        let n_arg = nodes.map(|_| quote!(&mut n,));
        let g_arg = words.map(|_| quote!(&mut g,));
        // Statements that read the joint move (after it is known, or in `sees`) take it, and
        // the move table's row when they read that.
        let joint = statements.iter().any(|s| mentions(s.clone(), &["joint"])).then(|| {
            let roles = Literal::usize_unsuffixed(self.emitter.ground.roles.len());
            (quote!(joint: &[Move; #roles],), quote!(joint,))
        });
        let row =
            self.emitter.tables.as_ref().filter(|_| statements.iter().any(|s| mentions(s.clone(), &["mt"]))).map(|t| {
                let width = Literal::usize_unsuffixed(t.node_words);
                (quote!(mt: &[u64; #width],), quote!(&mt,))
            });
        let (joint_param, joint_arg) = joint.unzip();
        let (row_param, row_arg) = row.unzip();
        quote! {
            #[inline(never)]
            fn #name(s: &State, #joint_param #row_param #n_param #g_param) {
                #(#statements)*
            }
            #name(s, #joint_arg #row_arg #n_arg #g_arg);
        }
    }

    /// Statements computing node `n`, which is in no recursive group, given the `twins` among
    /// the nodes computed and the groups of node words whose word is already computed (`None`
    /// when another statement computes it).
    fn emit_node(&self, n: u32, twins: &BTreeMap<u32, Option<u32>>, words: &mut BTreeSet<u32>) -> Option<TokenStream> {
        let emitter = self.emitter;
        match twins.get(&n) {
            Some(&Some(m)) => {
                let notes = [n, m].map(|k| emitter.note_node(|| format!("n[{}] (twin runs)", self.slots.of(k)), k));
                let runs = self.twin_runs(n, m);
                return Some(quote!(#(#notes)* #runs));
            }
            // Computed with its twin.
            Some(None) => return None,
            None => {}
        }
        match emitter.words.member[n as usize] {
            Some((g, place)) if emitter.words.groups[g as usize].gathered => {
                let note = emitter.note_node(|| format!("g[{}] bit {place}", self.slots.word_index(g)), n);
                let store = self.store_node(n, self.node_expr(n));
                Some(quote!(#note #store))
            }
            Some((g, _)) => match emitter.words.loop_of[g as usize] {
                Some(l) => {
                    let groups = &emitter.words.loops[l as usize];
                    let first = groups.iter().fold(false, |first, &h| words.insert(h) | first);
                    first.then(|| {
                        let notes = groups.iter().map(|&h| self.group_note(h));
                        let words = self.loop_words(l);
                        quote!(#(#notes)* #words)
                    })
                }
                // A transposed group's readers read the state words it would be made of.
                None => (words.insert(g) && !emitter.transposed[g as usize]).then(|| {
                    let note = self.group_note(g);
                    let word = self.group_word(g);
                    quote!(#note #word)
                }),
            },
            None => Some(self.node_alone(n)),
        }
    }

    /// The statements computing node `n`, evaluated by itself, into its slot.
    fn node_alone(&self, n: u32) -> TokenStream {
        let note = self.emitter.note_node(|| format!("n[{}]", self.slots.of(n)), n);
        let lazy = self.deferred_loops(n);
        let store = match lazy.is_empty() {
            true => self.node_expr(n).store(&self.slots.of(n)),
            false => self.lazy_node(n, &lazy),
        };
        quote!(#note #store)
    }

    /// Statements computing `stretch`, nodes each evaluated by itself (in order, none in a
    /// recursive group): runs of nodes keyed by a few-valued relation from the facts of it that
    /// hold (`keyed.rs`), the others reordered so that nodes that hold only when one fact does
    /// come together, and each run of them inside a test of that fact (`guards.rs`).
    fn guarded_stretch(&self, stretch: &[u32]) -> TokenStream {
        let emitter = self.emitter;
        // Only nodes written rule by rule are keyed: not those whose rules are tested as
        // shapes of node words at once (`Body::word_families`).
        let plain =
            |n: u32| emitter.rule_by_rule(n) && !self.has_word_families(&emitter.ground.nodes[n as usize].rules);
        let runs = keyed::runs(emitter.ground, &emitter.keys, stretch, &plain);
        let out = runs.into_iter().map(|(key, run)| match key {
            Some(key) => self.keyed_run(key, &run),
            None => self.fact_guarded(&run),
        });
        quote!(#(#out)*)
    }

    /// Statements computing `stretch` (as [`Self::guarded_stretch`]), the nodes guarded by one
    /// fact inside a test of it.
    fn fact_guarded(&self, stretch: &[u32]) -> TokenStream {
        let runs = guards::runs(self.emitter.ground, &self.emitter.guard_facts, stretch);
        let out = runs.into_iter().map(|(guard, run)| {
            let statements = run.iter().map(|&m| self.node_alone(m));
            match guard.filter(|&fact| self.holds != Some(fact)) {
                Some(fact) => {
                    let test = self.lit(fact);
                    quote!(if #test { #(#statements)* })
                }
                None => quote!(#(#statements)*),
            }
        });
        quote!(#(#out)*)
    }

    /// A comment naming the atoms of the group of node words `g`, by bit.
    pub(crate) fn group_note(&self, g: u32) -> TokenStream {
        let emitter = self.emitter;
        emitter.note(|notes| {
            let members = &emitter.words.groups[g as usize].members;
            let mut names: Vec<String> = members
                .iter()
                .take(MAX_NAMED)
                .map(|&m| {
                    let bit = emitter.words.member[m as usize].map_or(0, |(_, place)| place);
                    format!("bit {bit} {}", emitter.ground.nodes[m as usize].name)
                })
                .collect();
            if members.len() > MAX_NAMED {
                names.push(format!("and {} more", members.len() - MAX_NAMED));
            }
            let first = members.first().map(|&m| notes.atom(&emitter.ground.nodes[m as usize].name));
            let rules =
                first.as_deref().and_then(|a| a.split_once(", rules at ")).map(|(_, at)| format!("; rules at {at}"));
            let k = self.slots.word_index(g);
            format!("g[{k}]: {} node words, {}{}", members.len(), names.join(", "), rules.unwrap_or_default())
        })
    }

    /// A recursive group: every node starts false and the rules are applied until nothing changes.
    fn cycle(&self, group: &[u32]) -> TokenStream {
        let updates = group.iter().map(|&n| {
            let slot = self.slots.of(n);
            let disjuncts = self.node_expr(n).disjuncts();
            let note = self.emitter.note_node(|| format!("n[{slot}] (recursive)"), n);
            quote! {
                #note
                if !n[#slot] && (#(#disjuncts)||*) {
                    n[#slot] = true;
                    changed = true;
                }
            }
        });
        quote! {
            loop {
                let mut changed = false;
                #(#updates)*
                if !changed {
                    break;
                }
            }
        }
    }
}

/// The statements of `tokens` one by one: split after each `;` outside any group, and after
/// the last block of an `if` or `loop` statement, so that a node computed rule by rule (one
/// statement per rule) can be split too. Unlike [`crate::codegen::tokens::statements`], an
/// item `fn` (a part written earlier) is one statement with the call after it, so that a piece
/// never holds a part's call without its item, nor the item without its call.
fn one_by_one(tokens: &TokenStream) -> Vec<TokenStream> {
    let mut statements = Vec::new();
    let mut statement: Vec<TokenTree> = Vec::new();
    let mut trees = tokens.clone().into_iter().peekable();
    while let Some(tree) = trees.next() {
        let block_statement = matches!(statement.first(), Some(TokenTree::Ident(i)) if i == "if" || i == "loop");
        let end = match &tree {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => {
                block_statement
                    && g.delimiter() == Delimiter::Brace
                    && !matches!(trees.peek(), Some(TokenTree::Ident(i)) if i == "else")
            }
            _ => false,
        };
        statement.push(tree);
        if end {
            statements.push(std::mem::take(&mut statement).into_iter().collect());
        }
    }
    if !statement.is_empty() {
        statements.push(statement.into_iter().collect());
    }
    statements
}

/// Statement `statement` as statements of at most about [`PART_TOKENS`] tokens: an `if` without
/// `else` longer than that, whose condition reads no node (a fact of the state, which the block
/// cannot change), as several, each testing the same condition around a piece of its block; any
/// other statement as it is.
fn split_if(statement: &TokenStream) -> Vec<TokenStream> {
    let trees: Vec<TokenTree> = statement.clone().into_iter().collect();
    let is_if = matches!(trees.first(), Some(TokenTree::Ident(i)) if i == "if");
    let has_else = trees.iter().any(|t| matches!(t, TokenTree::Ident(i) if i == "else"));
    let condition: TokenStream = trees.iter().skip(1).take(trees.len().saturating_sub(2)).cloned().collect();
    let reads_nodes = mentions(condition.clone(), &["n", "g"]);
    match trees.last() {
        Some(TokenTree::Group(block))
            if is_if
                && !has_else
                && !reads_nodes
                && block.delimiter() == Delimiter::Brace
                && token_count(statement) > PART_TOKENS =>
        {
            let inner: Vec<TokenStream> = one_by_one(&block.stream()).iter().flat_map(split_if).collect();
            pieces(inner).into_iter().map(|piece| quote!(if #condition { #(#piece)* })).collect()
        }
        _ => vec![statement.clone()],
    }
}

/// Consecutive `statements` in pieces of about [`PART_TOKENS`] tokens each.
fn pieces(statements: Vec<TokenStream>) -> Vec<Vec<TokenStream>> {
    let mut pieces = Vec::new();
    let mut piece = Vec::new();
    let mut size = 0;
    for statement in statements {
        size += token_count(&statement);
        piece.push(statement);
        if size >= PART_TOKENS {
            pieces.push(std::mem::take(&mut piece));
            size = 0;
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    pieces
}

/// The declaration of a function's arrays of the lengths `lengths`.
fn declare_arrays(lengths: Lengths) -> TokenStream {
    let words = lengths.words.map(|len| {
        let len = Literal::usize_unsuffixed(len);
        quote!(let mut g = [0u64; #len];)
    });
    let nodes = lengths.nodes.map(|len| {
        let len = Literal::usize_unsuffixed(len);
        quote!(let mut n = [false; #len];)
    });
    quote!(#nodes #words)
}

/// Statements that make the arrays of lengths `before` those of lengths `after`, their entries
/// kept.
fn extend_arrays(before: Lengths, after: Lengths) -> TokenStream {
    let extend =
        |name: TokenStream, zero: TokenStream, before: Option<usize>, after: Option<usize>| match (before, after) {
            (_, None) => TokenStream::new(),
            (Some(b), Some(a)) if a == b => TokenStream::new(),
            (None, Some(a)) => {
                let a = Literal::usize_unsuffixed(a);
                quote!(let mut #name = [#zero; #a];)
            }
            (Some(b), Some(a)) => {
                let (a, b) = (Literal::usize_unsuffixed(a), Literal::usize_unsuffixed(b));
                quote! {
                    let mut #name = {
                        let mut all = [#zero; #a];
                        all[..#b].copy_from_slice(&#name[..]);
                        all
                    };
                }
            }
        };
    let nodes = extend(quote!(n), quote!(false), before.nodes, after.nodes);
    let words = extend(quote!(g), quote!(0u64), before.words, after.words);
    quote!(#nodes #words)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` statements that each compute a node from the one before.
    fn chain(count: usize) -> Vec<TokenStream> {
        (1..=count)
            .map(|i| {
                let (k, j) = (Literal::usize_unsuffixed(i), Literal::usize_unsuffixed(i - 1));
                quote!(n[#k] = n[#j] & (g[3] & 0x4 != 0);)
            })
            .collect()
    }

    fn text(statements: &[TokenStream]) -> Vec<String> {
        statements.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn statements_end_at_semicolons_and_at_the_last_block_of_if_and_loop() {
        let tokens = quote! {
            n[0] |= a; n[0] |= b;
            if c { n[1] = true; } else { n[1] = false; }
            loop { break; }
            g[2] = if d { 1 } else { 0 };
        };
        let statements = text(&one_by_one(&tokens));
        assert_eq!(statements.len(), 5, "{statements:?}");
        assert!(statements[2].starts_with("if c") && statements[2].ends_with("}"), "{statements:?}");
        assert!(statements[4].starts_with("g [2] = if d"), "{statements:?}");
    }

    #[test]
    fn a_part_written_earlier_is_one_statement_with_its_call() {
        // Split apart, a piece could end after the item and the next begin with its call: the
        // call would move into the next part, after the parts that follow it (four_way_battle).
        let tokens = quote! {
            #[inline(never)]
            fn nodes_part_0(n: &mut [bool; 2]) { n[0] = true; }
            nodes_part_0(&mut n);
            n[1] = n[0];
        };
        let statements = text(&one_by_one(&tokens));
        assert_eq!(statements.len(), 2, "{statements:?}");
        assert!(statements[0].starts_with("# [inline (never)] fn nodes_part_0"), "{statements:?}");
        assert!(statements[0].ends_with("nodes_part_0 (& mut n) ;"), "{statements:?}");
    }

    #[test]
    fn a_long_if_is_split_into_ifs_of_the_same_condition_around_pieces_of_its_block() {
        let body = chain(6_000);
        let statement = quote!(if s.0[1] & 0x2 != 0 { #(#body)* });
        let split = split_if(&statement);
        assert!(split.len() > 1, "{} statements", split.len());
        let mut inner = Vec::new();
        for piece in &split {
            let trees: Vec<TokenTree> = piece.clone().into_iter().collect();
            assert_eq!(
                TokenStream::from_iter(trees[..trees.len() - 1].iter().cloned()).to_string(),
                "if s . 0 [1] & 0x2 != 0"
            );
            assert!(token_count(piece) < PART_TOKENS + 100, "{}", token_count(piece));
            let Some(TokenTree::Group(block)) = trees.last() else { panic!("{piece}") };
            inner.extend(one_by_one(&block.stream()));
        }
        assert_eq!(text(&inner), text(&body));
    }

    #[test]
    fn an_if_on_a_node_is_not_split() {
        let body = chain(6_000);
        let statement = quote!(if n[0] { #(#body)* });
        assert_eq!(split_if(&statement).len(), 1);
    }

    #[test]
    fn pieces_keep_every_statement_in_order() {
        let statements = chain(10_000);
        let split = pieces(statements.clone());
        assert!(split.len() > 2, "{} pieces", split.len());
        assert!(split.iter().all(|piece| token_count(&quote!(#(#piece)*)) < PART_TOKENS + 100));
        assert_eq!(text(&split.concat()), text(&statements));
    }

    #[test]
    fn only_the_names_a_part_reads_are_passed_to_it() {
        let reads_move = quote!(if x {
            n[0] = joint[1].0 == 3 & (mt[0] & 0x1 != 0);
        });
        assert!(mentions(reads_move.clone(), &["joint"]) && mentions(reads_move.clone(), &["mt"]));
        assert!(!mentions(quote!(n[0] = g[1] & 0x2 != 0;), &["joint"]));
    }
}
