//! The generated module's types and constant tables: roles, base facts, moves, each role's
//! moves, the initial state, and the `State`, `Move` and `Game` types.

use crate::ground::Ground;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The number of 64-bit words of a state with `bits` base facts (at least one).
pub fn words(bits: usize) -> usize {
    bits.div_ceil(64).max(1)
}

/// A `u64` literal in hexadecimal.
pub(super) fn hex(value: u64) -> TokenStream {
    format!("0x{value:x}").parse().expect("a hexadecimal literal")
}

pub(super) fn generate_tables(ground: &Ground) -> TokenStream {
    let roles = &ground.roles;
    let num_roles = Literal::usize_unsuffixed(roles.len());
    let base = &ground.base;
    let num_base = Literal::usize_unsuffixed(base.len());
    let moves = &ground.moves;
    let num_moves = Literal::usize_unsuffixed(moves.len());
    let words = words(base.len());
    let role_moves = ground.inputs.iter().map(|ms| {
        let ms = ms.iter().map(|&m| Literal::u32_unsuffixed(m));
        quote!(&[#(#ms),*])
    });
    let mut initial = vec![0u64; words];
    let words = Literal::usize_unsuffixed(words);
    for &i in &ground.initial {
        initial[i as usize / 64] |= 1 << (i % 64);
    }
    let initial = initial.into_iter().map(hex);
    let gdl_ii = ground.gdl_ii.then(|| {
        let percepts = &ground.percepts;
        let num_percepts = Literal::usize_unsuffixed(percepts.len());
        let random_role = match ground.random_role {
            Some(r) => {
                let r = Literal::usize_unsuffixed(r);
                quote!(Some(#r))
            }
            None => quote!(None),
        };
        quote! {
            /// Every term some role may perceive (GDL-II's `sees`), in canonical KIF and byte
            /// order; the generated `sees` gives indices into it.
            pub const PERCEPTS: [&str; #num_percepts] = [#(#percepts),*];

            /// The GDL-II `random` role, whose moves the game manager draws uniformly.
            pub const RANDOM_ROLE: Option<usize> = #random_role;
        }
    });
    quote! {
        /// The roles, in the order of the game's `role` facts.
        pub const ROLES: [&str; #num_roles] = [#(#roles),*];

        /// Every fact that can be true in a reachable state, in canonical KIF, by its bit: fact
        /// `BASE[i]` is bit `i % 64` of word `i / 64` of a [`State`]. An empty string is a bit no
        /// fact uses, left so that a group of facts (one colour's board) stays within a word.
        pub const BASE: [&str; #num_base] = [#(#base),*];

        /// Every move term some role may play, in canonical KIF and byte order; [`Move`] indexes it.
        pub const MOVES: [&str; #num_moves] = [#(#moves),*];

        /// For every role, the moves it may ever play, as sorted indices into [`MOVES`].
        pub const ROLE_MOVES: [&[u32]; #num_roles] = [#(#role_moves),*];

        /// The number of 64-bit words of a [`State`].
        pub const WORDS: usize = #words;

        /// A game state: one bit per base fact. It prints as its facts: `{}` as the facts in
        /// canonical KIF, sorted and separated by spaces; `{:?}` as `State([...])` of them.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct State(pub [u64; WORDS]);

        impl State {
            /// Whether base fact `i` holds.
            #[inline]
            pub fn has(&self, i: usize) -> bool {
                self.0[i / 64] >> (i % 64) & 1 != 0
            }

            /// The facts true in the state, in canonical KIF, sorted.
            pub fn facts(&self) -> Vec<&'static str> {
                let mut facts: Vec<&'static str> =
                    (0..BASE.len()).filter(|&i| self.has(i) && !BASE[i].is_empty()).map(|i| BASE[i]).collect();
                facts.sort_unstable();
                facts
            }
        }

        impl ::core::fmt::Display for State {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(&self.facts().join(" "))
            }
        }

        impl ::core::fmt::Debug for State {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_tuple("State").field(&self.facts()).finish()
            }
        }

        /// A move: an index into [`MOVES`]. `{}` prints it in canonical KIF, `{:?}` as
        /// `Move("...")`.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct Move(pub u32);

        impl ::core::fmt::Display for Move {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match MOVES.get(self.0 as usize) {
                    Some(text) => f.write_str(text),
                    None => write!(f, "(move {} of no game)", self.0),
                }
            }
        }

        impl ::core::fmt::Debug for Move {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "Move({:?})", self.to_string())
            }
        }

        /// The initial state.
        pub const INITIAL: State = State([#(#initial),*]);

        /// The game, for `gdl_runtime`'s generic players, drivers and benchmarks.
        #[derive(Clone, Copy, Debug, Default)]
        pub struct Game;

        #gdl_ii
    }
}
