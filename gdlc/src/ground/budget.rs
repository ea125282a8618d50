//! The grounder's budget for the relaxed fixpoint: at most so many facts and rule instances,
//! and at most so many steps of joins, which bound its memory and its time.

use crate::datalog::compile::RelId;

/// What one attempt at grounding may spend, and what it has spent.
pub(super) struct Budget {
    /// How many facts and rule instances may be derived in all.
    instances: usize,
    /// The relations whose facts do not count toward `instances`, by relation.
    uncounted: Vec<bool>,
    /// The facts and rule instances derived so far.
    derived: usize,
    /// How many steps of joins (facts tried against a literal) may be taken: a bound on the
    /// work, which `instances` alone is not when most joins fail.
    pub(super) work_limit: usize,
    /// The steps of joins taken so far.
    pub(super) work: usize,
}

impl Budget {
    pub(super) fn new(instances: usize, work_limit: usize, relations: usize) -> Budget {
        Budget { instances, uncounted: vec![false; relations], derived: 0, work_limit, work: 0 }
    }

    /// Lets the facts of `rel` be derived without counting toward the limit on instances.
    pub(super) fn uncount(&mut self, rel: RelId) {
        self.uncounted[rel] = true;
    }

    #[inline]
    fn is_uncounted(&self, rel: RelId) -> bool {
        self.uncounted.get(rel).copied().unwrap_or(false)
    }
}

impl crate::datalog::eval::Budget for Budget {
    #[inline]
    fn charge(&mut self, steps: usize) {
        self.work += steps;
    }

    #[inline]
    fn overspent(&self) -> bool {
        self.work > self.work_limit
    }

    #[inline]
    fn allows(&self, rel: RelId, pending: usize) -> bool {
        self.derived.saturating_add(pending) < self.instances || self.is_uncounted(rel)
    }

    #[inline]
    fn count(&mut self, rel: RelId) {
        self.derived += usize::from(!self.is_uncounted(rel));
    }
}
