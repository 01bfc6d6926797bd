package rules

import "github.com/tablerun/tablerun/planner/logical"

// FilterSortTranspose ("FilterSortTransposeRule") moves a filter below a
// sort (without a limit, which is a separate node): sorting fewer rows
// gives the same order.
type FilterSortTranspose struct{}

// Name implements Rule.
func (r *FilterSortTranspose) Name() string { return "FilterSortTransposeRule" }

// Apply implements Rule.
func (r *FilterSortTranspose) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		f, ok := n.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		s, ok := f.Input.(*logical.Sort)
		if !ok {
			return n, false, nil
		}
		return &logical.Sort{Input: &logical.Filter{Input: s.Input, Cond: f.Cond}, Keys: s.Keys}, true, nil
	})
}
