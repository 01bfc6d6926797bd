package rules

import "github.com/tablerun/tablerun/planner/logical"

// FilterSetOpTranspose ("FilterSetOpTransposeRule") pushes a deterministic
// filter over UNION ALL, INTERSECT [ALL] or EXCEPT [ALL] into every input:
// the condition depends only on the row's values, so filtering before the
// set operation keeps exactly the same rows.
type FilterSetOpTranspose struct{ env *Env }

// Name implements Rule.
func (r *FilterSetOpTranspose) Name() string { return "FilterSetOpTransposeRule" }

// Apply implements Rule.
func (r *FilterSetOpTranspose) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		f, ok := n.(*logical.Filter)
		if !ok || !r.env.deterministic(f.Cond) {
			return n, false, nil
		}
		switch in := f.Input.(type) {
		case *logical.Union:
			inputs := make([]logical.Node, len(in.Inputs))
			for i, c := range in.Inputs {
				inputs[i] = &logical.Filter{Input: c, Cond: f.Cond}
			}
			return &logical.Union{Inputs: inputs, Out: in.Out}, true, nil
		case *logical.SetOp:
			s := *in
			s.Left = &logical.Filter{Input: in.Left, Cond: f.Cond}
			s.Right = &logical.Filter{Input: in.Right, Cond: f.Cond}
			return &s, true, nil
		}
		return n, false, nil
	})
}
