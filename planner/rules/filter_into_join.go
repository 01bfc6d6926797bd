package rules

import "github.com/tablerun/tablerun/planner/logical"

// FilterIntoJoin ("FilterIntoJoinRule") pushes the conjuncts of a filter
// above a join as far down as the join kind allows:
//
//	inner        left-only conjuncts into the left input, right-only into
//	             the right input, the others into the join condition (so a
//	             WHERE over a cross join becomes its join condition)
//	left outer   left-only conjuncts into the left input
//	right outer  right-only conjuncts into the right input
//	full outer   nothing
//	semi, anti   every conjunct into the left input (the output is the
//	             left input's rows)
//
// Nondeterministic conjuncts and conjuncts that read no column stay above.
type FilterIntoJoin struct{ env *Env }

// Name implements Rule.
func (r *FilterIntoJoin) Name() string { return "FilterIntoJoinRule" }

// Apply implements Rule.
func (r *FilterIntoJoin) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		f, ok := n.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		j, ok := f.Input.(*logical.Join)
		if !ok {
			return n, false, nil
		}
		nLeft := len(j.Left.Schema())
		var toLeft, toRight, toCond, keep []logical.Expr
		for _, c := range logical.Conjuncts(f.Cond) {
			s := sideOf(c, nLeft)
			if !r.env.deterministic(c) || s == sideNone {
				keep = append(keep, c)
				continue
			}
			switch j.Kind {
			case logical.InnerJoin:
				switch s {
				case sideLeft:
					toLeft = append(toLeft, c)
				case sideRight:
					if logical.EventTimeTemporal(j) { // applies to the version of each left row
						toCond = append(toCond, c)
					} else {
						toRight = append(toRight, shift(c, -nLeft))
					}
				default:
					toCond = append(toCond, c)
				}
			case logical.LeftJoin, logical.SemiJoin, logical.AntiJoin:
				if s == sideLeft {
					toLeft = append(toLeft, c)
				} else {
					keep = append(keep, c)
				}
			case logical.RightJoin:
				if s == sideRight {
					toRight = append(toRight, shift(c, -nLeft))
				} else {
					keep = append(keep, c)
				}
			default:
				keep = append(keep, c)
			}
		}
		if len(toLeft)+len(toRight)+len(toCond) == 0 {
			return n, false, nil
		}
		nj := *j
		if len(toLeft) > 0 {
			nj.Left = &logical.Filter{Input: j.Left, Cond: andAll(toLeft)}
		}
		if len(toRight) > 0 {
			nj.Right = &logical.Filter{Input: j.Right, Cond: andAll(toRight)}
		}
		if len(toCond) > 0 {
			nj.Cond = logical.And(append([]logical.Expr{j.Cond}, toCond...)...)
		}
		var out logical.Node = &nj
		if len(keep) > 0 {
			out = &logical.Filter{Input: out, Cond: andAll(keep)}
		}
		return out, true, nil
	})
}
