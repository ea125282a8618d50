//! The watched rules of the incremental evaluation: a rule that does not hold waits on one of
//! its false literals, and one that holds is listed on all its literals (see [`super`]).

use super::Live;
use crate::program::net::{is_deferred, Net, NONE};
use crate::program::Program;

impl Live {
    /// Atom `atom`, which some watched rule reads, now has value `value`: the rules waiting on
    /// the literal that became true look for another false literal, and the rules holding with
    /// the literal that became false stop holding.
    pub(super) fn watched_atom_changed(&mut self, program: &Program, net: &Net, atom: u32, value: bool) {
        let became_true = atom << 1 | u32::from(!value);
        let became_false = atom << 1 | u32::from(value);
        let mut waiting = std::mem::take(&mut self.waiting[became_true as usize]);
        for &rule in &waiting {
            let rule = rule as usize;
            if self.engaged(rule) || self.watch[rule] != became_true {
                continue;
            }
            self.woken(rule);
            if self.rewatch(program, net, rule) {
                self.rule_changed(net, rule, true);
            }
        }
        waiting.clear();
        // Rules that came to hold may have been added to this list meanwhile: keep them.
        let added = std::mem::replace(&mut self.waiting[became_true as usize], waiting);
        self.waiting[became_true as usize].extend(added);
        let mut holding = std::mem::take(&mut self.holding[became_false as usize]);
        for &(rule, epoch) in &holding {
            let rule = rule as usize;
            if self.engaged(rule) && self.epoch[rule] == epoch {
                self.woken(rule);
                let held = if net.volatile[rule] { self.disarm(rule) } else { std::mem::take(&mut self.holds[rule]) };
                self.watch[rule] = became_false;
                self.waiting[became_false as usize].push(rule as u32);
                if held {
                    self.rule_changed(net, rule, false);
                }
            }
        }
        holding.clear();
        let added = std::mem::replace(&mut self.holding[became_false as usize], holding);
        self.holding[became_false as usize].extend(added);
    }

    /// Counts a wake-up of watched rule `rule` in the tally, if one is kept.
    #[inline]
    fn woken(&mut self, rule: usize) {
        if self.tally.is_some() {
            self.count_wake(rule);
        }
    }

    /// Whether watched rule `rule` is watched on all its literals: it holds, or it reads run-time
    /// atoms and is armed.
    fn engaged(&self, rule: usize) -> bool {
        engaged(&self.holds, &self.armed_at, rule)
    }

    /// Makes `rule`, which is not engaged or is new, wait on a false literal of its body (not a
    /// run-time atom), or else hold (or, when it reads run-time atoms, be armed), watched on all
    /// its literals. Returns whether it holds.
    pub(super) fn rewatch(&mut self, program: &Program, net: &Net, rule: usize) -> bool {
        let body = net.watch_body(program, rule);
        let false_literal = body
            .iter()
            .find(|&&code| !is_deferred(code) && !program.holds(code, &self.state, &self.joint, &self.values));
        match false_literal {
            Some(&code) => {
                // A false constant never changes: such a rule waits on nothing.
                let watch = net.watch_of(code).unwrap_or(NONE);
                self.watch[rule] = watch;
                if watch != NONE {
                    self.waiting[watch as usize].push(rule as u32);
                }
                self.holds[rule] = false;
                false
            }
            None => {
                self.watch[rule] = NONE;
                self.epoch[rule] = self.epoch[rule].wrapping_add(1);
                let epoch = self.epoch[rule];
                for &code in body {
                    if let Some(watch) = net.watch_of(code) {
                        self.hold_on(watch, rule as u32, epoch);
                    }
                }
                if net.volatile[rule] {
                    self.arm(program, rule)
                } else {
                    self.holds[rule] = true;
                    true
                }
            }
        }
    }

    /// Adds a holding rule to the list of `watch`, first dropping the stale entries of a full
    /// list, so that lists of literals that rarely become false do not grow without end.
    fn hold_on(&mut self, watch: u32, rule: u32, epoch: u32) {
        let (holds, armed_at, epochs) = (&self.holds, &self.armed_at, &self.epoch);
        let list = &mut self.holding[watch as usize];
        if list.len() == list.capacity() && list.len() >= 8 {
            list.retain(|&(r, e)| engaged(holds, armed_at, r as usize) && epochs[r as usize] == e);
        }
        list.push((rule, epoch));
    }
}

/// Whether watched rule `rule` holds or, when it reads run-time atoms, is armed (see
/// [`Live::engaged`]), from the evaluation's `holds` and `armed_at`.
fn engaged(holds: &[bool], armed_at: &[u32], rule: usize) -> bool {
    holds[rule] || armed_at[rule] != NONE
}
