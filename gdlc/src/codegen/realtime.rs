//! The generated module of an rtGDL game: the plain items of its erased form (bit-packed
//! `State`, `legal`, `next`, `terminal`, `goals`), a lifetime per timed fact beside the bits
//! (`RtState`), the bit tables that `gdl_runtime::realtime::compiled` reads, and an
//! `impl gdl_runtime::realtime::RealTimeGame`.

use super::{emit, tables, uses_tables, Form};
use crate::ground::Ground;
use crate::realtime::{parse_lifetime, CONST, COPY, EXPIRED, LIFETIME};
use gdl_runtime::kif::{self, Sx};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// What a base fact of the erased game is.
enum Bit {
    Fact(Sx),
    Expired(Sx),
    Marker { fact: Sx, source: Sx },
}

fn classify(text: &str) -> Result<Bit, String> {
    let sx = kif::parse_one(text).map_err(|e| format!("internal error: base fact `{text}` does not read back: {e}"))?;
    Ok(match &sx {
        Sx::List(items) => match items.as_slice() {
            [Sx::Atom(head), fact, source] if head == LIFETIME => {
                Bit::Marker { fact: fact.clone(), source: source.clone() }
            }
            [Sx::Atom(head), fact] if head == EXPIRED => Bit::Expired(fact.clone()),
            _ => Bit::Fact(sx),
        },
        Sx::Atom(_) => Bit::Fact(sx),
    })
}

