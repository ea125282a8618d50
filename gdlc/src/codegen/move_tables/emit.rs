//! The generated code of move tables: the static tables `MOVE_NODES` and `FRAMES` (and
//! `FRAMES` rows by the bit `random_step` draws), the joint move's row `mt`, the `keep` and
//! `set` words of the framed next-state bits, and the arms of the conditional frame rules.

use super::{ConditionalSet, MoveTables};
use crate::codegen::arm_families::RoleArms;
use crate::codegen::emit::{join, Body, Emitter};
use crate::codegen::legal_parts::LegalParts;
use crate::codegen::tables::{hex, words};
use crate::ground::{Lit, Prop, Value};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// The most bytes of a role's table of frame rows by drawn bit.
const MAX_BIT_TABLE_BYTES: usize = 32 * 1024;

/// The most framed state words of a game that frames only some, for the framed bits of the
/// next state to be written one statement a word rather than by a loop over their list.
const MAX_UNROLLED_FRAME_WORDS: usize = 32;

impl Emitter<'_> {
    /// The constant tables of the functions of the joint move: `MOVE_NODES[role][move]`, the
    /// bits of the nodes the table gives, and `FRAMES[role][move]`, the `keep` and `set`
    /// words of the framed next-state bits; the value for a joint move is the `|` of its
    /// roles' rows. Then each role's table of arm families.
    pub(crate) fn generate_move_tables(&self) -> TokenStream {
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
            let width = tables.frame_words.len();
            let row_type = self.frame_row_type();
            let per_role = tables.keep_table.iter().zip(&tables.set_table).map(|(keep, set)| {
                let rows = (0..moves).map(|mv| {
                    let (keep, set) = (row(keep, mv, width), row(set, mv, width));
                    quote!([#keep, #set])
                });
                quote!([#(#rows),*])
            });
            let doc = match self.frames_every_word() {
                true => quote! {
                    /// For every role and move, two words per state word, `keep` and `set`: a
                    /// next-state bit that the table gives holds when it holds now and one of the
                    /// joint move's `keep` rows has it, or one of its `set` rows has it.
                },
                false => quote! {
                    /// For every role and move, two words per state word with framed bits, `keep`
                    /// and `set`: a next-state bit that the table gives holds when it holds now and
                    /// one of the joint move's `keep` rows has it, or one of its `set` rows has it.
                },
            };
            out.extend(quote! {
                #doc
                static FRAMES: [[[#row_type; 2]; #moves_len]; #roles] = [#(#per_role),*];
            });
        }
        for (role, arms) in self.arm_families.iter().enumerate() {
            out.extend(arms.table(role, moves));
        }
        out
    }

    /// `mt`, the `|` of the joint move's rows of `MOVE_NODES` (nothing without that table).
    pub(crate) fn move_table_row(&self) -> TokenStream {
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

    /// Whether base fact `i`'s next value comes from the frame tables.
    pub(crate) fn framed(&self, i: usize) -> bool {
        self.tables.as_ref().is_some_and(|t| t.framed[i])
    }

    /// Statements that or into `w` the framed next-state bits: the state's words masked by the
    /// `keep` words of the joint move's rows, or-ed with their `set` words (nothing without
    /// frames). `by_draw[r]`: role `r`'s rows are looked up by its drawn bit (in `random_step`).
    /// `guards`: statements that or into `keep` the bits that conditions read at run time keep.
    pub(crate) fn frame_rows(&self, by_draw: &[bool], guards: &TokenStream) -> Option<TokenStream> {
        let tables = self.tables.as_ref().filter(|t| t.has_frames())?;
        let width = tables.frame_words.len();
        // The rows of roles whose every move has the same row are or-ed here, once.
        let (mut keep, mut set) = (vec![0u64; width], vec![0u64; width]);
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
        let width = self.frame_width();
        let products = self.product_rows();
        let looked_up = (!rows.is_empty()).then(|| {
            quote! {
                for [k, x] in [#(#rows),*] {
                    for i in 0..#width {
                        keep[i] |= k[i];
                        set[i] |= x[i];
                    }
                }
            }
        });
        let row_type = self.frame_row_type();
        let apply = self.apply_frames(&tables.frame_words);
        Some(quote! {
            let mut keep: #row_type = [#(#keep),*];
            let mut set: #row_type = [#(#set),*];
            #looked_up
            #products
            #guards
            #apply
        })
    }

    /// The type of a row of `keep` or `set` words: `[u64; WORDS]` when every state word holds
    /// framed bits, else one word for each that does.
    fn frame_row_type(&self) -> TokenStream {
        let width = self.frame_width();
        quote!([u64; #width])
    }

    /// The words of a row of `keep` or `set`: `WORDS` when every state word holds framed bits.
    fn frame_width(&self) -> TokenStream {
        match self.frames_every_word() {
            true => quote!(WORDS),
            false => {
                let width = self.tables.as_ref().map_or(0, |t| t.frame_words.len());
                Literal::usize_unsuffixed(width).into_token_stream()
            }
        }
    }

    /// Whether every state word holds framed bits, so that frame rows are written as they were
    /// before rows held the framed words only.
    fn frames_every_word(&self) -> bool {
        self.tables.as_ref().is_some_and(|t| t.frame_words.len() == words(self.ground.base.len()))
    }

    /// Statements that or into `w` the state's words `frame_words` masked by `keep`, with
    /// `set`: a loop over every word when all are framed, one statement a word when few are,
    /// else a loop over the list of words.
    fn apply_frames(&self, frame_words: &[usize]) -> TokenStream {
        if self.frames_every_word() {
            return quote! {
                for i in 0..WORDS {
                    w[i] |= (s.0[i] & keep[i]) | set[i];
                }
            };
        }
        if frame_words.len() <= MAX_UNROLLED_FRAME_WORDS {
            let statements = frame_words.iter().enumerate().map(|(j, &i)| {
                let (i, j) = (Literal::usize_unsuffixed(i), Literal::usize_unsuffixed(j));
                quote!(w[#i] |= (s.0[#i] & keep[#j]) | set[#j];)
            });
            return quote!(#(#statements)*);
        }
        let list = frame_words.iter().map(|&i| Literal::usize_unsuffixed(i));
        quote! {
            for (j, i) in [#(#list),*].into_iter().enumerate() {
                w[i] |= (s.0[i] & keep[j]) | set[j];
            }
        }
    }

    /// Statements that or into `keep` the bits that each conjunction of several roles' moves
    /// keeps, when the joint move is one of them.
    fn product_rows(&self) -> TokenStream {
        let Some(tables) = &self.tables else { return TokenStream::new() };
        let products = tables.products.iter().map(|(plays, mask)| {
            let tests: Vec<TokenStream> = plays
                .iter()
                .map(|&(r, m)| {
                    let (r, m) = (Literal::usize_unsuffixed(r as usize), Literal::u32_unsuffixed(m));
                    quote!(joint[#r].0 == #m)
                })
                .collect();
            let test = join(&tests, quote!(&));
            let condition: Vec<Lit> = plays.iter().map(|&(r, m)| Lit::pos(Prop::Does(r, m))).collect();
            self.kept_when(&condition, test, mask)
        });
        quote!(#(#products)*)
    }

    /// A statement that ors into `keep` the bits of `mask` (one word for each frame word) when
    /// `test`, the code of `condition`, holds.
    fn kept_when(&self, condition: &[Lit], test: TokenStream, mask: &[u64]) -> TokenStream {
        let note = self.note(|_| {
            let names: Vec<String> = condition.iter().map(|&l| self.ground.describe(l)).collect();
            format!("The bits kept when {}.", names.join(" and "))
        });
        let ors = mask.iter().enumerate().filter(|&(_, &m)| m != 0).map(|(w, &m)| {
            let (w, m) = (Literal::usize_unsuffixed(w), hex(m));
            quote!(keep[#w] |= #m;)
        });
        quote! {
            #note
            if #test {
                #(#ors)*
            }
        }
    }

    /// Whether `random_step` looks up a role's frame and arm-family rows by the bit it draws
    /// from `parts`: when there are rows to look up and the tables by bit stay small.
    pub(crate) fn rows_by_draw(&self, parts: &LegalParts) -> bool {
        let Some(tables) = self.tables.as_ref().filter(|t| t.has_frames()) else { return false };
        let bytes = parts.words.len() * 64 * 2 * tables.frame_words.len() * 8;
        bytes <= MAX_BIT_TABLE_BYTES
    }

    /// Role `role`'s tables of arm-family rows and of frame rows by drawn bit (`64 * word + bit`
    /// of `parts`), in that order: a bit no move takes gets the row of move 0, and is never
    /// drawn.
    pub(crate) fn bit_tables(&self, role: usize, parts: &LegalParts) -> TokenStream {
        let Some(tables) = &self.tables else { return TokenStream::new() };
        let moves_by_bit: Vec<u32> = parts.words.iter().flat_map(|(_, row)| row.iter().copied()).collect();
        let arms = self.arm_families.get(role).map(|arms| arms.table_at_bits(role, &moves_by_bit));
        let frames = (self.constant_frames(role).is_none())
            .then(|| frames_at_bits(tables, role, &moves_by_bit, self.frame_row_type()));
        quote!(#arms #frames)
    }

    /// Role `role`'s `keep` and `set` words when every move it may play has the same ones
    /// (connectFour's drops keep every cell and set none): they are then constants of `next`,
    /// not rows looked up by the move.
    pub(crate) fn constant_frames(&self, role: usize) -> Option<(Vec<u64>, Vec<u64>)> {
        let tables = self.tables.as_ref()?;
        let width = tables.frame_words.len();
        let row = |m: u32| {
            let at = m as usize * width;
            (&tables.keep_table[role][at..at + width], &tables.set_table[role][at..at + width])
        };
        let (first, rest) = self.ground.inputs.get(role)?.split_first()?;
        let (keep, set) = row(*first);
        rest.iter().all(|&m| row(m) == (keep, set)).then(|| (keep.to_vec(), set.to_vec()))
    }

    /// For every node, whether only the conditions of conditional frame rules read it (and no
    /// value of `others`), and it is in no recursive group: the arm of a move evaluates those
    /// it needs, so that a step evaluates only its own moves' (connectFour's cells above each
    /// column's top).
    pub(crate) fn arm_only_nodes(&self, others: &[Value]) -> Vec<bool> {
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
}

impl Body<'_> {
    /// Statements that or into `keep` the bits that each condition read at run time keeps, when
    /// it holds (see [`MoveTables::guards`]).
    pub(crate) fn frame_guards(&self) -> TokenStream {
        let Some(tables) = &self.emitter.tables else { return TokenStream::new() };
        let guards = tables.guards.iter().map(|(condition, mask)| {
            let test = join(&self.conjuncts(condition), quote!(&));
            self.emitter.kept_when(condition, test, mask)
        });
        quote!(#(#guards)*)
    }

    /// For every role with conditional frame rules, the word operations of its arm families
    /// (see [`crate::codegen::arm_families`]) and a `match` on its other moves that sets the
    /// bits its move sets when their conditions on the state hold. Each arm first evaluates the
    /// nodes its conditions need of those `local` marks (see [`Emitter::arm_only_nodes`]).
    /// `by_draw[r]`: role `r`'s arm-family row is looked up by its drawn bit.
    pub(crate) fn frame_arms(&self, local: &[bool], by_draw: &[bool]) -> Option<TokenStream> {
        let tables = self.emitter.tables.as_ref()?;
        let mut out = TokenStream::new();
        for (role, arms) in tables.arms.iter().enumerate() {
            let families = self.emitter.arm_families.get(role);
            let cases: Vec<TokenStream> = arms
                .iter()
                .enumerate()
                .filter(|&(mv, sets)| !sets.is_empty() && !families.is_some_and(|a| a.in_family(mv)))
                .map(|(mv, sets)| self.frame_arm(role, mv, sets, local))
                .collect();
            if let Some(families) = families {
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
        Some(out)
    }

    /// The `match` arm of move `mv`, which sets the bits of `sets` whose conditions hold, after
    /// the nodes of those `local` marks that they read.
    fn frame_arm(&self, role: usize, mv: usize, sets: &[ConditionalSet], local: &[bool]) -> TokenStream {
        let ground = self.emitter.ground;
        let note = self
            .emitter
            .note(|_| format!("{} plays {}: its conditional frame rules", ground.roles[role], ground.moves[mv]));
        let mv = Literal::u32_unsuffixed(mv as u32);
        let reads: Vec<Value> =
            sets.iter().flat_map(|(_, condition)| condition.iter().map(|&l| Value::Lit(l))).collect();
        let own: Vec<u32> =
            self.emitter.runtime_cone(&reads).into_iter().filter(|&n| local.get(n as usize) == Some(&true)).collect();
        let own = self.emit_nodes(&own);
        let sets = sets.iter().enumerate().map(|(k, (i, condition))| {
            // One comment for the consecutive sets of one bit.
            let note = (k == 0 || sets[k - 1].0 != *i).then(|| {
                self.emitter
                    .note(|notes| format!("BASE[{i}]: {}", notes.atom(&format!("(next {})", ground.base[*i as usize]))))
            });
            let (w, bit) = (Literal::usize_unsuffixed(*i as usize / 64), Literal::u32_unsuffixed(i % 64));
            let condition = join(&self.conjuncts(condition), quote!(&));
            quote!(#note w[#w] |= u64::from(#condition) << #bit;)
        });
        quote!(#mv => { #note #own #(#sets)* })
    }
}

/// Role `role`'s table of `FRAMES` rows by drawn bit, for the moves `moves_by_bit`.
fn frames_at_bits(tables: &MoveTables, role: usize, moves_by_bit: &[u32], row_type: TokenStream) -> TokenStream {
    let width = tables.frame_words.len();
    let rows = moves_by_bit.iter().map(|&m| {
        let at = m as usize * width;
        let keep = tables.keep_table[role][at..at + width].iter().copied().map(hex);
        let set = tables.set_table[role][at..at + width].iter().copied().map(hex);
        quote!([[#(#keep),*], [#(#set),*]])
    });
    let name = frames_at_name(role);
    let size = Literal::usize_unsuffixed(moves_by_bit.len());
    let doc = format!("The `FRAMES` row of role {role}'s move of every bit that `random_step` may draw.");
    quote! {
        #[doc = #doc]
        static #name: [[#row_type; 2]; #size] = [#(#rows),*];
    }
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
