//! The table form of the game functions: for a game whose ground program is too large for
//! straight-line code to build quickly, `legal`, `next`, `terminal` and `goals` call
//! `gdl_runtime::program`'s evaluator over tables of the program, kept in one string constant.

use crate::ground::{Ground, Lit, Prop, Value};
use gdl_runtime::program::{literal_code, words_to_text, Literal, Program};
use proc_macro2::TokenStream;
use quote::quote;
use rustc_hash::FxHashMap;

/// The program of a grounded game in the runtime's table form, for the incremental evaluation:
/// the negated "or"s read once spread into their readers first
/// ([`crate::ground::de_morgan`]), and shared literals factored out
/// ([`crate::ground::factor`]).
pub fn program(ground: &Ground) -> Program {
    let mut factored = ground.clone();
    crate::ground::de_morgan::spread_negated_disjunctions(&mut factored);
    crate::ground::factor::factor(&mut factored);
    let ground = &factored;
    let mut encoder = Encoder { program: Program::default(), does: FxHashMap::default() };
    let p = &mut encoder;
    p.program.node_rules.push(0);
    p.program.rule_literals.push(0);
    for node in &ground.nodes {
        for rule in &node.rules {
            // Checked atoms are searched for, so they come last: a rule whose other literals
            // fail never asks for them.
            let (checks, others): (Vec<Lit>, Vec<Lit>) = rule.iter().partition(|l| matches!(l.prop, Prop::Deferred(_)));
            for lit in others.into_iter().chain(checks) {
                let code = p.lit(lit);
                p.program.literals.push(code);
            }
            let end = p.program.literals.len() as u32;
            p.program.rule_literals.push(end);
        }
        let end = p.program.rule_literals.len() as u32 - 1;
        p.program.node_rules.push(end);
    }
    p.program.cycles = ground.cycles.clone();
    p.program.deferred = ground.deferred.clone();
    p.program.initial = ground.initial.clone();
    let legal: Vec<Vec<(u32, u32)>> =
        ground.legal.iter().map(|moves| moves.iter().map(|&(m, v)| (m, p.value(v))).collect()).collect();
    p.program.legal = legal;
    let next: Vec<u32> = ground.next.iter().map(|&v| p.value(v)).collect();
    p.program.next = next;
    p.program.terminal = p.value(ground.terminal);
    let goals: Vec<Vec<(u32, u32)>> =
        ground.goals.iter().map(|goals| goals.iter().map(|&(g, v)| (g, p.value(v))).collect()).collect();
    p.program.goals = goals;
    if ground.gdl_ii {
        let sees: Vec<Vec<(u32, u32)>> =
            ground.sees.iter().map(|percepts| percepts.iter().map(|&(q, v)| (q, p.value(v))).collect()).collect();
        p.program.sees = sees;
    }
    let cones = super::cones::Cones::new(ground);
    let mut outputs: Vec<Value> = ground.legal.iter().flatten().map(|&(_, v)| v).collect();
    outputs.extend(&ground.next);
    outputs.push(ground.terminal);
    outputs.extend(ground.goals.iter().flatten().map(|&(_, v)| v));
    let moved = super::cones::reads_moves(ground);
    p.program.move_cone = cones.cone(&outputs).into_iter().filter(|&n| moved[n as usize]).collect();
    // The percepts' nodes that depend only on the state join the state cone; the others are
    // evaluated by `sees` alone.
    let sees_outputs: Vec<Value> = ground.sees.iter().flatten().map(|&(_, v)| v).collect();
    p.program.sees_cone = cones.cone(&sees_outputs).into_iter().filter(|&n| moved[n as usize]).collect();
    outputs.extend(&sees_outputs);
    p.program.state_cone = cones.cone(&outputs).into_iter().filter(|&n| !moved[n as usize]).collect();
    encoder.program
}

struct Encoder {
    program: Program,
    /// The index in `program.does` of every `(role, move)`.
    does: FxHashMap<(u32, u32), u32>,
}

impl Encoder {
    fn lit(&mut self, lit: Lit) -> u32 {
        let literal = match lit.prop {
            Prop::Base(i) => Literal::Base(i),
            Prop::Node(i) => Literal::Node(i),
            Prop::Deferred(i) => Literal::Deferred(i),
            Prop::Does(r, m) => {
                let next = self.program.does.len() as u32;
                let index = *self.does.entry((r, m)).or_insert(next);
                if index == next {
                    self.program.does.push((r, m));
                }
                Literal::Does(index)
            }
        };
        literal_code(literal, lit.positive)
    }

    fn value(&mut self, value: Value) -> u32 {
        match value {
            Value::Const(b) => literal_code(Literal::Const(b), true),
            Value::Lit(lit) => self.lit(lit),
        }
    }
}

