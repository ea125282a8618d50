//! The grounding strategies and the ladder that tries them in turn: plain grounding first,
//! then grounding on demand, then relations deferred to run-time checks.

use super::instantiate::{attempt, Failure};
use super::{Error, Ground, Options};
use crate::ast::Description;
use std::collections::BTreeSet;

/// How one attempt at grounding goes about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Strategy {
    /// Every relation computed in full.
    Plain,
    /// Each relation computed only for the bindings asked for (see [`super::demand`]), within
    /// `work_limit` steps of joins.
    Demanded { work_limit: usize },
    /// On demand too, with the relations that can be checked at run time (see
    /// [`super::deferrable`]) left out of the grounding. The static relations of `forced`, and
    /// those that depend on them, are read as if they depended on the state, so that they can
    /// be checked at run time as well. With `narrow` (a limit of steps of joins), only those
    /// are checked, and the others grounded: their atoms are then read from the state's values
    /// rather than searched for in every state.
    Deferred { forced: BTreeSet<String>, narrow: Option<usize> },
}

impl Strategy {
    /// Whether relations are computed only for the bindings asked for.
    pub(super) fn on_demand(&self) -> bool {
        !matches!(self, Strategy::Plain)
    }

    /// Whether the relations that can be checked at run time are left out.
    pub(super) fn defers_relations(&self) -> bool {
        matches!(self, Strategy::Deferred { .. })
    }

    /// Whether only the relations that read a forced one are checked at run time.
    pub(super) fn narrow(&self) -> bool {
        matches!(self, Strategy::Deferred { narrow: Some(_), .. })
    }

    /// The static relations read as if they depended on the state.
    pub(super) fn forced(&self) -> impl Iterator<Item = &str> {
        let forced = match self {
            Strategy::Deferred { forced, .. } => Some(forced),
            Strategy::Plain | Strategy::Demanded { .. } => None,
        };
        forced.into_iter().flatten().map(String::as_str)
    }

    /// The steps of joins the attempt may take.
    pub(super) fn work_limit(&self, options: &Options) -> usize {
        match self {
            Strategy::Demanded { work_limit } | Strategy::Deferred { narrow: Some(work_limit), .. } => *work_limit,
            Strategy::Plain | Strategy::Deferred { narrow: None, .. } => full_work_limit(options),
        }
    }
}

/// How many steps of joins an attempt at grounding may take per fact or rule instance it may
/// derive (`--max-instances`): a bound on its time, since joins that mostly fail derive little.
/// The largest games that ground take 50 per instance of the default limit (chess with its
/// checks, 196 million steps).
const WORK_PER_INSTANCE: usize = 100;

/// How many times the work of the failed plain attempt the demand restriction may take.
const DEMAND_WORK_FACTOR: usize = 4;

fn full_work_limit(options: &Options) -> usize {
    options.max_instances.saturating_mul(WORK_PER_INSTANCE)
}

/// Relations deferred to run-time checks, `forced` among them, all of them checked.
fn deferring(forced: BTreeSet<String>) -> Strategy {
    Strategy::Deferred { forced, narrow: None }
}

/// Grounds a checked game without simplifying it. Plain grounding comes first: the demand
/// restriction's extra rules cost some games far more than they save, so it is tried only
/// when plain grounding goes past the limit, with a few times the work that attempt spent.
/// Then the relations that can be checked at run time are deferred; when a static relation
/// still goes past the limit, it is forced to be checked too, one relation at a time. Once
/// that succeeds with forced relations, one more attempt, within the demand attempt's work,
/// checks only the relations that read a forced one, and is kept when it succeeds. With
/// [`Options::lift_at_checks`], the first deferring attempt comes before the demand restriction,
/// and a game it stops at that many atoms to check is answered at once: it will be compiled
/// lifted, whatever demand would have made of it. With [`Options::defer_relations`], deferring
/// comes first.
pub(super) fn instantiate(description: &Description, options: &Options) -> Result<Ground, Error> {
    let run = |strategy: Strategy| attempt(description, options, &strategy);
    if options.defer_relations {
        return match run(deferring(BTreeSet::new())) {
            Err(Failure::NothingToDefer) => {
                run(Strategy::Demanded { work_limit: full_work_limit(options) }).map_err(Failure::into_error)
            }
            other => other.map_err(Failure::into_error),
        };
    }
    let plain = match run(Strategy::Plain) {
        Err(failure) if failure.is_too_large() => failure,
        other => return other.map_err(Failure::into_error),
    };
    let work_limit = full_work_limit(options).min(plain.work().saturating_mul(DEMAND_WORK_FACTOR));
    // A game whose first deferring attempt stops at the atoms it would check goes lifted: that
    // attempt is cheap where demand is not (chess: 3.7 s against 8.2 s), so it comes first.
    let mut first_deferring = options.lift_at_checks.map(|_| run(deferring(BTreeSet::new())));
    if let Some(Err(failure @ Failure::Failed { error: Error::ChecksMany { .. }, .. })) = first_deferring {
        return Err(failure.into_error());
    }
    let mut error = match run(Strategy::Demanded { work_limit }) {
        Err(failure) if failure.is_too_large() => failure.into_error(),
        other => return other.map_err(Failure::into_error),
    };
    let mut forced = BTreeSet::new();
    loop {
        match first_deferring.take().unwrap_or_else(|| run(deferring(forced.clone()))) {
            Err(Failure::NothingToDefer) => return Err(error),
            // The relations that read no forced one may ground within the limit of the demand
            // attempt: then they are not searched for in every state (sudoku's empty cells).
            Ok(ground) if !forced.is_empty() => {
                return Ok(run(Strategy::Deferred { forced, narrow: Some(work_limit) }).unwrap_or(ground));
            }
            Err(Failure::Failed { error: failed, static_relation: Some(relation), .. })
                if !forced.contains(&relation) =>
            {
                forced.insert(relation);
                error = failed;
            }
            other => return other.map_err(Failure::into_error),
        }
    }
}
