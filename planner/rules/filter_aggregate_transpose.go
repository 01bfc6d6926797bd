package rules

import "github.com/tablerun/tablerun/planner/logical"

// FilterAggregateTranspose ("FilterAggregateTransposeRule") moves filter
// conjuncts that read only group-key columns of an aggregate below it (a
// group is kept or dropped as a whole, so filtering its rows first gives
// the same groups). Global aggregates (no GROUP BY) are left alone: they
// produce a row even for empty input.
type FilterAggregateTranspose struct{ env *Env }

// Name implements Rule.
func (r *FilterAggregateTranspose) Name() string { return "FilterAggregateTransposeRule" }

// Apply implements Rule.
func (r *FilterAggregateTranspose) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		f, ok := n.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		a, ok := f.Input.(*logical.Aggregate)
		if !ok || len(a.GroupKeys) == 0 {
			return n, false, nil
		}
		var push, keep []logical.Expr
		for _, c := range logical.Conjuncts(f.Cond) {
			refs := logical.InputRefs(c)
			onKeys := len(refs) > 0 && r.env.deterministic(c)
			for i := range refs {
				// with grouping sets, only keys no set leaves out (NULL
				// in that set's rows) keep their input values
				if i >= len(a.GroupKeys) || len(a.GroupSets) > 1 && !logical.KeyInAllSets(a.GroupSets, i) {
					onKeys = false
				}
			}
			if !onKeys {
				keep = append(keep, c)
				continue
			}
			push = append(push, logical.ShiftRefs(c, func(i int) int { return a.GroupKeys[i] }))
		}
		if len(push) == 0 {
			return n, false, nil
		}
		na := *a
		na.Input = &logical.Filter{Input: a.Input, Cond: andAll(push)}
		var out logical.Node = &na
		if len(keep) > 0 {
			out = &logical.Filter{Input: out, Cond: andAll(keep)}
		}
		return out, true, nil
	})
}
