package rules

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// ProjectRemove ("ProjectRemoveRule") removes a projection that returns
// its input columns unchanged, in the same order and with the same types.
// A projection that only renames columns is removed too where its names
// cannot be seen: not where they become the names of the plan's output
// (through filters, sorts, limits and the left input of a set operation)
// or of a sink's fields.
type ProjectRemove struct{}

// Name implements Rule.
func (r *ProjectRemove) Name() string { return "ProjectRemoveRule" }

// Apply implements Rule.
func (r *ProjectRemove) Apply(n logical.Node) (logical.Node, bool, error) {
	out, changed := removeProjects(n, true)
	return out, changed, nil
}

// removeProjects works top-down; namesVisible tells whether n's column
// names show in the plan's output.
func removeProjects(n logical.Node, namesVisible bool) (logical.Node, bool) {
	if p, ok := n.(*logical.Project); ok {
		if isIdentity(p.Exprs, p.Out, p.Input.Schema()) || !namesVisible && isReorderFree(p.Exprs, p.Out, p.Input.Schema()) {
			out, _ := removeProjects(p.Input, namesVisible)
			return out, true
		}
	}
	ch := n.Children()
	if len(ch) == 0 {
		return n, false
	}
	nc := make([]logical.Node, len(ch))
	changed := false
	for i, c := range ch {
		visible := false
		switch n.(type) {
		case *logical.Filter, *logical.Sort, *logical.Limit:
			visible = namesVisible
		case *logical.SetOp:
			visible = namesVisible && i == 0
		case *logical.Sink:
			visible = true
		}
		var ok bool
		nc[i], ok = removeProjects(c, visible)
		changed = changed || ok
	}
	if !changed {
		return n, false
	}
	return n.WithChildren(nc), true
}

// isReorderFree reports whether exprs read the input columns in order with
// the same types (names may differ).
func isReorderFree(exprs []logical.Expr, out, in types.Schema) bool {
	if len(exprs) != len(in) || len(out) != len(in) {
		return false
	}
	for i, e := range exprs {
		c, ok := e.(*logical.ColumnRef)
		if !ok || c.Index != i || !out[i].Type.Equal(in[i].Type) {
			return false
		}
	}
	return true
}
