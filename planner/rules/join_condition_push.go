package rules

import "github.com/tablerun/tablerun/planner/logical"

// JoinConditionPush ("JoinConditionPushRule") moves conjuncts of a join
// condition that read only one input into a filter on that input, where
// the join kind allows it:
//
//	inner, semi  left-only and right-only conjuncts
//	left outer   right-only conjuncts (left rows survive regardless)
//	right outer  left-only conjuncts
//	anti         right-only conjuncts (not for a null-aware anti join)
//	full outer   nothing
//
// Nondeterministic conjuncts stay in the condition.
type JoinConditionPush struct{ env *Env }

// Name implements Rule.
func (r *JoinConditionPush) Name() string { return "JoinConditionPushRule" }

// Apply implements Rule.
func (r *JoinConditionPush) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		j, ok := n.(*logical.Join)
		if !ok || j.Cond == nil || j.Kind == logical.FullJoin || (j.Kind == logical.AntiJoin && j.NullAwareAnti) {
			return n, false, nil
		}
		nLeft := len(j.Left.Schema())
		leftOK := j.Kind == logical.InnerJoin || j.Kind == logical.SemiJoin || j.Kind == logical.RightJoin
		rightOK := j.Kind != logical.RightJoin && !logical.EventTimeTemporal(j)
		var toLeft, toRight, keep []logical.Expr
		for _, c := range logical.Conjuncts(j.Cond) {
			s := sideOf(c, nLeft)
			switch {
			case !r.env.deterministic(c):
				keep = append(keep, c)
			case s == sideLeft && leftOK:
				toLeft = append(toLeft, c)
			case s == sideRight && rightOK:
				toRight = append(toRight, shift(c, -nLeft))
			default:
				keep = append(keep, c)
			}
		}
		if len(toLeft)+len(toRight) == 0 {
			return n, false, nil
		}
		nj := *j
		if len(toLeft) > 0 {
			nj.Left = &logical.Filter{Input: j.Left, Cond: andAll(toLeft)}
		}
		if len(toRight) > 0 {
			nj.Right = &logical.Filter{Input: j.Right, Cond: andAll(toRight)}
		}
		nj.Cond = andAll(keep)
		return &nj, true, nil
	})
}
