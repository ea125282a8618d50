//! The counts of the incremental evaluation, changed a run at a time without a branch per count.

/// Adds one to (`up`) or takes one from the count at every index in `run`, and writes to the
/// start of `crossed` the indices whose count crossed zero (became 1 going up, 0 going down), in
/// order; returns how many. The test of each count moves a cursor rather than branching.
#[inline(always)]
pub(super) fn count_run<T: Counter>(counts: &mut [T], run: &[u32], up: bool, crossed: &mut Vec<u32>) -> usize {
    if crossed.len() < run.len() {
        crossed.resize(run.len(), 0);
    }
    let mut k = 0;
    for &i in run {
        let count = &mut counts[i as usize];
        *count = if up { count.up() } else { count.down() };
        crossed[k] = i;
        k += usize::from(count.crossed(up));
    }
    k
}

/// A count of [`count_run`]: a proposition's rules that hold, or a rule's false literals.
pub(super) trait Counter: Copy {
    fn up(self) -> Self;
    fn down(self) -> Self;
    /// Whether the count just crossed zero: it is 1 after going up, 0 after going down.
    fn crossed(self, up: bool) -> bool;
}

macro_rules! counter {
    ($($t:ty),*) => {$(
        impl Counter for $t {
            #[inline(always)]
            fn up(self) -> Self {
                self + 1
            }
            #[inline(always)]
            fn down(self) -> Self {
                self - 1
            }
            #[inline(always)]
            fn crossed(self, up: bool) -> bool {
                self == <$t>::from(up)
            }
        }
    )*};
}
counter!(u8, u32);

#[cfg(test)]
mod tests {
    use super::count_run;
    use crate::rng::Rng;

    /// Counting a run up or down changes every count it names by one (a count named twice
    /// twice), and lists, in the run's order, each time a count became 1 going up or 0 going
    /// down, as counting one at a time and testing each finds.
    #[test]
    fn a_run_lists_the_counts_that_crossed_zero_in_order() {
        let mut rng = Rng::seeded(11);
        for round in 0..200 {
            let up = round % 2 == 0;
            let run: Vec<u32> = (0..rng.below(30)).map(|_| rng.below(20) as u32).collect();
            // Going down, a count starts at least at the times the run names it.
            let named = |i: u32| run.iter().filter(|&&j| j == i).count() as u32;
            let mut counts: Vec<u32> = (0..20).map(|i| rng.below(2) as u32 + if up { 0 } else { named(i) }).collect();
            let mut expected_counts = counts.clone();
            let mut expected = Vec::new();
            for &i in &run {
                let count = &mut expected_counts[i as usize];
                *count = if up { *count + 1 } else { *count - 1 };
                if *count == u32::from(up) {
                    expected.push(i);
                }
            }
            let mut crossed = vec![7; 3];
            let k = count_run(&mut counts, &run, up, &mut crossed);
            assert_eq!(&crossed[..k], &expected[..], "round {round}");
            assert_eq!(counts, expected_counts, "round {round}");
        }
    }
}
