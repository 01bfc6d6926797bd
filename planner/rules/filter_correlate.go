package rules

import "github.com/tablerun/tablerun/planner/logical"

// FilterCorrelate ("FilterCorrelateRule") pushes the conjuncts of a filter
// above a Correlate (LATERAL TABLE) that read only the left input's
// columns below it, so the table function is called for fewer rows. This
// holds for inner and left correlates alike: a left row the conjunct
// rejects is rejected with every function row joined to it.
// Nondeterministic conjuncts stay where they are.
type FilterCorrelate struct{ env *Env }

// Name implements Rule.
func (r *FilterCorrelate) Name() string { return "FilterCorrelateRule" }

// Apply implements Rule.
func (r *FilterCorrelate) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		f, ok := n.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		c, ok := f.Input.(*logical.Correlate)
		if !ok {
			return n, false, nil
		}
		nl := len(c.Left.Schema())
		var push, keep []logical.Expr
		for _, e := range logical.Conjuncts(f.Cond) {
			if sideOf(e, nl) == sideLeft && r.env.deterministic(e) {
				push = append(push, e)
			} else {
				keep = append(keep, e)
			}
		}
		if len(push) == 0 {
			return n, false, nil
		}
		nc := *c
		nc.Left = &logical.Filter{Input: c.Left, Cond: logical.And(push...)}
		if len(keep) == 0 {
			return &nc, true, nil
		}
		return &logical.Filter{Input: &nc, Cond: logical.And(keep...)}, true, nil
	})
}
