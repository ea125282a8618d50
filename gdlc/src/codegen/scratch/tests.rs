//! Tests of the arrays kept between calls: which entries a call clears, and when a function
//! keeps its arrays at all.

use super::*;

/// The entries `body` clears when it is the body of a function with arrays `n` of 200 entries
/// and `g` of 200, as `n[i]` or `g[i]`, or `None` when it keeps clearing its arrays whole.
fn cleared(body: TokenStream) -> Option<Vec<String>> {
    let lengths = Lengths { nodes: Some(200), words: Some(200) };
    let entries = read_first(&body, lengths)?;
    Some(entries.iter().map(|e| format!("{}[{}]", if e.words { "g" } else { "n" }, e.index)).collect())
}

#[test]
fn entries_written_before_they_are_read_are_not_cleared() {
    let body = quote! {
        g[0] = s.0[1] & 0x3;
        n[1] = g[0] != 0;
        if n[1] { return None; }
        g[2] = g[0] | g[1];
    };
    assert_eq!(cleared(body), Some(vec!["g[1]".to_string()]));
}

#[test]
fn what_a_block_under_a_fact_of_the_state_writes_is_written_where_the_fact_holds_again() {
    let body = quote! {
        if s.0[22] & 0x40 != 0 {
            g[3] = s.0[4];
        }
        let drawn = if s.0[22] & 0x40 != 0 { g[3] } else { 0 };
        n[0] = g[3] != 0;
    };
    assert_eq!(cleared(body), Some(vec!["g[3]".to_string()]), "read outside the fact, so cleared");
    let body = quote! {
        if s.0[22] & 0x40 != 0 {
            g[3] = s.0[4];
        }
        let drawn = if s.0[22] & 0x40 != 0 { g[3] } else { 0 };
    };
    assert_eq!(cleared(body), Some(vec![]));
}

#[test]
fn a_condition_that_reads_nodes_or_a_branch_taken_or_not_writes_nothing_for_later() {
    let body = quote! {
        if n[5] { g[3] = 1; }
        if n[5] { n[0] = g[3] != 0; }
        if s.0[1] != 0 { g[4] = 1; } else { g[6] = 1; }
        g[7] = g[4] | g[6];
        match x { 0 => { g[8] = 1; } _ => {} }
        loop { g[9] = g[9] | g[8]; break; }
    };
    let expected = ["n[5]", "g[3]", "g[4]", "g[6]", "g[8]", "g[9]"];
    let mut expected: Vec<String> = expected.iter().map(|e| e.to_string()).collect();
    expected.sort();
    assert_eq!(
        cleared(body).map(|mut c| {
            c.sort();
            c
        }),
        Some(expected)
    );
}

#[test]
fn accumulated_entries_are_cleared() {
    let body = quote! {
        n[7] |= s.0[0] != 0;
        n[7] |= s.0[1] != 0;
    };
    assert_eq!(cleared(body), Some(vec!["n[7]".to_string()]));
}

#[test]
fn a_part_is_read_where_it_is_called() {
    let body = quote! {
        g[1] = s.0[0];
        #[inline(never)]
        fn nodes_part_0(s: &State, n: &mut [bool; 200], g: &mut [u64; 200]) {
            g[2] = g[1] & g[0];
        }
        nodes_part_0(s, &mut n, &mut g);
        n[0] = g[2] != 0;
    };
    assert_eq!(cleared(body), Some(vec!["g[0]".to_string()]));
}

#[test]
fn an_array_extended_for_later_nodes_reads_its_new_entries_as_zeroes() {
    let body = quote! {
        g[1] = s.0[0];
        match &mut ask {
            Ask::Goals(out) => {
                let mut g = {
                    let mut all = [0u64; 300];
                    all[..200].copy_from_slice(&g[..]);
                    all
                };
                g[250] = g[1] | g[260];
            }
        }
    };
    assert_eq!(cleared(body), Some(vec![]));
}

#[test]
fn arrays_used_other_than_by_their_entries_are_not_followed() {
    assert_eq!(cleared(quote!(let all = &g; n[0] = all[3] != 0;)), None);
    assert_eq!(cleared(quote!(g[0] = s.0[0]; let s = t; g[1] = s.0[1];)), None);
    assert_eq!(
        cleared(quote!(match t {
            Some(s) => g[1] = s.0[1],
            None => {}
        })),
        None
    );
    assert_eq!(cleared(quote!(g[0] = s.0[0]; nodes(s, t); g[1] = s.0[1] & g[0];)), Some(vec![]));
    assert_eq!(cleared(quote!(g[0] = g[i];)), None);
    let unknown_call = quote! {
        fn nodes_part_0(s: &State, g: &mut [u64; 200]) { g[0] = 1; }
        nodes_part_0(t, &mut g);
    };
    assert_eq!(cleared(unknown_call), None);
}

