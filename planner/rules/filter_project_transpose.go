package rules

import "github.com/tablerun/tablerun/planner/logical"

// FilterProjectTranspose ("FilterProjectTransposeRule") moves filter
// conjuncts below a projection, replacing each column reference by the
// projected expression. Conjuncts that are nondeterministic or read a
// nondeterministic projected expression stay above.
type FilterProjectTranspose struct{ env *Env }

// Name implements Rule.
func (r *FilterProjectTranspose) Name() string { return "FilterProjectTransposeRule" }

// Apply implements Rule.
func (r *FilterProjectTranspose) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		f, ok := n.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		p, ok := f.Input.(*logical.Project)
		if !ok {
			return n, false, nil
		}
		var push, keep []logical.Expr
		for _, c := range logical.Conjuncts(f.Cond) {
			s := substitute(c, p.Exprs)
			if r.env.deterministic(c) && r.env.deterministic(s) {
				push = append(push, s)
			} else {
				keep = append(keep, c)
			}
		}
		if len(push) == 0 {
			return n, false, nil
		}
		np := *p
		np.Input = &logical.Filter{Input: p.Input, Cond: andAll(push)}
		var out logical.Node = &np
		if len(keep) > 0 {
			out = &logical.Filter{Input: out, Cond: andAll(keep)}
		}
		return out, true, nil
	})
}
