package rules

import (
	"github.com/tablerun/tablerun/planner/logical"
)

// pruneProjectOverWatermark is PruneColumns for a projection right above
// a WatermarkAssigner, as Flink's ProjectWatermarkAssignerTransposeRule
// does it: a projection below the assigner produces the columns the
// projection reads, in the order it first reads them, followed by the
// rowtime column and the other columns the watermark expression reads.
// ok is false when that order is already the assigner's input, and the
// ordinary pruning applies.
func pruneProjectOverWatermark(x *logical.Project, cols []int) (logical.Node, bool) {
	wa, ok := x.Input.(*logical.WatermarkAssigner)
	if !ok {
		return nil, false
	}
	in := wa.Input.Schema()
	if wa.Rowtime < 0 || wa.Rowtime >= len(in) {
		return nil, false
	}
	var order []int
	seen := map[int]bool{}
	add := func(e logical.Expr) {
		logical.Walk(e, func(y logical.Expr) bool {
			if c, ok := y.(*logical.ColumnRef); ok && !seen[c.Index] && c.Index < len(in) {
				seen[c.Index] = true
				order = append(order, c.Index)
			}
			return true
		})
	}
	for _, c := range cols {
		add(x.Exprs[c])
	}
	add(&logical.ColumnRef{Index: wa.Rowtime, Name: in[wa.Rowtime].Name, T: in[wa.Rowtime].Type})
	add(wa.Expr)
	identity := len(order) == len(in)
	for i, c := range order {
		if c != i {
			identity = false
		}
	}
	if identity {
		return nil, false
	}
	mapping := make([]int, len(in))
	for i := range mapping {
		mapping[i] = -1
	}
	exprs := make([]logical.Expr, len(order))
	for k, c := range order {
		mapping[c] = k
		exprs[k] = &logical.ColumnRef{Index: c, Name: in[c].Name, T: in[c].Type}
	}
	below := &logical.Project{Input: wa.Input, Exprs: exprs, Out: pick(in, order)}
	nw := *wa
	nw.Input = below
	nw.Rowtime = mapping[wa.Rowtime]
	nw.Expr = remap(wa.Expr, mapping)
	top := make([]logical.Expr, len(cols))
	for k, c := range cols {
		top[k] = remap(x.Exprs[c], mapping)
	}
	return &logical.Project{Input: &nw, Exprs: top, Out: pick(x.Out, cols)}, true
}
