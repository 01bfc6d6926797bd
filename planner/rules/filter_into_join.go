package rules

import (
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

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
// A conjunct that is an OR whose every disjunct has the same conjunct
// (TPC-H Q19's p_partkey = l_partkey in each branch) first has it pulled
// out, as Calcite's RexUtil.pullFactors does: (A AND B) OR (A AND C) is
// A AND (B OR C), and A OR (A AND C) is A, in SQL's three-valued logic too.
type FilterIntoJoin struct{ env *Env }

// disjuncts splits an OR tree into its disjuncts.
func disjuncts(e logical.Expr) []logical.Expr {
	if c, ok := e.(*logical.Call); ok && c.Name == "OR" {
		var out []logical.Expr
		for _, a := range c.Args {
			out = append(out, disjuncts(a)...)
		}
		return out
	}
	return []logical.Expr{e}
}

// pullFactors returns the conjuncts equivalent to c with the
// deterministic conjuncts common to all of c's disjuncts pulled out.
func (r *FilterIntoJoin) pullFactors(c logical.Expr) []logical.Expr {
	ds := disjuncts(c)
	if len(ds) < 2 {
		return []logical.Expr{c}
	}
	parts := make([][]logical.Expr, len(ds))
	for i, d := range ds {
		parts[i] = logical.Conjuncts(d)
	}
	var common []logical.Expr
	isCommon := map[string]bool{}
	for _, f := range parts[0] {
		key := f.String()
		if isCommon[key] || !r.env.deterministic(f) {
			continue
		}
		inAll := true
		for _, p := range parts[1:] {
			found := false
			for _, g := range p {
				if g.String() == key {
					found = true
					break
				}
			}
			if !found {
				inAll = false
				break
			}
		}
		if inAll {
			isCommon[key] = true
			common = append(common, f)
		}
	}
	if len(common) == 0 {
		return []logical.Expr{c}
	}
	var rest logical.Expr
	for _, p := range parts {
		var left []logical.Expr
		for _, g := range p {
			if !isCommon[g.String()] {
				left = append(left, g)
			}
		}
		if len(left) == 0 {
			return common // A OR (A AND …) is A
		}
		d := logical.And(left...)
		if rest == nil {
			rest = d
			continue
		}
		t := types.BooleanT.WithNullable(rest.Type().Nullable() || d.Type().Nullable())
		rest = logical.NewCall(function.OpOr, t, rest, d)
	}
	return append(common, rest)
}

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
		var conj []logical.Expr
		for _, c := range logical.Conjuncts(f.Cond) {
			conj = append(conj, r.pullFactors(c)...)
		}
		for _, c := range conj {
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
