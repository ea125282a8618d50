//! The tables' sets, indexes and array lookups against what they were given.

use super::*;

#[test]
fn facts_are_kept_once_in_order_and_found_by_index() {
    let mut table = Table::default();
    for fact in [[1, 2], [3, 4], [1, 2], [1, 5]] {
        table.insert(&fact);
    }
    assert_eq!(table.facts().collect::<Vec<_>>(), [&[1, 2][..], &[3, 4], &[1, 5]]);
    assert!(table.contains(&[3, 4]) && !table.contains(&[4, 3]));
    table.ensure_index(&[0]);
    table.insert(&[1, 9]);
    assert_eq!(table.candidates(&[0], &[1]).collect::<Vec<_>>(), [0, 2, 3]);
    assert_eq!(table.facts_in(1, 3).count(), 2);
}

#[test]
fn a_bag_lists_every_fact_added_as_often_as_it_came_and_keeps_that_through_clearing() {
    let mut table = Table::bag();
    for round in 0..2 {
        for i in 0..40u32 {
            assert!(table.insert(&[i % 3]), "round {round}: fact {i} counted as not new");
        }
        assert_eq!(table.len(), 40);
        assert_eq!(table.facts().filter(|fact| fact[0] == 1).count(), 13);
        assert!(table.contains(&[2]) && !table.contains(&[3]));
        table.clear();
        assert!(table.is_empty());
    }
}

/// A run of facts pushed to a bag at once lists them as adding them one by one does, through
/// clearing, facts without arguments too; a bag with an index takes no run.
#[test]
fn a_run_pushed_to_a_bag_lists_its_facts_as_one_by_one() {
    for width in [0, 1, 3] {
        let (mut run, mut one_by_one) = (Table::bag(), Table::bag());
        for round in 0..2u32 {
            let facts: Vec<Vec<u32>> = (0..4).map(|k| (0..width).map(|i| round + k % 3 + i).collect()).collect();
            assert!(run.takes_runs());
            run.push_run(&facts[..2].concat(), width as usize, 2);
            run.push_run(&facts[2..].concat(), width as usize, 2);
            facts.iter().for_each(|fact| assert!(one_by_one.insert(fact)));
            assert_eq!(run.len(), 4, "width {width}, round {round}");
            assert!((0..4).all(|i| run.fact(i) == one_by_one.fact(i)), "width {width}, round {round}");
            run.clear();
            one_by_one.clear();
        }
    }
    let mut indexed = Table::bag();
    indexed.ensure_index(&[0]);
    assert!(!indexed.takes_runs(), "a run would leave the index behind");
}

#[test]
fn a_table_of_facts_without_arguments_holds_at_most_one() {
    let mut table = Table::default();
    assert!(!table.contains(&[]));
    assert!(table.insert(&[]) && !table.insert(&[]));
    assert_eq!((table.len(), table.facts().count()), (1, 1));
}

#[test]
fn an_index_finds_every_fact_of_a_key_in_order_through_growth_and_clearing() {
    let mut table = Table::default();
    table.ensure_index(&[1, 2]);
    for round in 0..2u32 {
        for i in 0..3_000u32 {
            table.insert(&[i, (i * 7 + round) % 13, i % 5]);
        }
        for a in 0..14u32 {
            for b in 0..6u32 {
                let found: Vec<usize> = table.candidates(&[1, 2], &[a, b]).collect();
                let scanned: Vec<usize> =
                    (0..table.len()).filter(|&i| table.fact(i)[1] == a && table.fact(i)[2] == b).collect();
                assert_eq!(found, scanned, "key ({a} {b}) in round {round}");
            }
        }
        table.clear();
        assert_eq!(table.candidates(&[1, 2], &[0, 0]).count(), 0);
    }
}

