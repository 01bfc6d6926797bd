package rules

import "github.com/tablerun/tablerun/planner/logical"

// ProjectMerge ("ProjectMergeRule") merges a projection over a projection
// into one by substituting the lower expressions into the upper ones. It
// does not merge when a nondeterministic lower expression would be
// evaluated more than once per row.
type ProjectMerge struct{ env *Env }

// Name implements Rule.
func (r *ProjectMerge) Name() string { return "ProjectMergeRule" }

// Apply implements Rule.
func (r *ProjectMerge) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		top, ok := n.(*logical.Project)
		if !ok {
			return n, false, nil
		}
		bottom, ok := top.Input.(*logical.Project)
		if !ok {
			return n, false, nil
		}
		counts := refCounts(top.Exprs...)
		for i, cnt := range counts {
			if cnt > 1 && i < len(bottom.Exprs) && !isSimple(bottom.Exprs[i]) && !r.env.deterministic(bottom.Exprs[i]) {
				return n, false, nil
			}
		}
		exprs := make([]logical.Expr, len(top.Exprs))
		for i, e := range top.Exprs {
			exprs[i] = substitute(e, bottom.Exprs)
		}
		return &logical.Project{Input: bottom.Input, Exprs: exprs, Out: top.Out}, true, nil
	})
}