/// `legal`, `next`, `terminal` and `goals` over the program's tables; with `lifted`, the
/// module of the game's lifted rules ([`super::lifted::companion`]), over whichever of the two
/// is faster (`gdl_runtime::program::TablesOrLifted`), with the free functions `random_step` and
/// `random_step_into` that the `Game` implementation's fused step calls.
pub fn generate_program_functions(
    ground: &Ground,
    notes: Option<&super::Notes>,
    lifted: Option<TokenStream>,
) -> TokenStream {
    let program = program(ground);
    let text = words_to_text(&program.encode());
    let note = super::notes::note(notes, |_| {
        format!(
            "The table form: {} derived atoms by {} ground rules of {} literals (shared literals factored), for \
             the legal moves of {} {}, {} next facts, terminal and {} goal values.",
            program.node_rules.len() - 1,
            program.rule_literals.len() - 1,
            program.literals.len(),
            ground.legal.len(),
            if ground.legal.len() == 1 { "role" } else { "roles" },
            ground.next.len(),
            ground.goals.iter().map(Vec::len).sum::<usize>()
        )
    });
    let sees = ground.gdl_ii.then(|| {
        quote! {
            /// Appends what `role` perceives on the step from `s` by `joint` (one move per role,
            /// in role order) to `out`, as indices into [`PERCEPTS`] in increasing order.
            pub fn sees(s: &State, joint: &[Move], role: usize, out: &mut Vec<u32>) {
                let mut moves = [0u32; ROLES.len()];
                for (slot, m) in moves.iter_mut().zip(joint) {
                    *slot = m.0;
                }
                program().sees(&s.0, &moves, role, |p| out.push(p));
            }
        }
    });
    let evaluator = match &lifted {
        Some(_) => quote!(engines()),
        None => quote!(program()),
    };
    let engines = lifted.map(|lifted| {
        quote! {
            #lifted

            /// The tables and the lifted rules, the faster of which answers, chosen on first use.
            pub fn engines() -> &'static ::gdl_runtime::program::TablesOrLifted {
                static ENGINES: ::std::sync::OnceLock<::gdl_runtime::program::TablesOrLifted> =
                    ::std::sync::OnceLock::new();
                ENGINES.get_or_init(|| {
                    let on_bits = lifted::loaded()
                        .and_then(|game| ::gdl_runtime::lifted::OnBits::new(game, &BASE, &MOVES, &ROLE_MOVES));
                    ::gdl_runtime::program::TablesOrLifted::new(program(), on_bits, &INITIAL.0)
                })
            }

            /// One step of a uniformly random playout: `None` when `s` is terminal or some role
            /// has no legal move.
            pub fn random_step(s: &State, rng: &mut ::gdl_runtime::rng::Rng) -> Option<State> {
                let mut next = State([0; WORDS]);
                random_step_into(s, rng, &mut next).then_some(next)
            }

            /// [`random_step`] written into `out`: `false` (and `out` as it was) when `s` is
            /// terminal or some role has no legal move.
            pub fn random_step_into(s: &State, rng: &mut ::gdl_runtime::rng::Rng, out: &mut State) -> bool {
                let mut next = [0u64; WORDS];
                let stepped = engines().random_step(&s.0, rng, &mut next);
                if stepped {
                    out.0 = next;
                }
                stepped
            }
        }
    });
    quote! {
        #note
        /// The ground program in `gdl_runtime::program`'s table form, packed by gdlc.
        const PROGRAM_TABLES: &str = #text;

        #engines

        /// The program, decoded on first use.
        fn program() -> &'static ::gdl_runtime::program::Program {
            static PROGRAM: ::std::sync::OnceLock<::gdl_runtime::program::Program> = ::std::sync::OnceLock::new();
            PROGRAM.get_or_init(|| {
                ::gdl_runtime::program::text_to_words(PROGRAM_TABLES)
                    .and_then(|words| ::gdl_runtime::program::Program::decode(&words))
                    .expect("the program tables that gdlc wrote decode")
            })
        }

        /// Appends `role`'s legal moves in `s` to `out`, in the order of [`MOVES`].
        pub fn legal(s: &State, role: usize, out: &mut Vec<Move>) {
            #evaluator.legal(&s.0, role, |m| out.push(Move(m)));
        }

        /// The state after every role plays its move of `joint` (one per role, in role order).
        pub fn next(s: &State, joint: &[Move]) -> State {
            let mut moves = [0u32; ROLES.len()];
            for (slot, m) in moves.iter_mut().zip(joint) {
                *slot = m.0;
            }
            let mut w = [0u64; WORDS];
            #evaluator.next(&s.0, &moves, &mut w);
            State(w)
        }

        /// Whether `s` is terminal.
        pub fn terminal(s: &State) -> bool {
            #evaluator.terminal(&s.0)
        }

        /// Fills `out[r]` with role `r`'s goal value in `s` (the largest the goal relation
        /// gives, `None` when it gives none).
        pub fn goals(s: &State, out: &mut [Option<u32>]) {
            #evaluator.goals(&s.0, out);
        }

        #sees
    }
}
