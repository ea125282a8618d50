//! The generated game functions, `legal`, `next`, `terminal` and `goals`: each evaluates, in
//! order, only the derived propositions its outputs need, as straight-line boolean code over
//! the state's words and the joint move. Recursive groups loop to their least fixpoint.

use super::arm_families::RoleArms;
use super::families::{Families, Family};
use super::move_guards::{self, Guard};
use super::move_tables::MoveTables;
use super::node_words::NodeWords;
use super::pick_tables::PickHash;
use super::tables::{hex, words};
use super::truth_tables::TruthTable;
use crate::ground::{Ground, Lit, Prop, Value};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

mod words;

/// The fewest moves of one role for which an "any of these moves" proposition is generated
/// as a lookup in a constant bit set rather than as comparisons.
const MOVE_SET_MIN: usize = 4;

/// The most rules and literals of a node computed as one expression.
const SHORT_RULES: usize = 8;
const SHORT_LITERALS: usize = 32;

/// The most families of one role's legal moves that are evaluated a word at a time.
const MAX_LEGAL_FAMILIES: usize = 8;

/// The most bytes of a role's table of frame rows by drawn bit.
const MAX_BIT_TABLE_BYTES: usize = 32 * 1024;

/// The fewest moves of a role that a literal must guard to be tested before them in
/// `random_step`.
const GUARD_MIN: usize = 4;

/// A node's value as generated code.
enum Expr {
    /// One expression.
    Short(TokenStream),
    /// The rules' conjunctions, to be or-ed together one statement each.
    Long(Vec<TokenStream>),
}

impl Expr {
    /// The rules' conjunctions: the one expression, or each rule's.
    fn disjuncts(self) -> Vec<TokenStream> {
        match self {
            Expr::Short(expr) => vec![expr],
            Expr::Long(disjuncts) => disjuncts,
        }
    }

