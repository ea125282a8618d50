//! Loops that group their facts: a loop over a static relation that binds the last variables of
//! its rule's head and others besides derives the same head from every fact alike in the head's
//! variables (`(<= (open ?r) (owner ?r ?p) (not (true (pit ?p 3))))` derives `(open white)`
//! once for each open pit of white's). Such a loop walks the relation's facts group by group,
//! through an index on the positions of those variables, and goes on to the next group once the
//! head is derived.

use super::joins::head_variables;
use crate::datalog::compile::{CLit, CRule, PTerm, Pattern};
use crate::datalog::eval::{bound_by, mark_vars, Access};

/// The positions to group the facts of a loop over `p` by, with the variables marked in `bound`
/// bound before it: when `p`'s relation is static (`fixed`, its indexes made when the game is
/// loaded) and the loop binds the last variables of the head (`head_vars`) and others besides,
/// the positions of the terms that hold those head variables. Facts alike there derive the same
/// head, so that once one of a group derived it the rest of the group may be skipped; without
/// the grouping, each would derive it again and the table drop it.
pub(super) fn group_positions(p: &Pattern, fixed: bool, bound: &[bool], head_vars: &[bool]) -> Option<Vec<usize>> {
    if !fixed {
        return None;
    }
    let mut after = bound.to_vec();
    p.args.iter().for_each(|arg| mark_vars(arg, &mut after));
    let new = |v: usize| after[v] && !bound[v];
    let completes_head = head_vars.iter().zip(&after).all(|(&head, &bound)| !head || bound);
    let binds_head = (0..after.len()).any(|v| new(v) && head_vars[v]);
    let binds_other = (0..after.len()).any(|v| new(v) && !head_vars[v]);
    if !(completes_head && binds_head && binds_other) {
        return None;
    }
    let holds_new_head_var = |arg: &PTerm| {
        let mut vars = vec![false; after.len()];
        mark_vars(arg, &mut vars);
        (0..vars.len()).any(|v| vars[v] && new(v) && head_vars[v])
    };
    Some(p.args.iter().enumerate().filter(|(_, arg)| holds_new_head_var(arg)).map(|(k, _)| k).collect())
}

/// The relations and positions that the loops of `rule` over static relations (marked in
/// `is_fixed`) group their facts by (see [`group_positions`]), with `access` its access paths:
/// each needs an index on those positions.
pub(super) fn grouped_reads(rule: &CRule, access: &[Access], is_fixed: &[bool]) -> Vec<(usize, Vec<usize>)> {
    let head_vars = head_variables(rule);
    let mut reads = Vec::new();
    for (at, (lit, access)) in rule.body.iter().zip(access).enumerate() {
        let (CLit::Pos(p), Access::Scan) = (lit, access) else { continue };
        let fixed = is_fixed.get(p.rel).copied().unwrap_or(false);
        let bound = bound_by(&rule.body[..at], rule.num_vars);
        reads.extend(group_positions(p, fixed, &bound, &head_vars).map(|positions| (p.rel, positions)));
    }
    reads
}

#[cfg(test)]
mod tests {
    use super::{group_positions, grouped_reads};
    use crate::codegen::lifted::joins::join_body;
    use crate::codegen::lifted::joins::Fixed;
    use crate::codegen::lifted::probes::Asked;
    use crate::datalog::compile::{CLit, CRule, PTerm, Pattern};
    use crate::datalog::eval::access_paths;

    fn pattern(rel: usize, args: Vec<PTerm>) -> Pattern {
        Pattern { rel, args: args.into_boxed_slice() }
    }

    /// `open(R) :- owner(R, P), not pit(P, 3)`, `owner` static.
    fn open() -> CRule {
        let (r, p) = (PTerm::Var(0), PTerm::Var(1));
        CRule {
            head: pattern(0, vec![r.clone()]),
            body: vec![CLit::Pos(pattern(1, vec![r, p.clone()])), CLit::Neg(pattern(2, vec![p, PTerm::Ground(3)]))],
            num_vars: 2,
            delta_variants: Vec::new(),
            span: Default::default(),
        }
    }

    #[test]
    fn a_loop_that_completes_the_head_and_binds_more_is_grouped_by_the_head_s_variables() {
        let (r, p) = (PTerm::Var(0), PTerm::Var(1));
        let head = [true, false];
        let owner = pattern(1, vec![r.clone(), p.clone()]);
        assert_eq!(group_positions(&owner, true, &[false, false], &head), Some(vec![0]));
        assert_eq!(group_positions(&owner, false, &[false, false], &head), None, "not static");
        assert_eq!(
            group_positions(&owner, true, &[true, false], &head),
            None,
            "R bound before: binds no head variable"
        );
        assert_eq!(group_positions(&owner, true, &[false, false], &[true, true]), None, "binds head variables only");
        assert_eq!(group_positions(&pattern(1, vec![r]), true, &[false, false], &head), None, "binds nothing else");
        let rule = open();
        assert_eq!(grouped_reads(&rule, &access_paths(&rule), &[false, true, false]), [(1, vec![0])]);
        assert!(grouped_reads(&rule, &access_paths(&rule), &[false; 3]).is_empty(), "not static");
    }

    #[test]
    fn a_grouped_loop_goes_on_to_the_next_group_once_it_derived_the_head() {
        let code = join_body(&open(), &Fixed(&[false, true, false]), false, Asked::none(), None).0.to_string();
        assert!(code.contains("'l0 : for g0 in fixed [1] . groups (& [0])"), "{code}");
        assert!(code.contains("continue 'l0"), "{code}");
        let plain = join_body(&open(), &Fixed(&[false; 3]), false, Asked::none(), None).0.to_string();
        assert!(!plain.contains("groups") && !plain.contains("continue 'l0"), "{plain}");
    }
}
