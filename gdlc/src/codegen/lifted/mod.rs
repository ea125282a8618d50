//! The lifted form: a game that is not ground (too large to, or asked for this form) compiled
//! from the interpreter's plans. Every rule that a query's chosen engine evaluates becomes a
//! function of nested loops ([`joins`]); the module lists each query's components of those
//! functions, and packs the game's symbols, terms and static relations as the interpreter
//! computed them, in a `gdl_runtime::lifted::Program` that the runtime evaluates bottom-up.

mod demand;
mod groups;
mod joins;
mod live;
mod merge;
mod probes;
mod recursion;
mod unfold;

use super::notes::{note, Notes};
use crate::datalog::compile::{CLit, CRule};
use crate::datalog::eval::{access_paths, indexed_reads, Component};
use crate::interp::{Interpreter, Query};
use gdl_runtime::program::words_to_text;
use joins::{join_body, search_body, Fixed};
use merge::Alternatives;
use probes::{probe_name, search_access, Probes};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// A rule's join: the engine, the rule, and which delta variant of it, if one.
type JoinKey = (usize, usize, Option<usize>);

/// The joins the module defines: each one's name, and for a join of several rules that differ
/// in one test (see the module `merge`), their tests and the numbers of the rules joined with
/// its own.
#[derive(Default)]
struct Joins {
    names: BTreeMap<JoinKey, Ident>,
    merged: BTreeMap<JoinKey, (Alternatives, Vec<usize>)>,
}

impl Joins {
    /// The name of the function of a join: its engine, its rule and its delta variant.
    fn name(&mut self, key: JoinKey) -> Ident {
        self.names
            .entry(key)
            .or_insert_with(|| match key {
                (engine, rule, None) => format_ident!("engine_{}_rule_{}", engine, rule),
                (engine, rule, Some(j)) => format_ident!("engine_{}_rule_{}_delta_{}", engine, rule, j),
            })
            .clone()
    }
}

/// The module of the lifted form of the game `interp` loaded.
pub(crate) fn generate(mut interp: Interpreter, notes: Option<&Notes>) -> TokenStream {
    let sources = unfold::unfold(&mut interp);
    let interp = &interp;
    let program = program_items(interp, &sources, notes);
    let roles = &interp.roles;
    let role_count = roles.len();
    quote! {
        /// The roles, in the order of the game's `role` facts.
        pub const ROLES: [&str; #role_count] = [#(#roles),*];
        /// A game state: the facts that hold in it, as ground terms.
        pub type State = ::gdl_runtime::lifted::State;
        /// A move, as a ground term.
        pub type Move = ::gdl_runtime::lifted::Move;
        /// The game, for `gdl_runtime`'s generic players, drivers and benchmarks.
        #[derive(Clone, Copy, Debug, Default)]
        pub struct Game;
        ::gdl_runtime::delegate_lifted_game!(Game, loaded);
        /// The game, loaded on first use.
        fn loaded() -> &'static ::gdl_runtime::lifted::LiftedGame {
            static LOADED: ::std::sync::OnceLock<::gdl_runtime::lifted::LiftedGame> = ::std::sync::OnceLock::new();
            LOADED.get_or_init(|| {
                ::gdl_runtime::lifted::LiftedGame::load(&PROGRAM).expect("the lifted program that gdlc wrote loads")
            })
        }
        #program
    }
}

/// The lifted rules of a game in the table form, beside its tables (see
/// `gdl_runtime::program::TablesOrLifted`): a module `lifted` whose `loaded()` gives them,
/// loaded on first use with the table form's base facts and moves among their terms (`None` if
/// they do not load).
pub(crate) fn companion(mut interp: Interpreter, notes: Option<&Notes>) -> TokenStream {
    let sources = unfold::unfold(&mut interp);
    let program = program_items(&interp, &sources, notes);
    quote! {
        /// The game's rules with variables, which play instead of the tables when they are faster.
        mod lifted {
            /// The rules, loaded on first use.
            pub(super) fn loaded() -> Option<&'static ::gdl_runtime::lifted::LiftedGame> {
                static LOADED: ::std::sync::OnceLock<Option<::gdl_runtime::lifted::LiftedGame>> =
                    ::std::sync::OnceLock::new();
                LOADED
                    .get_or_init(|| {
                        let terms: Vec<&str> = super::BASE.iter().chain(&super::MOVES).copied().collect();
                        ::gdl_runtime::lifted::LiftedGame::load_with_terms(&PROGRAM, &terms).ok()
                    })
                    .as_ref()
            }
            #program
        }
    }
}