#[test]
fn a_frozen_table_answers_as_before_until_it_changes() {
    let mut table = Table::default();
    table.ensure_index(&[0]);
    table.ensure_index(&[1, 2]);
    for i in 0..300u32 {
        table.insert(&[i % 7, i % 11, i % 3]);
    }
    let probes: Vec<[u32; 3]> = (0..12u32).flat_map(|a| (0..12).map(move |b| [a, b, (a + b) % 4])).collect();
    let answers = |table: &Table| {
        let facts: Vec<bool> = probes.iter().map(|fact| table.contains(fact)).collect();
        let by_first: Vec<Vec<usize>> = (0..12).map(|a| table.candidates(&[0], &[a]).collect()).collect();
        let by_rest: Vec<Vec<usize>> = probes.iter().map(|p| table.candidates(&[1, 2], &p[1..]).collect()).collect();
        (facts, by_first, by_rest)
    };
    let hashed = answers(&table);
    table.freeze();
    assert!(table.dense.is_some() && table.indexes.iter().all(|index| index.dense.is_some()));
    assert_eq!(answers(&table), hashed);
    assert!(table.insert(&[20, 0, 0]) && table.contains(&[20, 0, 0]));
    assert_eq!(table.candidates(&[0], &[20]).collect::<Vec<_>>(), [table.len() - 1]);
    assert!(table.dense.is_none(), "a change drops the arrays");
}

#[test]
fn the_set_grows_past_many_facts() {
    let mut table = Table::default();
    for i in 0..10_000u32 {
        assert!(table.insert(&[i, i / 7]));
    }
    assert!((0..10_000u32).all(|i| table.contains(&[i, i / 7])) && !table.contains(&[3, 3]));
    assert_eq!(table.len(), 10_000);
}

#[test]
fn small_tables_tried_fact_by_fact_answer_as_hashed_ones() {
    // Facts of every size on both sides of LINEAR, each added twice, then the table cleared
    // and filled again with fewer (it keeps its set once it had one).
    let mut table = Table::default();
    for round in [3u32, 20, 2, 12] {
        table.clear();
        let mut model = std::collections::BTreeSet::new();
        for i in 0..round {
            let fact = [i % 5, i];
            assert_eq!(table.insert(&fact), model.insert(fact), "round {round}: {fact:?}");
            assert!(!table.insert(&fact));
        }
        assert_eq!(table.len(), model.len());
        for x in 0..6 {
            for y in 0..25 {
                assert_eq!(table.contains(&[x, y]), model.contains(&[x, y]), "round {round}: [{x}, {y}]");
            }
        }
        let in_order: Vec<&[u32]> = table.facts().collect();
        assert_eq!(
            in_order,
            (0..round).map(|i| [i % 5, i]).collect::<Vec<_>>().iter().map(|f| &f[..]).collect::<Vec<_>>()
        );
    }
}

#[test]
fn facts_known_new_are_kept_as_inserted_ones_through_the_set_and_indexes() {
    let (mut known, mut inserted) = (Table::default(), Table::default());
    for table in [&mut known, &mut inserted] {
        table.ensure_index(&[1]);
    }
    for round in 0..2u32 {
        // 40 facts: past the facts tried one by one, and past the first sizes of the set.
        let facts: Vec<[u32; 2]> = (0..40u32).map(|i| [i + round, i % 3]).collect();
        for fact in &facts {
            known.insert_new(fact);
            assert!(inserted.insert(fact));
        }
        assert_eq!(known.facts().collect::<Vec<_>>(), inserted.facts().collect::<Vec<_>>());
        for probe in (0..45u32).flat_map(|a| (0..4u32).map(move |b| [a, b])) {
            assert_eq!(known.contains(&probe), inserted.contains(&probe), "{probe:?} in round {round}");
        }
        for b in 0..4u32 {
            let found: Vec<usize> = known.candidates(&[1], &[b]).collect();
            assert_eq!(found, inserted.candidates(&[1], &[b]).collect::<Vec<_>>());
        }
        assert!(!known.insert(&facts[7]), "a fact known new is found again");
        known.clear();
        inserted.clear();
    }
}
