package rules

import "github.com/tablerun/tablerun/planner/logical"

// FilterMerge ("FilterMergeRule") merges a filter over a filter into one
// filter whose condition is the lower condition AND the upper one (the
// lower first, so that a guard such as x <> 0 still comes before 1/x).
type FilterMerge struct{}

// Name implements Rule.
func (r *FilterMerge) Name() string { return "FilterMergeRule" }

// Apply implements Rule.
func (r *FilterMerge) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		top, ok := n.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		bottom, ok := top.Input.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		return &logical.Filter{Input: bottom.Input, Cond: logical.And(bottom.Cond, top.Cond)}, true, nil
	})
}