/// The module of an rtGDL game grounded from its erased form; the table form is refused.
pub(super) fn generate_realtime(
    ground: &Ground,
    form: Form,
    notes: Option<&super::Notes>,
) -> Result<TokenStream, String> {
    if uses_tables(ground, form) {
        return Err(format!(
            "rtGDL games are compiled to straight-line code only, and this one would need the table form ({}); \
             use --form straight",
            if form == Form::Tables {
                "--form tables".to_string()
            } else {
                format!("its program passes {} literals", super::TABLE_FORM_LITERALS)
            }
        ));
    }
    let bits: Vec<Bit> = ground.base.iter().map(|b| classify(b)).collect::<Result<_, _>>()?;
    let mut timed: BTreeMap<String, u32> = BTreeMap::new();
    let mut facts = Vec::new();
    for (i, bit) in bits.iter().enumerate() {
        if let Bit::Fact(sx) = bit {
            timed.insert(sx.to_string(), facts.len() as u32);
            facts.push(i as u32);
        }
    }
    let index_of = |fact: &Sx| -> Result<u32, String> {
        timed.get(&fact.to_string()).copied().ok_or_else(|| format!("internal error: `{fact}` is not a base fact"))
    };
    let mut expired = vec![None; facts.len()];
    let mut markers = Vec::new();
    for (i, bit) in bits.iter().enumerate() {
        match bit {
            Bit::Fact(_) => {}
            Bit::Expired(fact) => expired[index_of(fact)? as usize] = Some(i as u32),
            Bit::Marker { fact, source } => {
                let k = Literal::u32_unsuffixed(index_of(fact)?);
                let bit = Literal::u32_unsuffixed(i as u32);
                let source = match source {
                    Sx::List(items) => match items.as_slice() {
                        [Sx::Atom(kind), Sx::Atom(lifetime)] if kind == CONST => {
                            let time = parse_lifetime(lifetime).map_err(|e| e.to_string())?;
                            let time = if time.is_infinite() {
                                quote!(::gdl_runtime::realtime::Time::INFINITY)
                            } else {
                                let nanos = time.nanos();
                                quote!(::gdl_runtime::realtime::Time::from_nanos(#nanos))
                            };
                            quote!(::gdl_runtime::realtime::compiled::Source::Const(#time))
                        }
                        [Sx::Atom(kind), copied] if kind == COPY => {
                            let j = Literal::u32_unsuffixed(index_of(copied)?);
                            quote!(::gdl_runtime::realtime::compiled::Source::Copy(#j))
                        }
                        _ => return Err(format!("internal error: a malformed lifetime source `{source}`")),
                    },
                    Sx::Atom(_) => return Err(format!("internal error: a malformed lifetime source `{source}`")),
                };
                markers.push(quote!((#bit, #k, #source)));
            }
        }
    }
    let expired = expired
        .iter()
        .zip(&facts)
        .map(|(e, &f)| {
            e.map(Literal::u32_unsuffixed)
                .ok_or_else(|| format!("internal error: no expired-bit for `{}`", ground.base[f as usize]))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let num_timed = Literal::usize_unsuffixed(facts.len());
    let facts = facts.into_iter().map(Literal::u32_unsuffixed);
    let tables = tables::generate_tables(ground);
    let functions = emit::generate_realtime_functions(ground, notes);
    Ok(quote! {
        #tables
        #functions

        /// The number of timed facts: the base facts that are facts of the game (the others
        /// are their expired-bits and lifetime markers).
        pub const TIMED: usize = #num_timed;

        /// Which bits are the timed facts, their expired-bits and the lifetime markers.
        pub static REALTIME: ::gdl_runtime::realtime::compiled::Tables = ::gdl_runtime::realtime::compiled::Tables {
            facts: &[#(#facts),*],
            expired: &[#(#expired),*],
            markers: &[#(#markers),*],
        };

        /// A real-time state: the facts' bits, and for timed fact `k` (bit `REALTIME.facts[k]`)
        /// its remaining lifetime in `life[k]` (zero when the fact does not hold).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct RtState {
            pub bits: State,
            pub life: [::gdl_runtime::realtime::Time; TIMED],
        }

        /// The move of a role that does not move: one past the last move, equal to none.
        pub const NO_MOVE: Move = Move(MOVES.len() as u32);

        impl ::gdl_runtime::realtime::RealTimeGame for Game {
            type State = RtState;
            type Move = Move;

            fn num_roles(&self) -> usize {
                ROLES.len()
            }

            fn role_name(&self, role: usize) -> &str {
                ROLES[role]
            }

            fn initial_state(&self) -> RtState {
                let mut state = RtState { bits: INITIAL, life: [::gdl_runtime::realtime::Time::ZERO; TIMED] };
                REALTIME.initial(&mut state.bits.0, &mut state.life);
                state
            }

            fn legal_moves(&self, state: &RtState, role: usize, out: &mut Vec<Move>) {
                out.clear();
                legal(&state.bits, role, out);
            }

            fn is_terminal(&self, state: &RtState) -> bool {
                terminal(&state.bits)
            }

            fn goals(&self, state: &RtState) -> Vec<Option<u32>> {
                let mut out = vec![None; ROLES.len()];
                goals(&state.bits, &mut out);
                out
            }

            fn next_expiry(&self, state: &RtState) -> Option<::gdl_runtime::realtime::Time> {
                REALTIME.next_expiry(&state.bits.0, &state.life)
            }

            fn update(
                &self,
                state: &RtState,
                elapsed: ::gdl_runtime::realtime::Time,
                moves: &[Option<Move>],
            ) -> RtState {
                let mut aged = *state;
                REALTIME.elapse(&mut aged.bits.0, &mut aged.life, elapsed);
                let mut joint = [NO_MOVE; ROLES.len()];
                for (slot, mv) in joint.iter_mut().zip(moves) {
                    if let Some(mv) = mv {
                        *slot = *mv;
                    }
                }
                let mut out = RtState { bits: next(&aged.bits, &joint), life: [::gdl_runtime::realtime::Time::ZERO; TIMED] };
                REALTIME.settle(&aged.bits.0, &aged.life, &mut out.bits.0, &mut out.life);
                out
            }

            fn timed_facts(&self, state: &RtState) -> Vec<(String, ::gdl_runtime::realtime::Time)> {
                REALTIME.timed_facts(&BASE, &state.bits.0, &state.life)
            }

            fn expired_facts(&self, state: &RtState) -> Vec<String> {
                REALTIME.expired_facts(&BASE, &state.bits.0)
            }

            fn move_string(&self, mv: &Move) -> String {
                MOVES[mv.0 as usize].to_string()
            }

            fn parse_move(&self, role: usize, text: &str) -> Option<Move> {
                let index = ::gdl_runtime::kif::find_term(text, &MOVES)? as u32;
                ROLE_MOVES.get(role)?.binary_search(&index).ok().map(|_| Move(index))
            }
        }
    })
}