#[test]
fn a_long_function_in_parts_takes_its_arrays_from_a_thread_local_and_clears_what_it_reads_first() {
    let functions = quote! {
        fn evaluate(s: &State) -> bool {
            let mut n = [false; 20];
            let mut g = [0u64; 300];
            n[3] |= s.0[0] != 0;
            fn nodes_part_0(s: &State, n: &mut [bool; 20], g: &mut [u64; 300]) {
                g[1] = s.0[1];
            }
            nodes_part_0(s, &mut n, &mut g);
            n[3] && g[1] != 0
        }
        fn without_parts(s: &State) -> bool {
            let mut g = [0u64; 300];
            g[1] = s.0[1];
            g[1] != 0
        }
        fn small(s: &State) -> bool {
            let mut g = [0u64; 100];
            fn nodes_part_1(s: &State, g: &mut [u64; 100]) {
                g[1] = s.0[1];
            }
            nodes_part_1(s, &mut g);
            g[1] != 0
        }
    };
    let kept = keep_arrays(functions).to_string();
    assert!(kept.contains("static ARRAYS : :: core :: cell :: RefCell < ([bool ; 20] , [u64 ; 300]) >"), "{kept}");
    let start = "ARRAYS . with_borrow_mut (| arrays | { let (mut n , mut g) = (& mut arrays . 0 , & mut arrays . 1) ; n [3] = false ; n [3] |=";
    assert!(kept.contains(start), "{kept}");
    assert!(kept.contains("let mut g = [0u64 ; 300] ; g [1] = s . 0 [1] ;"), "arrays no part takes stay local: {kept}");
    assert!(kept.contains("let mut g = [0u64 ; 100] ;"), "a small function keeps its array: {kept}");
    assert_eq!(kept.matches("thread_local").count(), 1, "{kept}");
}

#[test]
fn a_function_that_would_clear_many_entries_clears_its_arrays_whole() {
    let accumulated = (0..=MAX_CLEARS as u32).map(|i| {
        let i = Literal::u32_unsuffixed(2 * i);
        quote!(g[#i] |= s.0[0];)
    });
    let functions = quote! {
        fn evaluate(s: &State) {
            let mut g = [0u64; 300];
            #(#accumulated)*
            fn nodes_part_0(s: &State, g: &mut [u64; 300]) {}
            nodes_part_0(s, &mut g);
        }
    };
    let kept = keep_arrays(functions).to_string();
    assert!(!kept.contains("thread_local"), "{kept}");
}

#[test]
fn runs_of_entries_are_cleared_by_a_fill_and_the_others_one_by_one() {
    let entries =
        [(false, 1), (false, 2), (false, 3), (false, 4), (false, 5), (false, 6), (false, 9), (true, 3), (true, 4)];
    let cleared: BTreeSet<Entry> = entries.iter().map(|&(words, index)| Entry { words, index }).collect();
    let clears: Vec<String> = clears(&cleared).iter().map(ToString::to_string).collect();
    assert_eq!(clears, ["n [1 .. 7] . fill (false) ;", "n [9] = false ;", "g [3] = 0 ;", "g [4] = 0 ;"]);
}

#[test]
fn a_function_that_would_clear_over_half_of_its_bytes_zeroes_its_arrays_whole() {
    let function = |accumulated: u32| {
        let accumulated = (0..accumulated).map(|i| {
            let i = Literal::u32_unsuffixed(i);
            quote!(g[#i] |= s.0[0];)
        });
        quote! {
            fn evaluate(s: &State) {
                let mut g = [0u64; 300];
                #(#accumulated)*
                fn nodes_part_0(s: &State, g: &mut [u64; 300]) {}
                nodes_part_0(s, &mut g);
            }
        }
    };
    let kept = keep_arrays(function(150)).to_string();
    assert!(kept.contains("g [0 .. 150] . fill (0) ;"), "{kept}");
    let kept = keep_arrays(function(151)).to_string();
    assert!(!kept.contains("thread_local"), "{kept}");
}