    /// Statements that or the value into slot `slot` of the node array `n`.
    fn or_into(self, slot: &Literal) -> TokenStream {
        let disjuncts = self.disjuncts();
        quote!(#(n[#slot] |= #disjuncts;)*)
    }

    /// Statements that store the value in slot `slot` of `n`, which starts false: assigned
    /// when it is one expression, else or-ed in rule by rule.
    fn store(self, slot: &Literal) -> TokenStream {
        match self {
            Expr::Short(expr) => quote!(n[#slot] = #expr;),
            long => long.or_into(slot),
        }
    }
}

/// The game's functions, and whether they include the fused `random_step`.
pub fn generate_functions(ground: &Ground) -> (TokenStream, bool) {
    let mut vectorized = ground.clone();
    let families = super::families::vectorize(&mut vectorized);
    let ground = &vectorized;
    let mut emitter = Emitter::new(ground);
    emitter.families = families;
    emitter.tables = MoveTables::new(ground);
    if let Some(tables) = &emitter.tables {
        let flat = super::families::flat_nodes(ground);
        emitter.arm_families =
            tables.arms.iter().enumerate().map(|(role, arms)| RoleArms::plan(role, arms, &flat)).collect();
        RoleArms::share_tables(&mut emitter.arm_families);
    }
    emitter.words = emitter.plan_node_words();
    let statics = emitter.generate_move_tables();
    let legal = emitter.generate_legal_fns();
    let next = emitter.generate_next_fn();
    let terminal = emitter.generate_terminal_fn();
    let goals = emitter.generate_goals_fn();
    let random_step = emitter.generate_random_step_fn();
    let sees = ground.gdl_ii.then(|| emitter.generate_sees_fns());
    let move_places = emitter.move_place_tables();
    let fused = random_step.is_some();
    let legal_tables = emitter.legal_tables.take().into_values();
    let step_tables = emitter.step_tables.take().into_values();
    let tokens = quote! {
        #statics
        #move_places
        #(#legal_tables)*
        #(#step_tables)*
        #legal
        #next
        #terminal
        #goals
        #random_step
        #sees
    };
    (tokens, fused)
}

/// The functions of an rtGDL game's erased form: `legal`, `next`, `terminal` and `goals`, with
/// the move sets of `next` sized so that a role that does not move can be given the move index
/// `MOVES.len()`, which equals no move.
pub fn generate_realtime_functions(ground: &Ground) -> TokenStream {
    let mut emitter = Emitter::new(ground);
    emitter.room_for_no_move = true;
    let legal = emitter.generate_legal_fns();
    let next = emitter.generate_next_fn();
    let terminal = emitter.generate_terminal_fn();
    let goals = emitter.generate_goals_fn();
    let legal_tables = emitter.legal_tables.take().into_values();
    quote! {
        #(#legal_tables)*
        #legal
        #next
        #terminal
        #goals
    }
}

struct Emitter<'g> {
    ground: &'g Ground,
    /// Whether move sets have a bit for the index one past the last move (real-time games).
    room_for_no_move: bool,
    /// The recursive group of every node, as an index into `ground.cycles`.
    cycle_of: Vec<Option<usize>>,
    /// The function being generated keeps node values in a local array `n`: the slot of every
    /// node it computes (`u32::MAX` for the others). One array rather than a `let` per node
    /// keeps functions of thousands of nodes within what rustc and LLVM handle well.
    slots: RefCell<Vec<u32>>,
    /// The compile-time tables of the functions of the joint move, if any.
    tables: Option<MoveTables>,
    /// By role, the families of its moves' conditional frame rules (none without tables).
    arm_families: Vec<RoleArms>,
    /// For every node, its rule families, evaluated a word at a time (none for most nodes).
    families: Vec<Families>,
    /// For every node that is one conjunction of base literals, those literals.
    flat: Vec<Option<Vec<Lit>>>,
    /// The nodes evaluated 64 at a time, as words of a local array `g`.
    words: NodeWords,
    /// The kinds of moves of [`NodeWords::move_kinds`] that the generated code reads.
    move_kinds_read: RefCell<BTreeSet<u32>>,
    /// Whether the function being generated has the joint move's table row in `mt`, so that
    /// the nodes the table gives are read from it.
    in_move_phase: Cell<bool>,
    /// By role, the table of the move of every bit of its `LegalParts`, which `legal` and
    /// `random_step` share.
    legal_tables: RefCell<BTreeMap<usize, TokenStream>>,
    /// `random_step`'s tables, by role and name: the table of its draw when its legal moves
    /// hash to one (see [`super::pick_tables`]), and the frame and arm-family rows by drawn bit.
    step_tables: RefCell<BTreeMap<(usize, &'static str), TokenStream>>,
}

impl<'g> Emitter<'g> {
    fn new(ground: &'g Ground) -> Self {
        let mut cycle_of = vec![None; ground.nodes.len()];
        for (c, &(start, end)) in ground.cycles.iter().enumerate() {
            for slot in &mut cycle_of[start as usize..end as usize] {
                *slot = Some(c);
            }
        }
        Emitter {
            ground,
            room_for_no_move: false,
            cycle_of,
            slots: RefCell::new(vec![u32::MAX; ground.nodes.len()]),
            tables: None,
            arm_families: Vec::new(),
            families: Vec::new(),
            flat: super::families::flat_nodes(ground),
            words: NodeWords::none(ground.nodes.len()),
            move_kinds_read: RefCell::new(BTreeSet::new()),
            in_move_phase: Cell::new(false),
            legal_tables: RefCell::new(BTreeMap::new()),
            step_tables: RefCell::new(BTreeMap::new()),
        }
    }

    /// `legal(state, role, out)`, dispatching to one function per role.
    fn generate_legal_fns(&self) -> TokenStream {
        let mut fns = Vec::new();
        let mut arms = Vec::new();
        let flat = super::families::flat_nodes(self.ground);
        for (role, moves) in self.ground.legal.iter().enumerate() {
            let name = format_ident!("legal_{}", role);
            let guard = self.legal_guard(moves);
            let plan = self.legal_families(moves, &guard, &flat);
            let parts = LegalParts::new(&plan, moves, &self.words, &guard);
            let body = if plan.families.is_empty() && parts.group_words.is_empty() {
                let values: Vec<Value> = moves.iter().map(|&(_, v)| v).collect();
                let nodes = self.evaluate(&values);
                let pushes = moves.iter().filter(|(_, v)| *v != Value::Const(false)).map(|&(m, v)| {
                    let m = Literal::u32_unsuffixed(m);
                    match v {
                        Value::Const(_) => quote!(out.push(Move(#m));),
                        Value::Lit(lit) => {
                            let cond = self.lit(lit);
                            quote!(if #cond { out.push(Move(#m)); })
                        }
                    }
                });
                quote!(#nodes #(#pushes)*)
            } else {
                // The families a word at a time and the other moves one by one, into the words
                // of `LegalParts`, listed in their order: the order `random_step` draws in.
                let values = plan.values(moves);
                let nodes = self.evaluate(&values);
                let fill = self.fill_legal_parts(moves, &plan, &parts, &guard, TokenStream::new());
                let (declare, move_of) = parts.declare(role, &self.legal_tables);
                quote! {
                    #nodes
                    #declare
                    #fill
                    for (p, &word) in parts.iter().enumerate() {
                        let mut word = word;
                        while word != 0 {
                            let b = word.trailing_zeros();
                            out.push(Move(#move_of[p][b as usize]));
                            word &= word - 1;
                        }
                    }
                }
            };
            let role_name = &self.ground.roles[role];
            let doc = format!("Appends the legal moves of `{role_name}` in `s` to `out`.");
            fns.push(quote! {
                #[doc = #doc]

                fn #name(s: &State, out: &mut Vec<Move>) {
                    #body
                }
            });
            let r = Literal::usize_unsuffixed(role);
            arms.push(quote!(#r => #name(s, out),));
        }
        quote! {
            /// Appends `role`'s legal moves in `s` to `out`: in the order of [`MOVES`] for a role
            /// without families of moves (one rule over different places on the board), else in
            /// the order `random_step` draws from.
            pub fn legal(s: &State, role: usize, out: &mut Vec<Move>) {
                match role {
                    #(#arms)*
                    _ => {}
                }
            }
            #(#fns)*
        }
    }

    /// `sees(state, joint, role, out)` (GDL-II), dispatching to one function per role: like
    /// `next`, each evaluates the nodes its percepts need from the state and the joint move.
    fn generate_sees_fns(&self) -> TokenStream {
        let mut fns = Vec::new();
        let mut arms = Vec::new();
        for (role, percepts) in self.ground.sees.iter().enumerate() {
            let name = format_ident!("sees_{}", role);
            let values: Vec<Value> = percepts.iter().map(|&(_, v)| v).collect();
            let nodes = self.evaluate(&values);
            let pushes = percepts.iter().filter(|(_, v)| *v != Value::Const(false)).map(|&(p, v)| {
                let p = Literal::u32_unsuffixed(p);
                match v {
                    Value::Const(_) => quote!(out.push(#p);),
                    Value::Lit(lit) => {
                        let cond = self.lit(lit);
                        quote!(if #cond { out.push(#p); })
                    }
                }
            });
            let role_name = &self.ground.roles[role];
            let doc = format!("Appends what `{role_name}` perceives on the step from `s` by `joint` to `out`.");
            fns.push(quote! {
                #[doc = #doc]

                fn #name(s: &State, joint: &[Move; ROLES.len()], out: &mut Vec<u32>) {
                    #nodes
                    #(#pushes)*
                }
            });
            let r = Literal::usize_unsuffixed(role);
            arms.push(quote!(#r => #name(s, joint, out),));
        }
        quote! {
            /// Appends what `role` perceives on the step from `s` by `joint` (one move per role,
            /// in role order) to `out`, as indices into [`PERCEPTS`] in increasing order.
            pub fn sees(s: &State, joint: &[Move], role: usize, out: &mut Vec<u32>) {
                let joint: &[Move; ROLES.len()] = joint.try_into().expect("one move per role");
                match role {
                    #(#arms)*
                    _ => {}
                }
            }
            #(#fns)*
        }
    }

    /// `next(state, joint)`: the state after every role plays its move of `joint`.
    fn generate_next_fn(&self) -> TokenStream {
        self.in_move_phase.set(true);
        let needed = self.move_phase_cone();
        let declare = self.assign_slots(&needed);
        let row = self.move_table_row();
        let local = self.arm_only_nodes(&self.unframed_next());
        let dependent = super::cones::reads_moves(self.ground);
        let (after, before): (Vec<u32>, Vec<u32>) =
            needed.iter().copied().filter(|&n| !local[n as usize]).partition(|&n| dependent[n as usize]);
        let before = self.emit_nodes(&before);
        let after = self.emit_move_nodes(&after);
        let words = self.next_words(&local, &vec![false; self.ground.roles.len()]);
        self.in_move_phase.set(false);
        quote! {
            /// The state after every role plays its move of `joint` (one per role, in role order).

            pub fn next(s: &State, joint: &[Move]) -> State {
                let joint: &[Move; ROLES.len()] = joint.try_into().expect("one move per role");
                #declare
                #row
                #before
                #after
                #words
                State(w)
            }
        }
    }

    /// Whether base fact `i`'s next value comes from the frame tables.
    fn framed(&self, i: usize) -> bool {
        self.tables.as_ref().is_some_and(|t| t.framed[i])
    }

    /// The next-state values that the frame tables do not give.
    fn unframed_next(&self) -> Vec<Value> {
        self.ground
            .next
            .iter()
            .enumerate()
            .map(|(i, &v)| if self.framed(i) { Value::Const(false) } else { v })
            .collect()
    }

    /// For every node, whether only the conditions of conditional frame rules read it (and no
    /// value of `others`), and it is in no recursive group: the arm of a move evaluates those
    /// it needs, so that a step evaluates only its own moves' (connectFour's cells above each
    /// column's top).
    fn arm_only_nodes(&self, others: &[Value]) -> Vec<bool> {
        let mut local = vec![false; self.ground.nodes.len()];
        let Some(tables) = &self.tables else { return local };
        for n in self.runtime_cone(&tables.arm_values()) {
            local[n as usize] = self.cycle_of[n as usize].is_none();
        }
        for n in self.runtime_cone(others) {
            local[n as usize] = false;
        }
        local
    }

    /// The nodes `next` needs evaluated, sorted: those of the next values the frame tables do not
    /// give and of the conditions of the frame arms.
    fn move_phase_cone(&self) -> Vec<u32> {
        let mut values = self.unframed_next();
        values.extend(self.tables.iter().flat_map(MoveTables::arm_values));
        self.runtime_cone(&values)
    }

    /// The nodes that `values` need evaluated at run time, sorted: their cone, less the nodes
    /// the move table gives.
    fn runtime_cone(&self, values: &[Value]) -> Vec<u32> {
        self.whole_groups(self.cone_less_table(values))
    }

    /// The cone of `values`, sorted, less the nodes the move table gives, not yet widened to
    /// whole groups.
    fn cone_less_table(&self, values: &[Value]) -> Vec<u32> {
        match &self.tables {
            Some(tables) => tables.runtime_cone(self.ground, values),
            None => super::cones::Cones::new(self.ground).cone(values),
        }
    }

    /// The constant tables of the functions of the joint move: `MOVE_NODES[role][move]`, the
    /// bits of the nodes the table gives, and `FRAMES[role][move]`, the `keep` and `set`
    /// words of the framed next-state bits; the value for a joint move is the `|` of its
    /// roles' rows.
    fn generate_move_tables(&self) -> TokenStream {
        let Some(tables) = &self.tables else { return TokenStream::new() };
        let moves = self.ground.moves.len();
        let row = |table: &[u64], mv: usize, width: usize| {
            let words = table[mv * width..(mv + 1) * width].iter().copied().map(hex);
            quote!([#(#words),*])
        };
        let mut out = TokenStream::new();
        let roles = Literal::usize_unsuffixed(self.ground.roles.len());
        let moves_len = Literal::usize_unsuffixed(moves);
        if tables.node_words > 0 {
            let width = Literal::usize_unsuffixed(tables.node_words);
            let per_role = tables.node_table.iter().map(|table| {
                let rows = (0..moves).map(|mv| row(table, mv, tables.node_words));
                quote!([#(#rows),*])
            });
            out.extend(quote! {
                /// For every role and move, the derived propositions that read only the moves,
                /// as bits: a proposition holds after a joint move when one of its roles'
                /// rows has its bit.
                static MOVE_NODES: [[[u64; #width]; #moves_len]; #roles] = [#(#per_role),*];
            });
        }
        if tables.has_frames() && (0..self.ground.roles.len()).any(|role| self.constant_frames(role).is_none()) {
            let width = tables.state_words;
            let per_role = tables.keep_table.iter().zip(&tables.set_table).map(|(keep, set)| {
                let rows = (0..moves).map(|mv| {
                    let (keep, set) = (row(keep, mv, width), row(set, mv, width));
                    quote!([#keep, #set])
                });
                quote!([#(#rows),*])
            });
            out.extend(quote! {
                /// For every role and move, two words per state word, `keep` and `set`: a
                /// next-state bit that the table gives holds when it holds now and one of the
                /// joint move's `keep` rows has it, or one of its `set` rows has it.
                static FRAMES: [[[[u64; WORDS]; 2]; #moves_len]; #roles] = [#(#per_role),*];
            });
        }
        for (role, arms) in self.arm_families.iter().enumerate() {
            out.extend(arms.table(role, moves));
        }
        out
    }

    /// For every role with conditional frame rules, the word operations of its arm families
    /// (see [`super::arm_families`]) and a `match` on its other moves that sets the bits its
    /// move sets when their conditions on the state hold. Each arm first evaluates the nodes
    /// its conditions need of those `local` marks (see [`Emitter::arm_only_nodes`]).
    fn frame_arms(&self, tables: &MoveTables, local: &[bool], by_draw: &[bool]) -> TokenStream {
        let mut out = TokenStream::new();
        for (role, arms) in tables.arms.iter().enumerate() {
            let cases: Vec<TokenStream> = arms
                .iter()
                .enumerate()
                .filter(|&(mv, sets)| !sets.is_empty() && !self.arm_families.get(role).is_some_and(|a| a.in_family(mv)))
                .map(|(mv, sets)| {
                    let mv = Literal::u32_unsuffixed(mv as u32);
                    let reads: Vec<Value> =
                        sets.iter().flat_map(|(_, condition)| condition.iter().map(|&l| Value::Lit(l))).collect();
                    let own: Vec<u32> = self
                        .runtime_cone(&reads)
                        .into_iter()
                        .filter(|&n| local.get(n as usize) == Some(&true))
                        .collect();
                    let own = self.emit_nodes(&own);
                    let sets = sets.iter().map(|(i, condition)| {
                        let (w, bit) = (Literal::usize_unsuffixed(*i as usize / 64), Literal::u32_unsuffixed(i % 64));
                        let condition = join(&self.conjuncts(condition), quote!(&));
                        quote!(w[#w] |= u64::from(#condition) << #bit;)
                    });
                    quote!(#mv => { #own #(#sets)* })
                })
                .collect();
            if let Some(families) = self.arm_families.get(role) {
                let by_move = RoleArms::table_name(role);
                let row = role_row(role, by_draw[role], &RoleArms::table_at_bit_name(role), quote!(#by_move));
                out.extend(families.statements(row));
            }
            if cases.is_empty() {
                continue;
            }
            let r = Literal::usize_unsuffixed(role);
            out.extend(quote! {
                match joint[#r].0 {
                    #(#cases)*
                    _ => {}
                }
            });
        }
        out
    }

    /// `mt`, the `|` of the joint move's rows of `MOVE_NODES` (nothing without that table).
    fn move_table_row(&self) -> TokenStream {
        let Some(tables) = self.tables.as_ref().filter(|t| t.node_words > 0) else { return TokenStream::new() };
        let width = Literal::usize_unsuffixed(tables.node_words);
        quote! {
            let mut mt = [0u64; #width];
            for (r, m) in joint.iter().enumerate() {
                for (t, x) in mt.iter_mut().zip(&MOVE_NODES[r][m.0 as usize]) {
                    *t |= *x;
                }
            }
        }
    }

    /// Statements that compute the next state's words into `w`, from the state `s`, the joint
    /// move and the nodes next needs, already computed but for those `local` marks, which the
    /// arms of the conditional frame rules evaluate.
    /// `by_draw[r]`: role `r`'s frame and arm-family rows are looked up by its drawn bit
    /// `drawn_r` (in `random_step`) rather than by its move.
    fn next_words(&self, local: &[bool], by_draw: &[bool]) -> TokenStream {
        let words = words(self.ground.base.len());
        let mut always = vec![0u64; words];
        let mut sets = Vec::new();
        // Facts whose next values are nodes of a group: by state word, group and distance,
        // the bits to copy at once.
        let mut from_groups: BTreeMap<(usize, u32, i32), u64> = BTreeMap::new();
        for (i, v) in self.ground.next.iter().enumerate() {
            let (w, bit) = (i / 64, i % 64);
            if self.framed(i) {
                continue;
            }
            match *v {
                Value::Lit(Lit { prop: Prop::Node(n), positive: true }) if self.words.member[n as usize].is_some() => {
                    let (g, place) = self.words.member[n as usize].unwrap_or_default();
                    *from_groups.entry((w, g, bit as i32 - place as i32)).or_default() |= 1 << bit;
                }
                Value::Const(false) => {}
                Value::Const(true) => always[w] |= 1 << bit,
                // A fact that persists exactly when it holds: copy its bit.
                Value::Lit(Lit { prop: Prop::Base(b), positive: true }) if b as usize == i => {
                    let (wl, mask) = (Literal::usize_unsuffixed(w), hex(1 << bit));
                    sets.push(quote!(w[#wl] |= s.0[#wl] & #mask;));
                }
                Value::Lit(lit) => {
                    let (wl, bl) = (Literal::usize_unsuffixed(w), Literal::usize_unsuffixed(bit));
                    let cond = self.lit(lit);
                    sets.push(quote!(w[#wl] |= u64::from(#cond) << #bl;));
                }
            }
        }
        let always = always.into_iter().map(hex);
        let frames = self.tables.as_ref().filter(|t| t.has_frames()).map(|_| {
            // The rows of roles whose every move has the same row are or-ed here, once.
            let (mut keep, mut set) = (vec![0u64; words], vec![0u64; words]);
            let mut rows = Vec::new();
            for (role, &drawn) in by_draw.iter().enumerate() {
                match self.constant_frames(role) {
                    Some((k, x)) => {
                        keep.iter_mut().zip(&k).for_each(|(a, b)| *a |= b);
                        set.iter_mut().zip(&x).for_each(|(a, b)| *a |= b);
                    }
                    None => {
                        let r = Literal::usize_unsuffixed(role);
                        let row = role_row(role, drawn, &frames_at_name(role), quote!(FRAMES[#r]));
                        rows.push(quote!(&#row));
                    }
                }
            }
            let (keep, set) = (keep.into_iter().map(hex), set.into_iter().map(hex));
            let looked_up = (!rows.is_empty()).then(|| {
                quote! {
                    for [k, x] in [#(#rows),*] {
                        for i in 0..WORDS {
                            keep[i] |= k[i];
                            set[i] |= x[i];
                        }
                    }
                }
            });
            quote! {
                let mut keep: [u64; WORDS] = [#(#keep),*];
                let mut set: [u64; WORDS] = [#(#set),*];
                #looked_up
                for i in 0..WORDS {
                    w[i] |= (s.0[i] & keep[i]) | set[i];
                }
            }
        });
        sets.extend(from_groups.into_iter().map(|((w, g, up), mask)| {
            let (w, k, mask) = (Literal::usize_unsuffixed(w), Literal::u32_unsuffixed(g), hex(mask));
            let word = shifted(quote!(g[#k]), -up);
            quote!(w[#w] |= #word & #mask;)
        }));
        let arms = self.tables.as_ref().map(|tables| self.frame_arms(tables, local, by_draw));
        quote! {
            let mut w: [u64; WORDS] = [#(#always),*];
            #frames
            #arms
            #(#sets)*
        }
    }

    fn generate_terminal_fn(&self) -> TokenStream {
        let value = self.ground.terminal;
        let nodes = self.evaluate(&[value]);
        let result = self.value(value);
        quote! {
            /// Whether `s` is terminal.

            pub fn terminal(s: &State) -> bool {
                #nodes
                #result
            }
        }
    }

    fn generate_goals_fn(&self) -> TokenStream {
        let values: Vec<Value> = self.ground.goals.iter().flatten().map(|&(_, v)| v).collect();
        let nodes = self.evaluate(&values);
        let roles = self.ground.goals.iter().enumerate().map(|(role, goals)| {
            let r = Literal::usize_unsuffixed(role);
            // Smallest value first, so that the largest value the relation gives is the last
            // written and counts. Flat statements rather than an `else if` chain, which would
            // nest as deeply as the game has goal values.
            let sets = goals.iter().rev().map(|&(value, v)| {
                let value = Literal::u32_unsuffixed(value);
                match v {
                    Value::Const(true) => quote!(out[#r] = Some(#value);),
                    Value::Const(false) => quote!(),
                    Value::Lit(lit) => {
                        let cond = self.lit(lit);
                        quote!(if #cond { out[#r] = Some(#value); })
                    }
                }
            });
            quote!(out[#r] = None; #(#sets)*)
        });
        quote! {
            /// Fills `out[r]` with role `r`'s goal value in `s` (the largest the goal relation
            /// gives, `None` when it gives none).

            pub fn goals(s: &State, out: &mut [Option<u32>]) {
                #nodes
                #(#roles)*
            }
        }
    }

    /// Statements computing, in evaluation order, every node that `values` need, into the
    /// local array `n`.
    fn evaluate(&self, values: &[Value]) -> TokenStream {
        let needed = self.whole_groups(super::cones::Cones::new(self.ground).cone(values));
        let declare = self.assign_slots(&needed);
        let compute = self.emit_nodes(&needed);
        quote!(#declare #compute)
    }

    /// Gives every node of `needed` (sorted) a slot of the local array `n`, and returns the
    /// array's declaration (nothing when no node is needed).
    fn assign_slots(&self, needed: &[u32]) -> TokenStream {
        let mut slots = self.slots.borrow_mut();
        slots.iter_mut().for_each(|s| *s = u32::MAX);
        let (in_words, alone): (Vec<u32>, Vec<u32>) =
            needed.iter().partition(|&&n| self.words.member[n as usize].is_some());
        for (slot, &n) in alone.iter().enumerate() {
            slots[n as usize] = slot as u32;
        }
        let words = (!in_words.is_empty()).then(|| {
            let len = Literal::usize_unsuffixed(self.words.groups.len());
            quote!(let mut g = [0u64; #len];)
        });
        let nodes = (!alone.is_empty()).then(|| {
            let len = Literal::usize_unsuffixed(alone.len());
            quote!(let mut n = [false; #len];)
        });
        quote!(#nodes #words)
    }

    /// Statements computing the nodes of `nodes` (sorted, each recursive group whole) into
    /// their slots.
    fn emit_nodes(&self, nodes: &[u32]) -> TokenStream {
        let mut nodes = nodes.to_vec();
        nodes.sort_by_key(|&n| self.words.rank[n as usize]);
        let twins = self.twins(&nodes);
        let mut out = Vec::new();
        let mut emitted = BTreeSet::new();
        let mut i = 0;
        while i < nodes.len() {
            let n = nodes[i];
            match twins.get(&n) {
                Some(&Some(m)) => {
                    out.push(self.twin_runs(n, m));
                    i += 1;
                    continue;
                }
                // Computed with its twin.
                Some(None) => {
                    i += 1;
                    continue;
                }
                None => {}
            }
            if let Some((g, _)) = self.words.member[n as usize] {
                if self.words.groups[g as usize].gathered {
                    out.push(self.store_node(n, self.node_expr(n)));
                } else if emitted.insert(g) {
                    out.push(self.group_word(g));
                }
                i += 1;
                continue;
            }
            match self.cycle_of[n as usize] {
                None => {
                    out.push(self.node_expr(n).store(&self.slot(n)));
                    i += 1;
                }
                Some(c) => {
                    let group: Vec<u32> =
                        nodes[i..].iter().copied().take_while(|&m| self.cycle_of[m as usize] == Some(c)).collect();
                    i += group.len();
                    out.push(self.cycle(&group));
                }
            }
        }
        quote!(#(#out)*)
    }

    /// A node whose value is only runs (see [`run_shifts`]) within one state word, as
    /// connectFour's "a line of red" is: that word and the runs' families.
    fn run_node(&self, n: u32) -> Option<(usize, &[Family])> {
        let node = self.families.get(n as usize)?;
        let whole = node.rules == self.ground.nodes[n as usize].rules.len();
        if node.families.is_empty()
            || !whole
            || self.cycle_of[n as usize].is_some()
            || self.words.member[n as usize].is_some()
        {
            return None;
        }
        let mut word = None;
        for family in &node.families {
            let run = run_shifts(family)?;
            let mut words = family.anchors.iter().enumerate().filter(|(_, &anchors)| anchors != 0);
            let (k, &anchors) = words.next()?;
            if words.next().is_some() || !run.fits(anchors) || *word.get_or_insert(k) != k {
                return None;
            }
        }
        Some((word?, &node.families))
    }

    /// Twin nodes among `nodes`: two nodes of runs (see [`Emitter::run_node`]) with the same
    /// literals in two words (a line of red and a line of black), tested together in one
    /// [`Pair`](gdl_runtime::pair::Pair) where the first is. The first maps to its twin, the
    /// second to `None`. They read only the state, so the second may be computed early.
    fn twins(&self, nodes: &[u32]) -> BTreeMap<u32, Option<u32>> {
        let runs: Vec<(u32, usize, &[Family])> =
            nodes.iter().filter_map(|&n| self.run_node(n).map(|(word, families)| (n, word, families))).collect();
        let same =
            |a: &[Family], b: &[Family]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.literals == y.literals);
        let mut twins = BTreeMap::new();
        for (i, &(n, word, families)) in runs.iter().enumerate() {
            if twins.contains_key(&n) {
                continue;
            }
            let twin = runs[i + 1..]
                .iter()
                .find(|&&(m, other, theirs)| other != word && !twins.contains_key(&m) && same(families, theirs));
            if let Some(&(m, _, _)) = twin {
                twins.insert(n, Some(m));
                twins.insert(m, None);
            }
        }
        twins
    }

    /// Twin nodes `n` and `m` (see [`Emitter::twins`]) stored from one
    /// [`Pair`](gdl_runtime::pair::Pair), `n`'s word in its low lane.
    fn twin_runs(&self, n: u32, m: u32) -> TokenStream {
        let ((low, ours), (high, theirs)) =
            (self.run_node(n).expect("a run node"), self.run_node(m).expect("a run node"));
        let runs: Vec<TokenStream> = ours.iter().zip(theirs).map(|(a, b)| run_in_pair((a, low), (b, high))).collect();
        let (first, rest) = runs.split_first().expect("a run node has families");
        let (n, m) = (self.slot(n), self.slot(m));
        quote! {{
            let [low, high] = #first #(.or(#rest))*.lanes();
            n[#n] = low != 0;
            n[#m] = high != 0;
        }}
    }

    /// Statements computing the nodes of `after` (sorted), which read the joint move, after
    /// every node they read that does not: the nodes that [`move_guards::find`] guards in a
    /// `match` on each role's move (each arm with the move's literals known), then the others
    /// in order.
    fn emit_move_nodes(&self, after: &[u32]) -> TokenStream {
        let mut plain = vec![false; self.ground.nodes.len()];
        for &n in after {
            plain[n as usize] = self.rule_by_rule(n) && !self.in_template_group(n);
        }
        let in_cycle = super::cones::in_cycle(self.ground);
        let guards = move_guards::find(self.ground, after, &plain, &in_cycle);
        let mut arms: BTreeMap<(u32, u32), Vec<TokenStream>> = BTreeMap::new();
        let mut rest = Vec::new();
        for &n in after {
            let rules = &self.ground.nodes[n as usize].rules;
            match &guards[n as usize] {
                None => rest.push(n),
                Some(Guard::Role { role, moves }) => {
                    for &m in moves {
                        let known: Vec<Vec<Lit>> =
                            rules.iter().filter_map(|rule| played(rule, *role, m, &guards)).collect();
                        if known.is_empty() {
                            continue;
                        }
                        arms.entry((*role, m))
                            .or_default()
                            .push(self.store_node(n, self.rules_expr(&known, Vec::new())));
                    }
                }
                Some(Guard::Rules(by_rule)) => {
                    for (rule, (role, moves)) in rules.iter().zip(by_rule) {
                        for &m in moves {
                            let Some(known) = played(rule, *role, m, &guards) else { continue };
                            arms.entry((*role, m))
                                .or_default()
                                .push(self.or_node(n, self.rules_expr(&[known], Vec::new())));
                        }
                    }
                }
            }
        }
        let matches = (0..self.ground.roles.len() as u32).filter_map(|role| {
            let arms: Vec<TokenStream> = arms
                .range((role, 0)..=(role, u32::MAX))
                .map(|(&(_, m), statements)| {
                    let m = Literal::u32_unsuffixed(m);
                    quote!(#m => { #(#statements)* })
                })
                .collect();
            let r = Literal::usize_unsuffixed(role as usize);
            (!arms.is_empty()).then(|| {
                quote! {
                    match joint[#r].0 {
                        #(#arms)*
                        _ => {}
                    }
                }
            })
        });
        let rest = self.emit_nodes(&rest);
        quote!(#(#matches)* #rest)
    }

    /// A role's guard in `random_step`: a literal of the state that the conditions of at least
    /// [`GUARD_MIN`] of its moves imply (each is that literal, or a node every rule of which
    /// has it), with which of `moves` it guards. When it fails, those moves are not legal and
    /// nothing only they read needs evaluating: in a turn-taking game, the mover's moves all
    /// imply its `control`.
    fn legal_guard(&self, moves: &[(u32, Value)]) -> Option<(Lit, Vec<bool>)> {
        let implied: Vec<Vec<Lit>> = moves.iter().map(|&(_, v)| self.implied_base_literals(v)).collect();
        let mut counts: std::collections::BTreeMap<Lit, usize> = std::collections::BTreeMap::new();
        for lit in implied.iter().flatten() {
            *counts.entry(*lit).or_default() += 1;
        }
        // The most common literal; the first in literal order among equals.
        let (&guard, &count) = counts.iter().rev().max_by_key(|&(_, &count)| count)?;
        (count >= GUARD_MIN).then(|| (guard, implied.iter().map(|lits| lits.contains(&guard)).collect()))
    }

    /// The literals of base facts that `value` implies, sorted.
    fn implied_base_literals(&self, value: Value) -> Vec<Lit> {
        match value {
            Value::Lit(lit @ Lit { prop: Prop::Base(_), .. }) => vec![lit],
            Value::Lit(Lit { prop: Prop::Node(n), positive: true }) => {
                let rules = &self.ground.nodes[n as usize].rules;
                let mut common: Vec<Lit> = match rules.first() {
                    Some(rule) => rule.iter().copied().filter(|l| matches!(l.prop, Prop::Base(_))).collect(),
                    None => return Vec::new(),
                };
                for rule in &rules[1..] {
                    common.retain(|l| rule.contains(l));
                }
                common.sort_unstable();
                common.dedup();
                common
            }
            _ => Vec::new(),
        }
    }

    /// For every node, the role whose guarded moves alone read it (`None` for the others):
    /// those nodes are evaluated in the role's choice, and only when its guard holds.
    /// `terminal` and `next` are the other values that `random_step` evaluates.
    fn guarded_only_nodes(
        &self,
        terminal: &[Value],
        legal: &[Vec<Value>],
        guards: &[Option<(Lit, Vec<bool>)>],
        next: &[Value],
    ) -> Vec<Option<usize>> {
        let cone = |values: &[Value]| self.runtime_cone(values);
        let mut others: Vec<Value> = terminal.iter().chain(next).copied().collect();
        let mut readers = vec![0u32; self.ground.nodes.len()];
        let mut owner = vec![None; self.ground.nodes.len()];
        for (role, (moves, guard)) in legal.iter().zip(guards).enumerate() {
            let mut guarded = Vec::new();
            for (i, &v) in moves.iter().enumerate() {
                if guards_move(guard, i) {
                    guarded.push(v);
                } else {
                    others.push(v);
                }
            }
            if guarded.is_empty() {
                continue;
            }
            for n in cone(&guarded) {
                readers[n as usize] += 1;
                owner[n as usize] = Some(role);
            }
        }
        for n in cone(&others) {
            readers[n as usize] += 1;
        }
        owner.iter().zip(&readers).map(|(&o, &count)| if count == 1 { o } else { None }).collect()
    }

    /// A role's legal moves that are evaluated as families: the moves whose condition is one
    /// conjunction of base literals (beside the role's guard, tested before them), grouped by
    /// shape, at least [`super::families::FAMILY_MIN`] to a family.
    fn legal_families(
        &self,
        moves: &[(u32, Value)],
        guard: &Option<(Lit, Vec<bool>)>,
        flat: &[Option<Vec<Lit>>],
    ) -> LegalFamilies {
        // (guarded, shape) -> (anchor, move, index into `moves`) of the moves of that shape.
        type Shapes = std::collections::BTreeMap<(bool, Vec<(u32, bool)>), Vec<(u32, u32, usize)>>;
        let mut shapes = Shapes::new();
        for (i, &(m, v)) in moves.iter().enumerate() {
            let lits = match v {
                Value::Lit(lit @ Lit { prop: Prop::Base(_), .. }) => vec![lit],
                Value::Lit(Lit { prop: Prop::Node(n), positive: true }) => match &flat[n as usize] {
                    Some(lits) => lits.clone(),
                    None => continue,
                },
                _ => continue,
            };
            let guarded = guard.as_ref().filter(|(_, g)| g[i]).map(|&(lit, _)| lit);
            let lits: Vec<Lit> = lits.into_iter().filter(|&l| Some(l) != guarded).collect();
            if lits.is_empty() {
                continue;
            }
            let (anchor, shape) = super::families::shape_of(&lits);
            if super::families::satisfiable(&shape) {
                shapes.entry((guarded.is_some(), shape)).or_default().push((anchor, m, i));
            }
        }
        let words = words(self.ground.base.len());
        let mut plan = LegalFamilies { member: vec![false; moves.len()], families: Vec::new() };
        // The largest families first, at most MAX_LEGAL_FAMILIES of them: each is a loop in
        // every function that lists the role's moves, and thousands of them (amazons-like
        // games have a family per direction and distance) make rustc take minutes.
        let mut shapes: Vec<_> = shapes.into_iter().collect();
        shapes.sort_by_key(|(_, members)| std::cmp::Reverse(members.len()));
        shapes.truncate(MAX_LEGAL_FAMILIES);
        for ((guarded, literals), mut members) in shapes {
            // One move per anchor: moves whose condition is the very same stay single.
            members.sort_by_key(|&(anchor, _, _)| anchor);
            members.dedup_by_key(|&mut (anchor, _, _)| anchor);
            if members.len() < super::families::FAMILY_MIN {
                continue;
            }
            let mut anchors = vec![0u64; words];
            let mut moves_of = Vec::new();
            for &(anchor, m, i) in &members {
                anchors[anchor as usize / 64] |= 1 << (anchor % 64);
                moves_of.push((anchor, m));
                plan.member[i] = true;
            }
            plan.families.push(LegalFamily { family: Family { literals, anchors }, moves_of, guarded });
        }
        plan
    }

    /// Statements that set the bits of `parts` for a role's legal moves: its families a word at
    /// a time and its other moves one by one. Those its guard guards are set only when the guard
    /// holds, after `exclusive`, which computes the nodes only they read.
    fn fill_legal_parts(
        &self,
        moves: &[(u32, Value)],
        plan: &LegalFamilies,
        parts: &LegalParts,
        guard: &Option<(Lit, Vec<bool>)>,
        exclusive: TokenStream,
    ) -> TokenStream {
        let guarded = |i: usize| guards_move(guard, i);
        let (mut open, mut behind_guard) = (parts.group_word_sets(false), parts.group_word_sets(true));
        for (i, m, v) in plan.singles(moves) {
            if parts.in_group_word(m) {
                continue;
            }
            let code = parts.single(m, self.value(v));
            if guarded(i) {
                behind_guard.push(code)
            } else {
                open.push(code)
            }
        }
        for (f, family) in plan.families.iter().enumerate() {
            let code = parts.family(f, family);
            if family.guarded {
                behind_guard.push(code)
            } else {
                open.push(code)
            }
        }
        let guard = guard.as_ref().map(|&(lit, _)| {
            let lit = self.lit(lit);
            quote! {
                if #lit {
                    #exclusive
                    #(#behind_guard)*
                }
            }
        });
        quote!(#guard #(#open)*)
    }

    /// `random_step(state, rng)`: one step of a uniformly random playout, with every derived
    /// proposition that terminal, legal and next share computed once. It draws the same random
    /// numbers and picks the same moves as `gdl_runtime`'s default `Game::random_step` over
    /// `legal` and `next`. `None` when the game has a terminal or legal proposition that
    /// depends on the joint move (which valid GDL rules out), so that the default is used.
    fn generate_random_step_fn(&self) -> Option<TokenStream> {
        // Each role's guard, and its moves evaluated as families a word at a time; those need
        // no node evaluated.
        let guards: Vec<Option<(Lit, Vec<bool>)>> =
            self.ground.legal.iter().map(|moves| self.legal_guard(moves)).collect();
        let flat = super::families::flat_nodes(self.ground);
        let plans: Vec<LegalFamilies> = self
            .ground
            .legal
            .iter()
            .zip(&guards)
            .map(|(moves, guard)| self.legal_families(moves, guard, &flat))
            .collect();
        let legal_values: Vec<Vec<Value>> =
            self.ground.legal.iter().zip(&plans).map(|(moves, plan)| plan.values(moves)).collect();
        let mut values: Vec<Value> = vec![self.ground.terminal];
        values.extend(legal_values.iter().flatten().copied());
        let state_values = values.len();
        values.extend(self.unframed_next());
        values.extend(self.tables.iter().flat_map(MoveTables::arm_values));
        let needed = self.runtime_cone(&values);
        let dependent = super::cones::reads_moves(self.ground);
        let depends = |v: &Value| {
            matches!(v, Value::Lit(Lit { prop: Prop::Node(n), .. }) if dependent[*n as usize])
                || matches!(v, Value::Lit(Lit { prop: Prop::Does(..), .. }))
        };
        if values[..state_values].iter().any(depends) || self.ground.legal.iter().flatten().any(|(_, v)| depends(v)) {
            return None;
        }
        let declare = self.assign_slots(&needed);
        // The nodes only a role's guarded moves read are computed only when its guard holds.
        let guarded_only = self.guarded_only_nodes(&values[..1], &legal_values, &guards, &values[state_values..]);
        let local = self.arm_only_nodes(&values[..state_values + self.ground.next.len()]);
        let (after, before): (Vec<u32>, Vec<u32>) = needed
            .iter()
            .filter(|&&n| guarded_only[n as usize].is_none() && !local[n as usize])
            .partition(|&&n| dependent[n as usize]);
        let state_nodes = self.emit_nodes(&before);
        self.in_move_phase.set(true);
        let row = self.move_table_row();
        let move_nodes = self.emit_move_nodes(&after);
        self.in_move_phase.set(false);
        let terminal = self.value(self.ground.terminal);
        // The frame and arm-family rows of a role whose draw is in few words are looked up by
        // the drawn bit: a load fewer on the path from one state to the next than by move.
        let all_parts: Vec<LegalParts> = self
            .ground
            .legal
            .iter()
            .zip(&plans)
            .zip(&guards)
            .map(|((moves, plan), guard)| LegalParts::new(plan, moves, &self.words, guard))
            .collect();
        let by_draw: Vec<bool> = all_parts.iter().map(|parts| self.rows_by_draw(parts)).collect();
        let choices = self.ground.legal.iter().enumerate().map(|(role, moves)| {
            let r = Literal::usize_unsuffixed(role);
            let plan = &plans[role];
            let parts = &all_parts[role];
            let exclusive: Vec<u32> =
                needed.iter().copied().filter(|&n| guarded_only[n as usize] == Some(role)).collect();
            let fill = self.fill_legal_parts(moves, plan, parts, &guards[role], self.emit_nodes(&exclusive));
            // The draw is among the set bits in the order `legal` lists them, so that it picks
            // the move the general interface picks.
            let (declare, move_of) = parts.declare(role, &self.legal_tables);
            // One word with few bits that can be set: a table lists the bits of each set.
            let hash = match parts.words.as_slice() {
                [(used, _)] => PickHash::find(*used),
                _ => None,
            };
            let drawn = format_ident!("drawn_{}", role);
            // The drawn bit is below `64 * words`; saying so with a mask (free when that is a
            // power of two) lets the compiler drop the bounds checks of the tables it indexes,
            // and with them the move's lookup when nothing reads the move.
            let bits = 64 * parts.words.len();
            let in_range = bits.is_power_of_two().then(|| {
                let mask = Literal::usize_unsuffixed(bits - 1);
                quote!(let #drawn = #drawn & #mask;)
            });
            let draw = match hash {
                Some(hash) => {
                    let table = super::pick_tables::table_name(role);
                    self.step_tables.borrow_mut().entry((role, "pick")).or_insert_with(|| hash.table(&table));
                    let row = hash.row(&table, quote!(parts[0]));
                    quote! {
                        let #drawn = match ::gdl_runtime::bits::pick_listed(#row, rng) {
                            Some(b) => b as usize,
                            None => return None,
                        };
                    }
                }
                None => quote! {
                    let #drawn = match ::gdl_runtime::bits::pick(&parts, rng) {
                        Some((p, b)) => 64 * p + b as usize,
                        None => return None,
                    };
                },
            };
            if by_draw[role] {
                self.bit_tables(role, parts);
            }
            quote! {
                #declare
                #fill
                #draw
                #in_range
                joint[#r] = Move(#move_of[#drawn / 64][#drawn % 64]);
            }
        });
        self.in_move_phase.set(true);
        let next_words = self.next_words(&local, &by_draw);
        self.in_move_phase.set(false);
        let roles = Literal::usize_unsuffixed(self.ground.roles.len());
        Some(quote! {
            /// One step of a uniformly random playout from `s`: `None` when `s` is terminal or a
            /// role has no legal move, else the state after every role plays a move drawn
            /// uniformly among its legal ones (one draw per role with several moves, in role
            /// order).

            pub fn random_step(s: &State, rng: &mut ::gdl_runtime::rng::Rng) -> Option<State> {
                #declare
                #state_nodes
                if #terminal {
                    return None;
                }
                let mut joint = [Move(0); #roles];
                #(#choices)*
                let joint = &joint;
                #row
                #move_nodes
                #next_words
                Some(State(w))
            }
        })
    }

    /// Whether `random_step` looks up a role's frame and arm-family rows by the bit it draws
    /// from `parts`: when there are rows to look up and the tables by bit stay small.
    fn rows_by_draw(&self, parts: &LegalParts) -> bool {
        let Some(tables) = self.tables.as_ref().filter(|t| t.has_frames()) else { return false };
        let bytes = parts.words.len() * 64 * 2 * tables.state_words * 8;
        bytes <= MAX_BIT_TABLE_BYTES
    }

    /// Makes role `role`'s tables of frame rows and arm-family rows by drawn bit (`64 * word +
    /// bit` of `parts`): a bit no move takes gets the row of move 0, and is never drawn.
    fn bit_tables(&self, role: usize, parts: &LegalParts) {
        let Some(tables) = &self.tables else { return };
        let width = tables.state_words;
        let moves_by_bit: Vec<u32> = parts.words.iter().flat_map(|(_, row)| row.iter().copied()).collect();
        if let Some(arms) = self.arm_families.get(role) {
            self.step_tables.borrow_mut().insert((role, "arms"), arms.table_at_bits(role, &moves_by_bit));
        }
        if self.constant_frames(role).is_some() {
            return;
        }
        let rows = moves_by_bit.iter().map(|&m| {
            let at = m as usize * width;
            let keep = tables.keep_table[role][at..at + width].iter().copied().map(hex);
            let set = tables.set_table[role][at..at + width].iter().copied().map(hex);
            quote!([[#(#keep),*], [#(#set),*]])
        });
        let name = frames_at_name(role);
        let size = Literal::usize_unsuffixed(moves_by_bit.len());
        let doc = format!("The `FRAMES` row of role {role}'s move of every bit that `random_step` may draw.");
        self.step_tables.borrow_mut().insert(
            (role, "frames"),
            quote! {
                #[doc = #doc]
                static #name: [[[u64; WORDS]; 2]; #size] = [#(#rows),*];
            },
        );
    }

    /// Role `role`'s `keep` and `set` words when every move it may play has the same ones
    /// (connectFour's drops keep every cell and set none): they are then constants of `next`,
    /// not rows looked up by the move.
    fn constant_frames(&self, role: usize) -> Option<(Vec<u64>, Vec<u64>)> {
        let tables = self.tables.as_ref()?;
        let width = tables.state_words;
        let row = |m: u32| {
            let at = m as usize * width;
            (&tables.keep_table[role][at..at + width], &tables.set_table[role][at..at + width])
        };
        let (first, rest) = self.ground.inputs.get(role)?.split_first()?;
        let (keep, set) = row(*first);
        rest.iter().all(|&m| row(m) == (keep, set)).then(|| (keep.to_vec(), set.to_vec()))
    }

    /// The bit of `node` in the move table, when the table gives it.
    fn table_bit(&self, node: u32) -> Option<u32> {
        self.tables.as_ref().and_then(|t| t.node_bit[node as usize])
    }

    fn slot(&self, node: u32) -> Literal {
        Literal::u32_unsuffixed(self.slots.borrow()[node as usize])
    }

    /// A recursive group: every node starts false and the rules are applied until nothing changes.
    fn cycle(&self, group: &[u32]) -> TokenStream {
        let updates = group.iter().map(|&n| {
            let slot = self.slot(n);
            let disjuncts = self.node_expr(n).disjuncts();
            quote! {
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

    /// A node's value: the disjunction of its rules, each the conjunction of its literals; one
    /// expression when it is short, else one expression per rule (a long chain of `||` would
    /// nest too deeply for rustc). Rules that differ only by the move they need (frame rules
    /// ground to one rule per move that leaves a fact alone) are merged into one conjunction
    /// with a test of the joint move against a set of moves.
    fn node_expr(&self, n: u32) -> Expr {
        let rules = &self.ground.nodes[n as usize].rules;
        if let Some(table) = self.truth_table(n) {
            return Expr::Short(table.expr());
        }
        let (rules, mut disjuncts) = match self.families.get(n as usize) {
            Some(f) if !f.families.is_empty() => {
                (&rules[f.rules..], f.families.iter().map(|family| self.family_expr(family)).collect())
            }
            _ => (&rules[..], Vec::<TokenStream>::new()),
        };
        let (by_words, rest) = self.word_families(rules);
        disjuncts.extend(by_words);
        self.rules_expr(&rest, disjuncts)
    }

    /// The value of `rules` or-ed with `disjuncts` (already generated), as [`node_expr`] gives
    /// it.
    ///
    /// [`node_expr`]: Self::node_expr
    fn rules_expr(&self, rules: &[Vec<Lit>], mut disjuncts: Vec<TokenStream>) -> Expr {
        disjuncts.extend(merge_move_rules(rules).into_iter().map(|(rest, moves)| {
            let mut conjuncts = self.conjuncts(&rest);
            if !moves.is_empty() {
                conjuncts.push(self.moves_test(&moves));
            }
            if conjuncts.is_empty() {
                quote!(true)
            } else {
                join(&conjuncts, quote!(&))
            }
        }));
        let literals: usize = rules.iter().map(Vec::len).sum();
        if disjuncts.is_empty() {
            Expr::Short(quote!(false))
        } else if disjuncts.len() == 1 || (disjuncts.len() <= SHORT_RULES && literals <= SHORT_LITERALS) {
            Expr::Short(join(&disjuncts, quote!(|)))
        } else {
            Expr::Long(disjuncts)
        }
    }

    /// Whether node `n` is evaluated rule by rule: it has no word families and no truth table.
    fn rule_by_rule(&self, n: u32) -> bool {
        self.families.get(n as usize).is_none_or(|f| f.families.is_empty()) && self.truth_table(n).is_none()
    }

    /// The truth table of a node with no families whose rules read only base facts (through
    /// nodes that are conjunctions of them), when they fit one (see [`TruthTable::of`]).
    fn truth_table(&self, n: u32) -> Option<TruthTable> {
        if self.families.get(n as usize).is_some_and(|f| !f.families.is_empty()) || self.cycle_of[n as usize].is_some()
        {
            return None;
        }
        let rules = &self.ground.nodes[n as usize].rules;
        let flat: Vec<Vec<Lit>> =
            rules.iter().map(|rule| super::families::flatten(rule, &self.flat)).collect::<Option<_>>()?;
        TruthTable::of(&flat)
    }

    /// Whether some rule of a family holds: per state word with anchors, the `&` of the state
    /// shifted so that each literal's facts line up with the anchors, and of the anchors. A run
    /// (see [`run_in_word`]) tests its words two at a time, as one [`Pair`](gdl_runtime::pair::Pair).
    fn family_expr(&self, family: &Family) -> TokenStream {
        let words: Vec<usize> =
            family.anchors.iter().enumerate().filter(|(_, &mask)| mask != 0).map(|(k, _)| k).collect();
        let (paired, single): (Vec<usize>, Vec<usize>) = match run_shifts(family) {
            Some(run) => words.iter().partition(|&&k| run.fits(family.anchors[k])),
            None => (Vec::new(), words),
        };
        let pairs = paired.chunks_exact(2);
        let mut single: Vec<usize> = pairs.remainder().iter().copied().chain(single).collect();
        single.sort_unstable();
        let mut tests: Vec<TokenStream> =
            pairs.map(|pair| run_in_pair((family, pair[0]), (family, pair[1]))).map(|run| quote!(#run.any())).collect();
        if !single.is_empty() {
            let terms: Vec<TokenStream> = single.iter().map(|&k| family_word(family, k)).collect();
            let any = join(&terms, quote!(|));
            tests.push(quote!(#any != 0));
        }
        match tests.as_slice() {
            [test] => test.clone(),
            _ => {
                let tests = tests.iter().map(|test| quote!((#test)));
                quote!(#(#tests)|*)
            }
        }
    }

    /// The literals of a rule as tests to join with `&` (no short-circuit, so no branches):
    /// the base literals of one state word become one mask comparison, the
    /// others one test each.
    fn conjuncts(&self, rule: &[Lit]) -> Vec<TokenStream> {
        // (word, mask of the literals' bits, bits that must be set), in order of first use.
        let mut words: Vec<(u32, u64, u64)> = Vec::new();
        let mut others = Vec::new();
        for &lit in rule {
            match lit.prop {
                Prop::Base(i) => {
                    let (w, bit) = (i / 64, 1u64 << (i % 64));
                    let at = match words.iter().position(|&(word, _, _)| word == w) {
                        Some(at) => at,
                        None => {
                            words.push((w, 0, 0));
                            words.len() - 1
                        }
                    };
                    words[at].1 |= bit;
                    if lit.positive {
                        words[at].2 |= bit;
                    }
                }
                _ => {
                    others.push(self.lit(lit));
                }
            }
        }
        let mut out: Vec<TokenStream> = words
            .into_iter()
            .map(|(w, mask, set)| {
                let w = Literal::usize_unsuffixed(w as usize);
                if set == 0 {
                    let mask = hex(mask);
                    quote!(s.0[#w] & #mask == 0)
                } else if set == mask {
                    let mask = hex(mask);
                    quote!(s.0[#w] & #mask == #mask)
                } else {
                    let (mask, set) = (hex(mask), hex(set));
                    quote!(s.0[#w] & #mask == #set)
                }
            })
            .collect();
        out.extend(others);
        out
    }

    /// Whether some role plays one of its moves in `moves` (pairs of role and move, sorted): a
    /// comparison for a role with few moves, else a lookup in a constant bit set.
    fn moves_test(&self, moves: &[(u32, u32)]) -> TokenStream {
        let mut tests = Vec::new();
        for role in 0..self.ground.roles.len() as u32 {
            let of_role: Vec<usize> = moves.iter().filter(|&&(r, _)| r == role).map(|&(_, m)| m as usize).collect();
            let r = Literal::usize_unsuffixed(role as usize);
            if of_role.len() < MOVE_SET_MIN {
                tests.extend(of_role.iter().map(|&m| {
                    let m = Literal::u32_unsuffixed(m as u32);
                    quote!(joint[#r].0 == #m)
                }));
                continue;
            }
            let indices = self.ground.moves.len() + usize::from(self.room_for_no_move);
            let mut bits = vec![0u64; indices.div_ceil(64).max(1)];
            for m in of_role {
                bits[m / 64] |= 1 << (m % 64);
            }
            let len = Literal::usize_unsuffixed(bits.len());
            let bits = bits.into_iter().map(hex);
            tests.push(quote! {{
                const SET: [u64; #len] = [#(#bits),*];
                let m = joint[#r].0 as usize;
                SET[m / 64] >> (m % 64) & 1 != 0
            }});
        }
        join(&tests, quote!(|))
    }

    fn value(&self, value: Value) -> TokenStream {
        match value {
            Value::Const(true) => quote!(true),
            Value::Const(false) => quote!(false),
            Value::Lit(lit) => self.lit(lit),
        }
    }

    /// A literal as an expression that needs no parentheses inside `&&` and `||`.
    fn lit(&self, lit: Lit) -> TokenStream {
        let positive = lit.positive;
        match lit.prop {
            Prop::Base(i) => {
                let (w, mask) = (Literal::usize_unsuffixed(i as usize / 64), hex(1 << (i % 64)));
                if positive {
                    quote!(s.0[#w] & #mask != 0)
                } else {
                    quote!(s.0[#w] & #mask == 0)
                }
            }
            Prop::Does(r, m) => {
                let (r, m) = (Literal::usize_unsuffixed(r as usize), Literal::u32_unsuffixed(m));
                if positive {
                    quote!(joint[#r].0 == #m)
                } else {
                    quote!(joint[#r].0 != #m)
                }
            }
            Prop::Node(node) if self.in_move_phase.get() && self.table_bit(node).is_some() => {
                let bit = self.table_bit(node).unwrap_or_default() as usize;
                let (w, mask) = (Literal::usize_unsuffixed(bit / 64), hex(1 << (bit % 64)));
                if positive {
                    quote!(mt[#w] & #mask != 0)
                } else {
                    quote!(mt[#w] & #mask == 0)
                }
            }
            Prop::Node(node) if self.words.member[node as usize].is_some() => {
                // A mask, not a shift: rustc resolves `u64 >> {integer}` among many impls, and
                // takes seconds over the thousands of reads of a large module.
                let (g, place) = self.words.member[node as usize].unwrap_or_default();
                let (k, mask) = (Literal::u32_unsuffixed(g), hex(1 << place));
                if positive {
                    quote!(g[#k] & #mask != 0)
                } else {
                    quote!(g[#k] & #mask == 0)
                }
            }
            Prop::Node(node) => {
                let slot = self.slot(node);
                if positive {
                    quote!(n[#slot])
                } else {
                    quote!(!n[#slot])
                }
            }
            // `generate_module` gives games with checked relations the table form only.
            Prop::Check(_) => unreachable!("checked relations in the straight-line form"),
        }
    }
}

/// A family of a role's legal moves: their shape and anchors, each anchor's move, and whether
/// the role's guard guards them.
struct LegalFamily {
    family: Family,
    moves_of: Vec<(u32, u32)>,
    guarded: bool,
}

/// Where a role's legal moves are kept while they are found: a few words whose bits stand for
/// moves, each with a table of the move of every bit. A family's anchors in one state word keep
/// their bit positions, so its moves are set with one word operation; the words of several
/// families share a word when their anchors do not meet, and every other move takes a free
/// bit. `random_step` draws among the set bits word by word, from the lowest bit, and `legal`
/// lists them in that order.
struct LegalParts {
    /// For every word, its bits in use and the move of each.
    words: Vec<(u64, [u32; 64])>,
    /// For every family and state word with anchors of it (in order), the word it goes into.
    family_words: Vec<Vec<usize>>,
    /// For every move outside the families (by move index), its word and bit.
    single_bits: BTreeMap<u32, (usize, u32)>,
    /// Moves whose conditions are nodes of one group of [`NodeWords`] that its guard guards
    /// alike: the group, the word they go into at their places, those places, and whether the
    /// guard guards them.
    group_words: Vec<(u32, usize, u64, bool)>,
}

impl LegalParts {
    fn new(
        plan: &LegalFamilies,
        moves: &[(u32, Value)],
        words_of: &NodeWords,
        guard: &Option<(Lit, Vec<bool>)>,
    ) -> LegalParts {
        let mut words: Vec<(u64, [u32; 64])> = Vec::new();
        let mut family_words = Vec::new();
        for family in &plan.families {
            let mut placed = Vec::new();
            for (k, &anchors) in family.family.anchors.iter().enumerate().filter(|(_, &mask)| mask != 0) {
                let j = Self::word_where(&mut words, |used| used & anchors == 0);
                words[j].0 |= anchors;
                for &(anchor, m) in family.moves_of.iter().filter(|&&(anchor, _)| anchor as usize / 64 == k) {
                    words[j].1[anchor as usize % 64] = m;
                }
                placed.push(j);
            }
            family_words.push(placed);
        }
        // The moves of each group at their places, a word at a time.
        let mut by_group: BTreeMap<(u32, bool), Vec<(u32, u32)>> = BTreeMap::new();
        for (i, m, v) in plan.singles(moves) {
            if let Value::Lit(Lit { prop: Prop::Node(n), positive: true }) = v {
                if let Some((g, place)) = words_of.member[n as usize] {
                    by_group.entry((g, guards_move(guard, i))).or_default().push((place, m));
                }
            }
        }
        let mut single_bits = BTreeMap::new();
        let mut group_words = Vec::new();
        for ((g, guarded), at) in by_group {
            if at.len() < 2 {
                continue;
            }
            let mask = at.iter().fold(0u64, |mask, &(place, _)| mask | 1 << place);
            let j = Self::word_where(&mut words, |used| used & mask == 0);
            words[j].0 |= mask;
            for (place, m) in at {
                words[j].1[place as usize] = m;
                single_bits.insert(m, (j, place));
            }
            group_words.push((g, j, mask, guarded));
        }
        for (_, m, _) in plan.singles(moves) {
            if single_bits.contains_key(&m) {
                continue;
            }
            let j = Self::word_where(&mut words, |used| used != u64::MAX);
            let bit = (!words[j].0).trailing_zeros();
            words[j].0 |= 1 << bit;
            words[j].1[bit as usize] = m;
            single_bits.insert(m, (j, bit));
        }
        LegalParts { words, family_words, single_bits, group_words }
    }

    /// Whether move `m` is set with its group's word.
    fn in_group_word(&self, m: u32) -> bool {
        self.single_bits.get(&m).is_some_and(|&(j, bit)| {
            self.group_words.iter().any(|&(_, word, mask, _)| word == j && mask >> bit & 1 != 0)
        })
    }

    /// The statements that set the bits of the moves of group words that the guard guards
    /// (`guarded`) or not.
    fn group_word_sets(&self, guarded: bool) -> Vec<TokenStream> {
        self.group_words
            .iter()
            .filter(|&&(_, _, _, g)| g == guarded)
            .map(|&(g, j, mask, _)| {
                let (g, j, mask) = (Literal::u32_unsuffixed(g), Literal::usize_unsuffixed(j), hex(mask));
                quote!(parts[#j] |= g[#g] & #mask;)
            })
            .collect()
    }

    /// The first of `words` whose bits in use `fits`, made if there is none.
    fn word_where(words: &mut Vec<(u64, [u32; 64])>, fits: impl Fn(u64) -> bool) -> usize {
        match words.iter().position(|&(used, _)| fits(used)) {
            Some(j) => j,
            None => {
                words.push((0, [0; 64]));
                words.len() - 1
            }
        }
    }

    /// The declaration of `parts`, and (in `tables`, once per role) of the role's table of the
    /// move of every bit of every word, which `move_of` names.
    fn declare(&self, role: usize, tables: &RefCell<BTreeMap<usize, TokenStream>>) -> (TokenStream, Ident) {
        let count = Literal::usize_unsuffixed(self.words.len());
        let name = format_ident!("LEGAL_MOVE_OF_{}", role);
        tables.borrow_mut().entry(role).or_insert_with(|| {
            let rows = self.words.iter().map(|(_, row)| {
                let row = row.iter().map(|&m| Literal::u32_unsuffixed(m));
                quote!([#(#row),*])
            });
            let doc = format!("The move of every bit of the words in which role {role}'s legal moves are found.");
            quote! {
                #[doc = #doc]
                static #name: [[u32; 64]; #count] = [#(#rows),*];
            }
        });
        (quote!(let mut parts = [0u64; #count];), name)
    }

    /// The statement that sets move `m`'s bit when `v` holds (`cond`), for a move outside the
    /// families.
    fn single(&self, m: u32, cond: TokenStream) -> TokenStream {
        let (j, bit) = self.single_bits[&m];
        let j = Literal::usize_unsuffixed(j);
        match bit {
            0 => quote!(parts[#j] |= u64::from(#cond);),
            _ => {
                let bit = Literal::u32_unsuffixed(bit);
                quote!(parts[#j] |= u64::from(#cond) << #bit;)
            }
        }
    }

    /// Statements that set the bits of family `f`'s anchors whose rule holds.
    fn family(&self, f: usize, family: &LegalFamily) -> TokenStream {
        let state_words = family.family.anchors.iter().enumerate().filter(|(_, &mask)| mask != 0);
        let sets = state_words.zip(&self.family_words[f]).map(|((k, _), &j)| {
            let j = Literal::usize_unsuffixed(j);
            let holds = family_word(&family.family, k);
            quote!(parts[#j] |= #holds;)
        });
        quote!(#(#sets)*)
    }
}

/// A role's legal moves evaluated as families, and which of its moves they are.
struct LegalFamilies {
    member: Vec<bool>,
    families: Vec<LegalFamily>,
}

impl LegalFamilies {
    /// The moves of `moves` (the role's) outside the families that can be legal: (index into
    /// `moves`, move, condition).
    fn singles<'m>(&'m self, moves: &'m [(u32, Value)]) -> impl Iterator<Item = (usize, u32, Value)> + 'm {
        moves
            .iter()
            .enumerate()
            .filter(|&(i, &(_, v))| !self.member[i] && v != Value::Const(false))
            .map(|(i, &(m, v))| (i, m, v))
    }

    /// The conditions of `moves` (the role's) that nodes must be evaluated for: those of the
    /// families' moves read no node.
    fn values(&self, moves: &[(u32, Value)]) -> Vec<Value> {
        moves.iter().zip(&self.member).map(|(&(_, v), &member)| if member { Value::Const(false) } else { v }).collect()
    }
}

/// A rule's literals other than its move, and the moves (role, move) that complete it.
type MergedRule = (Vec<Lit>, Vec<(u32, u32)>);

/// The rules of a node with every group of rules that are the same but for one positive move
/// literal merged: pairs of the other literals and the moves (role, move) that complete them,
/// sorted; a rule without exactly one positive move literal stays as it is, with no moves.
/// Groups keep the order of their first rule.
fn merge_move_rules(rules: &[Vec<Lit>]) -> Vec<MergedRule> {
    let mut merged: Vec<MergedRule> = Vec::new();
    let mut group_of: std::collections::BTreeMap<Vec<Lit>, usize> = std::collections::BTreeMap::new();
    for rule in rules {
        let moves: Vec<(u32, u32)> = rule
            .iter()
            .filter_map(|l| match l.prop {
                Prop::Does(r, m) if l.positive => Some((r, m)),
                _ => None,
            })
            .collect();
        let [mv] = moves.as_slice() else {
            merged.push((rule.clone(), Vec::new()));
            continue;
        };
        let rest: Vec<Lit> =
            rule.iter().copied().filter(|l| !(l.positive && l.prop == Prop::Does(mv.0, mv.1))).collect();
        match group_of.get(&rest) {
            Some(&g) => merged[g].1.push(*mv),
            None => {
                group_of.insert(rest.clone(), merged.len());
                merged.push((rest, vec![*mv]));
            }
        }
    }
    for (_, moves) in &mut merged {
        moves.sort_unstable();
        moves.dedup();
    }
    merged
}

/// Whether a role's guard (see [`Emitter::legal_guard`]) guards its `i`-th move.
fn guards_move(guard: &Option<(Lit, Vec<bool>)>, i: usize) -> bool {
    guard.as_ref().is_some_and(|(_, g)| g[i])
}

/// A word shifted right by `by` bits (left when negative), in parentheses unless unshifted,
/// to be an operand of `&` or `|`.
fn shifted(word: TokenStream, by: i32) -> TokenStream {
    match by {
        0 => word,
        _ => {
            let shift = shift_expr(word, by);
            quote!((#shift))
        }
    }
}

/// A word shifted right by `by` bits (left when negative), as a bare expression. Shifts take
/// `u32` literals: rustc resolves `u64 >> {integer}` among the impls of every integer type,
/// which takes seconds over the thousands of shifts of a large module.
fn shift_expr(word: TokenStream, by: i32) -> TokenStream {
    let amount = Literal::u32_suffixed(by.unsigned_abs());
    match by {
        0 => word,
        by if by > 0 => quote!(#word >> #amount),
        _ => quote!(#word << #amount),
    }
}

/// `rule` in the arm where role `role` plays `mv`: without the literals that are then true
/// (that role's moves, and the negations of nodes the move's arms leave false); `None` when
/// one of its literals is then false.
fn played(rule: &[Lit], role: u32, mv: u32, guards: &[Option<Guard>]) -> Option<Vec<Lit>> {
    let mut known = Vec::with_capacity(rule.len());
    for &lit in rule {
        let holds = match lit.prop {
            Prop::Does(r, m) if r == role => Some(m == mv),
            Prop::Node(k) => match &guards[k as usize] {
                Some(Guard::Role { role: r, moves }) if *r == role && moves.binary_search(&mv).is_err() => Some(false),
                _ => None,
            },
            _ => None,
        };
        match holds {
            Some(value) if value != lit.positive => return None,
            Some(_) => {}
            None => known.push(lit),
        }
    }
    Some(known)
}

/// The anchors of word `k` of a family whose rule holds: the `&` of the state shifted so that
/// each literal's facts line up with the anchors, and of the anchors.
fn family_word(family: &Family, k: usize) -> TokenStream {
    let words = family.anchors.len();
    if let Some(run) = run_in_word(family, k) {
        return run;
    }
    let mut factors: Vec<TokenStream> = family
        .literals
        .iter()
        .map(|&(offset, positive)| {
            let word = shifted_word(k, offset as usize, words, family.anchors[k]);
            if positive {
                word
            } else {
                quote!(!#word)
            }
        })
        .collect();
    factors.push(hex(family.anchors[k]));
    join(&factors, quote!(&))
}

/// How a family that is a run of equally spaced facts that all hold (a line of four of
/// connectFour: offsets 0, d, 2d, 3d) is tested, as bitboard line tests are written by hand:
/// `run &= run >> by` for each of `doubling` (two shifts for four facts, not three), then once
/// more by `last` when the doubling falls short of the run.
struct RunShifts {
    doubling: Vec<u32>,
    last: Option<u32>,
    /// The distance from a run's first fact to its last.
    span: u32,
}

impl RunShifts {
    /// Whether the facts of every anchor of `anchors` stay within the anchors' word.
    fn fits(&self, anchors: u64) -> bool {
        self.span < 64 && anchors >> (64 - self.span) == 0
    }
}

/// The shifts that test `family` as a run, or `None` for a family of another form.
fn run_shifts(family: &Family) -> Option<RunShifts> {
    let offsets: Vec<u32> =
        family.literals.iter().map(|&(offset, positive)| positive.then_some(offset)).collect::<Option<_>>()?;
    let len = offsets.len() as u32;
    let step = *offsets.get(1)?;
    let spaced = offsets.iter().enumerate().all(|(i, &offset)| offset == step * i as u32);
    if len < 3 || step == 0 || !spaced {
        return None;
    }
    // `covered` facts from each bit hold in `run`; doubling it while it stays within `len`.
    let (mut doubling, mut covered) = (Vec::new(), 1);
    while covered * 2 <= len {
        doubling.push(step * covered);
        covered *= 2;
    }
    let last = (covered < len).then_some(step * (len - covered));
    Some(RunShifts { doubling, last, span: step * (len - 1) })
}

/// [`family_word`] for a run (see [`run_shifts`]) whose facts stay within word `k` for every
/// anchor: its shifts by doubling, masked by the anchors. `None` for a family of another form.
fn run_in_word(family: &Family, k: usize) -> Option<TokenStream> {
    let run = run_shifts(family).filter(|run| run.fits(family.anchors[k]))?;
    let w = Literal::usize_unsuffixed(k);
    let shift = |by: &u32| Literal::u32_unsuffixed(*by);
    let doubling = run.doubling.iter().map(shift);
    let anchors = hex(family.anchors[k]);
    let last = match run.last.as_ref().map(shift) {
        None => quote!(run & #anchors),
        Some(by) => quote!(run & (run >> #by) & #anchors),
    };
    Some(quote!({ let run = s.0[#w]; #(let run = run & (run >> #doubling);)* #last }))
}

/// The runs (see [`run_shifts`]) of two families with the same literals, `low`'s in its word
/// and `high`'s in its, tested in one [`Pair`](gdl_runtime::pair::Pair): the same shifts as
/// [`run_in_word`]'s, each on both words at once, masked by each word's anchors.
fn run_in_pair((low, l): (&Family, usize), (high, h): (&Family, usize)) -> TokenStream {
    let run = run_shifts(low).expect("a pair is tested only as a run");
    let pair = quote!(::gdl_runtime::pair::Pair);
    let anchors = {
        let (low, high) = (hex(low.anchors[l]), hex(high.anchors[h]));
        quote!(#pair::new(#low, #high))
    };
    let (l, h) = (Literal::usize_unsuffixed(l), Literal::usize_unsuffixed(h));
    let shift = |by: &u32| Literal::i32_unsuffixed(*by as i32);
    let doubling = run.doubling.iter().map(shift);
    let last = match run.last.as_ref().map(shift) {
        None => quote!(run.and(#anchors)),
        Some(by) => quote!(run.and(run.shr::<#by>()).and(#anchors)),
    };
    quote!({ let run = #pair::new(s.0[#l], s.0[#h]); #(let run = run.and(run.shr::<#doubling>());)* #last })
}

/// The name of role `role`'s table of `FRAMES` rows by drawn bit.
fn frames_at_name(role: usize) -> Ident {
    format_ident!("FRAMES_AT_{}", role)
}

/// Role `role`'s row of a table of the joint move's rows: of `by_bit`, indexed by the bit the
/// role drew (`drawn_role`, in `random_step`) when `drawn`, else of `by_move`, indexed by its move.
fn role_row(role: usize, drawn: bool, by_bit: &Ident, by_move: TokenStream) -> TokenStream {
    if drawn {
        let drawn = format_ident!("drawn_{}", role);
        quote!(#by_bit[#drawn])
    } else {
        let r = Literal::usize_unsuffixed(role);
        quote!(#by_move[joint[#r].0 as usize])
    }
}

/// Word `k` of the state shifted right by `offset` bits (as one number of `words` words), so
/// that the fact `offset` bits past a bit of word `k` lands on that bit. Only the bits of
/// `needed` are used, so a word whose bits all land outside it is left out.
fn shifted_word(k: usize, offset: usize, words: usize, needed: u64) -> TokenStream {
    let (q, r) = (offset / 64, offset % 64);
    let (lo, hi) = (k + q, k + q + 1);
    // Word `lo` lands on bits `0..64 - r` of the result, word `hi` on bits `64 - r..64`.
    let from_low = r == 0 || needed & (u64::MAX >> r) != 0;
    let from_high = r != 0 && needed >> (64 - r) != 0;
    let low = (lo < words && from_low).then(|| {
        let lo = Literal::usize_unsuffixed(lo);
        if r == 0 {
            quote!(s.0[#lo])
        } else {
            let r = Literal::usize_unsuffixed(r);
            quote!((s.0[#lo] >> #r))
        }
    });
    let high = (from_high && hi < words).then(|| {
        let (hi, l) = (Literal::usize_unsuffixed(hi), Literal::usize_unsuffixed(64 - r));
        quote!((s.0[#hi] << #l))
    });
    match (low, high) {
        (Some(low), Some(high)) => quote!((#low | #high)),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => quote!(0u64),
    }
}

/// `parts` joined by the non-short-circuit operator `op`, each in parentheses when there are
/// several (comparisons bind more loosely than `&` and `|`).
fn join(parts: &[TokenStream], op: TokenStream) -> TokenStream {
    match parts {
        [one] => one.clone(),
        _ => {
            let mut out = TokenStream::new();
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    out.extend(op.clone());
                }
                out.extend(quote!((#part)));
            }
            out
        }
    }
}