/// The static `PROGRAM` of the lifted form and its joins.
fn program_items(interp: &Interpreter, sources: &unfold::Sources, notes: Option<&Notes>) -> TokenStream {
    let mut joins = Joins::default();
    let mut fixed_indexes: BTreeSet<(usize, Vec<usize>)> = BTreeSet::new();
    let loaded = demand::Loaded::of(interp);
    let probes = Probes::of(interp);
    let keys = &interp.keys;
    let outputs = [keys.legal, keys.next, keys.terminal, keys.goal, keys.sees];
    let [legal, next, terminal, goal, sees] = Query::ALL.map(|query| {
        let engine = interp.chosen[query as usize];
        let components = interp.engines[engine].plans[query as usize].as_deref().unwrap_or(&[]);
        // A component of the inputs alone (the relations of `true` and `does`) has no rule.
        let computed: Vec<&Component> =
            components.iter().filter(|c| !c.rules.is_empty() && !probes.replaces(engine, c)).collect();
        let needed = live::needed(interp, &probes, engine, &computed, outputs[query as usize]);
        let components =
            needed.into_iter().map(|c| component(interp, &loaded, &probes, engine, c, &mut joins, &mut fixed_indexes));
        quote!(&[#(#components),*])
    });
    let searches = search_functions(interp, &probes, &mut fixed_indexes, notes);
    let Joins { names, merged } = &joins;
    let functions = names.iter().map(|(&(engine, rule, variant), name)| {
        let plain = &interp.engines[engine].rules[rule];
        let compiled = match variant {
            Some(j) => &plain.delta_variants[j],
            None => plain,
        };
        let fixed = Fixed(&interp.engines[engine].is_fixed);
        let (alternatives, others) = match merged.get(&(engine, rule, variant)) {
            Some((alternatives, others)) => (Some(alternatives), &others[..]),
            None => (None, &[][..]),
        };
        let (body, returns) = join_body(compiled, &fixed, variant.is_some(), probes.asked(engine), alternatives);
        // The rules of an `or` expanded share their span, and so do the rules that unfolding
        // wrote from one: each rule is named once, then those unfolded into them.
        let mut spans = Vec::new();
        let members = std::iter::once(rule).chain(others.iter().copied());
        let unfolded = members.clone().flat_map(|r| sources.get(&(engine, r)).into_iter().flatten().copied());
        for span in members.map(|r| interp.engines[engine].rules[r].span).chain(unfolded) {
            if !spans.contains(&span) {
                spans.push(span);
            }
        }
        let comment: TokenStream = spans.iter().map(|&span| note(notes, |n| n.rule_at(span))).collect();
        // A join whose head has no variable returns once it derived its fact, maybe from the
        // first turn of its loops.
        let never_loop = returns.then(|| quote!(#[allow(clippy::never_loop)]));
        quote! {
            #comment
            // The `gdl!` macro's output has no module-wide allowance, and a join need not read
            // every part of the evaluation.
            #[allow(unused_variables)]
            #never_loop
            fn #name(
                eval: &mut ::gdl_runtime::lifted::Eval<'_>,
                delta: (usize, usize),
                out: &mut ::gdl_runtime::lifted::Derived,
            ) {
                #body
            }
        }
    });
    let chosen = |query: Query| interp.chosen[query as usize];
    let shared_step = chosen(Query::Terminal) == chosen(Query::Legal) && chosen(Query::Legal) == chosen(Query::Next);
    let program = program_data(interp, &fixed_indexes);
    quote! {
        /// The game's rules, relations and static facts, as gdlc's interpreter planned them.
        static PROGRAM: ::gdl_runtime::lifted::Program = ::gdl_runtime::lifted::Program {
            #program
            queries: ::gdl_runtime::lifted::Queries {
                legal: #legal,
                next: #next,
                terminal: #terminal,
                goal: #goal,
                sees: #sees,
                shared_step: #shared_step,
            },
        };
        #(#functions)*
        #(#searches)*
    }
}

/// The function of each relation answered by a search (see the module `probes`) in the engines
/// the queries chose, the indexes of static relations they use added to `fixed_indexes`.
fn search_functions(
    interp: &Interpreter,
    probes: &Probes,
    fixed_indexes: &mut BTreeSet<(usize, Vec<usize>)>,
    notes: Option<&Notes>,
) -> Vec<TokenStream> {
    let engines: BTreeSet<usize> = interp.chosen.iter().copied().collect();
    let mut functions = Vec::new();
    for engine in engines {
        let is_fixed = &interp.engines[engine].is_fixed;
        for rel in probes.relations(engine) {
            let rules = probes.rules_of(interp, engine, rel);
            for rule in &rules {
                let access = search_access(rule);
                let fixed_reads =
                    indexed_reads(rule, &access).filter(|(r, _)| is_fixed.get(*r).copied().unwrap_or(false));
                fixed_indexes.extend(fixed_reads.map(|(r, positions)| (r, positions.to_vec())));
            }
            let arity = rules.first().map_or(0, |rule| rule.head.args.len());
            let body = search_body(&rules, &Fixed(is_fixed), probes.asked(engine), notes);
            let name = probe_name(engine, rel);
            let relation = &interp.relations.keys[rel].0;
            let doc =
                format!(" Whether `{relation}` has the fact of the terms `args`, found by a search of its rules.");
            functions.push(quote! {
                #[doc = #doc]
                #[allow(unused_variables, unused_labels, clippy::never_loop)]
                fn #name(
                    store: &mut ::gdl_runtime::lifted::store::Overlay<'_>,
                    tables: &[::gdl_runtime::lifted::Table],
                    fixed: &[::gdl_runtime::lifted::Table],
                    args: &[u32; #arity],
                ) -> bool {
                    #body
                }
            });
        }
    }
    functions
}

/// A component of a query's plan as a `gdl_runtime::lifted::Component`, its joins named in
/// `joins`, the indexes of static relations they use added to `fixed_indexes`, and its rules'
/// tests of the relations in `loaded` listed.
fn component(
    interp: &Interpreter,
    loaded: &demand::Loaded,
    probes: &Probes,
    engine: usize,
    component: &Component,
    joins: &mut Joins,
    fixed_indexes: &mut BTreeSet<(usize, Vec<usize>)>,
) -> TokenStream {
    let is_fixed = &interp.engines[engine].is_fixed;
    let mut indexes: BTreeSet<(usize, Vec<usize>)> = BTreeSet::new();
    let mut note_indexes = |rule: &CRule| {
        let mut note = |rel: usize, positions: &[usize]| {
            let set = if is_fixed.get(rel).copied().unwrap_or(false) { &mut *fixed_indexes } else { &mut indexes };
            set.insert((rel, positions.to_vec()));
        };
        let access = access_paths(rule);
        for (rel, positions) in indexed_reads(rule, &access) {
            note(rel, positions);
        }
        for (rel, positions) in groups::grouped_reads(rule, &access, is_fixed) {
            note(rel, &positions);
        }
        // The searches the rule asks look facts up when its component runs.
        for lit in &rule.body {
            let (CLit::Pos(p) | CLit::Neg(p)) = lit else { continue };
            for searched in probes.called_through(interp, engine, p.rel) {
                for (rel, positions) in indexed_reads(&searched, &search_access(&searched)) {
                    note(rel, positions);
                }
            }
        }
    };
    let mut rules = Vec::new();
    let mut variants = Vec::new();
    let engine_rules = &interp.engines[engine].rules;
    component.rules.iter().for_each(|planned| note_indexes(&engine_rules[planned.rule]));
    if component.recursive {
        for planned in &component.rules {
            rules.push(joins.name((engine, planned.rule, None)));
            for (j, variant) in engine_rules[planned.rule].delta_variants.iter().enumerate() {
                note_indexes(variant);
                let Some(CLit::Pos(first)) = variant.body.first() else { continue };
                let rel = Literal::usize_unsuffixed(first.rel);
                let name = joins.name((engine, planned.rule, Some(j)));
                variants.push(quote!((#rel, #name as ::gdl_runtime::lifted::Join)));
            }
        }
    } else {
        let numbered: Vec<(usize, &CRule)> = component.rules.iter().map(|p| (p.rule, &engine_rules[p.rule])).collect();
        for (members, alternatives) in merge::merge(&numbered) {
            rules.push(joins.name((engine, members[0], None)));
            if let Some(alternatives) = alternatives {
                joins.merged.insert((engine, members[0], None), (alternatives, members[1..].to_vec()));
            }
        }
    }
    let relations = component.relations.iter().map(|&r| Literal::usize_unsuffixed(r));
    let recursive = component.recursive;
    let indexes = indexes.iter().map(index);
    let demands = demand::demands(loaded, interp, probes, engine, component);
    quote! {
        ::gdl_runtime::lifted::Component {
            relations: &[#(#relations),*],
            rules: &[#(#rules as ::gdl_runtime::lifted::Join),*],
            variants: &[#(#variants),*],
            recursive: #recursive,
            indexes: &[#(#indexes),*],
            demands: #demands,
        }
    }
}

/// An index as `(relation, &[positions])`.
fn index((rel, positions): &(usize, Vec<usize>)) -> TokenStream {
    let rel = Literal::usize_unsuffixed(*rel);
    let positions = positions.iter().map(|&p| Literal::usize_unsuffixed(p));
    quote!((#rel, &[#(#positions),*]))
}

/// The fields of the `Program` other than its queries: symbols, terms, static facts, roles, the
/// initial state, and where the inputs and outputs are.
fn program_data(interp: &Interpreter, fixed_indexes: &BTreeSet<(usize, Vec<usize>)>) -> TokenStream {
    let names = interp.symbols.names();
    let mut words = Vec::new();
    interp.terms.write_flat_nodes(&mut words);
    let terms = words_to_text(&words);
    let mut words = Vec::new();
    for (rel, table) in interp.fixed.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
        let width = table.fact(0).len();
        words.extend([rel as u32, width as u32, table.len() as u32]);
        words.extend(table.facts().flat_map(|f| f.iter().copied()));
    }
    let fixed = words_to_text(&words);
    let relations = interp.relations.len();
    let fixed_indexes = fixed_indexes.iter().map(index);
    let roles = &interp.roles;
    let role_terms = &interp.role_terms;
    let initial = initial_terms(interp);
    let inputs = &interp.inputs;
    let (true_, does) = (inputs.true_, inputs.does);
    let [read_true, read_does] = inputs.read_whole;
    let splits = inputs.splits.iter().map(|splits| {
        let sorted: BTreeMap<_, _> = splits.iter().collect();
        let entries = sorted.iter().map(|(&&(sym, arity), &&rel)| quote!((#sym, #arity, #rel)));
        quote!(&[#(#entries),*])
    });
    let keys = &interp.keys;
    let outputs = [
        (Query::Legal, keys.legal),
        (Query::Next, keys.next),
        (Query::Terminal, keys.terminal),
        (Query::Goal, keys.goal),
        (Query::Sees, keys.sees),
    ];
    let [legal, next, terminal, goal, sees] = outputs.map(|(query, relation)| {
        let engine = &interp.engines[interp.chosen[query as usize]];
        let fixed = engine.is_fixed.get(relation).copied().unwrap_or(false);
        quote!(::gdl_runtime::lifted::Output { relation: #relation, fixed: #fixed })
    });
    let gdl_ii = interp.gdl_ii;
    let random_role = match interp.random_role {
        Some(role) => quote!(Some(#role)),
        None => quote!(None),
    };
    quote! {
        names: &[#(#names),*],
        terms: #terms,
        relations: #relations,
        fixed: #fixed,
        fixed_indexes: &[#(#fixed_indexes),*],
        roles: &[#(#roles),*],
        role_terms: &[#(#role_terms),*],
        initial: &[#(#initial),*],
        inputs: ::gdl_runtime::lifted::Inputs {
            true_: #true_,
            does: #does,
            read_whole: [#read_true, #read_does],
            splits: [#(#splits),*],
        },
        outputs: ::gdl_runtime::lifted::Outputs {
            legal: #legal,
            next: #next,
            terminal: #terminal,
            goal: #goal,
            sees: #sees,
        },
        gdl_ii: #gdl_ii,
        random_role: #random_role,
    }
}

/// The terms of the initial state's facts: the arguments of the `init` facts.
fn initial_terms(interp: &Interpreter) -> Vec<u32> {
    let Some(init) = interp.relations.get("init", 1) else { return Vec::new() };
    let mut terms: Vec<u32> = interp.fixed.get(init).map(|t| t.facts().map(|f| f[0]).collect()).unwrap_or_default();
    terms.sort_unstable();
    terms.dedup();
    terms
}
