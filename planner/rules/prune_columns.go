package rules

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// PruneColumns ("PruneColumnsRule") is projection push-down: walking the
// plan from the root, it works out which columns each node's parent uses
// and drops the others where they are produced. Scans read only the used
// physical columns (Scan.Projection), projections and VALUES drop unused
// expressions, and joins, filters, sorts and limits carry only what is
// used above or by themselves. Aggregates keep all their aggregate calls
// but read only the columns those calls and the group keys need. A UNION
// gets a projection on each input that does not already produce exactly
// the used columns. The root keeps all its columns; every node keeps at
// least one column so row counts survive (COUNT(*)).
type PruneColumns struct{}

// Name implements Rule.
func (r *PruneColumns) Name() string { return "PruneColumnsRule" }

// Apply implements Rule.
func (r *PruneColumns) Apply(n logical.Node) (logical.Node, bool, error) {
	out, _, changed := prune(n, allNeeded(len(n.Schema())))
	return out, changed, nil
}

func allNeeded(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

func identityMap(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func addRefs(need []bool, es ...logical.Expr) {
	for _, e := range es {
		if e == nil {
			continue
		}
		for i := range logical.InputRefs(e) {
			if i < len(need) {
				need[i] = true
			}
		}
	}
}

// atLeastOne marks column 0 needed when no column is.
func atLeastOne(need []bool) {
	for _, b := range need {
		if b {
			return
		}
	}
	if len(need) > 0 {
		need[0] = true
	}
}

func neededCols(need []bool) []int {
	var out []int
	for i, b := range need {
		if b {
			out = append(out, i)
		}
	}
	return out
}

// remap rewrites the column references of e through mapping.
func remap(e logical.Expr, mapping []int) logical.Expr {
	if e == nil {
		return nil
	}
	return logical.ShiftRefs(e, func(i int) int { return mapping[i] })
}

func remapAll(es []logical.Expr, mapping []int) []logical.Expr {
	out := make([]logical.Expr, len(es))
	for i, e := range es {
		out[i] = remap(e, mapping)
	}
	return out
}

// mappingFor maps the kept columns cols of an old schema to 0..len-1.
func mappingFor(n int, cols []int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = -1
	}
	for k, c := range cols {
		m[c] = k
	}
	return m
}

func pick(s types.Schema, cols []int) types.Schema {
	out := make(types.Schema, len(cols))
	for k, c := range cols {
		out[k] = s[c]
	}
	return out
}

// prune returns a plan computing at least the columns of n marked in need
// (need has one entry per output column and may be modified), the new
// position of each old column (-1: dropped), and whether anything changed.
// When nothing changed, it returns n itself and the identity mapping.
func prune(n logical.Node, need []bool) (logical.Node, []int, bool) {
	width := len(n.Schema())
	unchanged := func() (logical.Node, []int, bool) { return n, identityMap(width), false }
	switch x := n.(type) {
	case *logical.Scan:
		addRefs(need, x.Filters...)
		atLeastOne(need)
		cols := neededCols(need)
		if len(cols) == width || !supportsProjectionPushDown(x.Table) {
			return unchanged()
		}
		base := x.Projection
		if base == nil {
			base = identityMap(width)
		}
		proj := make([]int, len(cols))
		for k, c := range cols {
			proj[k] = base[c]
		}
		m := mappingFor(width, cols)
		s := &logical.Scan{Table: x.Table, Projection: proj, Filters: remapAll(x.Filters, m), Limit: x.Limit, Out: pick(x.Out, cols)}
		if len(x.Filters) == 0 {
			s.Filters = x.Filters
		}
		return s, m, true

	case *logical.Values:
		atLeastOne(need)
		cols := neededCols(need)
		if len(cols) == width {
			return unchanged()
		}
		rows := make([][]logical.Expr, len(x.Rows))
		for i, row := range x.Rows {
			rows[i] = make([]logical.Expr, len(cols))
			for k, c := range cols {
				rows[i][k] = row[c]
			}
		}
		return &logical.Values{Rows: rows, Out: pick(x.Out, cols)}, mappingFor(width, cols), true

	case *logical.Project:
		atLeastOne(need)
		cols := neededCols(need)
		if p, ok := pruneProjectOverWatermark(x, cols); ok { // prune_watermark.go
			return p, mappingFor(width, cols), true
		}
		childNeed := make([]bool, len(x.Input.Schema()))
		for _, c := range cols {
			addRefs(childNeed, x.Exprs[c])
		}
		child, cmap, childChanged := prune(x.Input, childNeed)
		if !childChanged && len(cols) == width {
			return unchanged()
		}
		exprs := make([]logical.Expr, len(cols))
		for k, c := range cols {
			exprs[k] = remap(x.Exprs[c], cmap)
		}
		return &logical.Project{Input: child, Exprs: exprs, Out: pick(x.Out, cols)}, mappingFor(width, cols), true

	case *logical.Correlate:
		return pruneCorrelate(x, need) // prune_correlate.go

	case *logical.Window:
		return pruneWindow(x, need) // prune_window.go

	case *logical.Filter:
		addRefs(need, x.Cond)
		child, cmap, changed := prune(x.Input, need)
		if !changed {
			return unchanged()
		}
		return &logical.Filter{Input: child, Cond: remap(x.Cond, cmap)}, cmap, true

	case *logical.Aggregate:
		childNeed := make([]bool, len(x.Input.Schema()))
		for _, k := range x.GroupKeys {
			childNeed[k] = true
		}
		for _, a := range x.Aggs {
			for _, i := range a.Args {
				childNeed[i] = true
			}
			if a.Filter >= 0 {
				childNeed[a.Filter] = true
			}
		}
		input := x.Input
		if p, ok := input.(*logical.Project); ok && len(p.Exprs) == 0 {
			// COUNT(*) over a projection of no columns: count the
			// projection's input rows instead (keeping one column).
			input = p.Input
			childNeed = make([]bool, len(input.Schema()))
		}
		child, cmap, changed := pruneExact(input, childNeed)
		if !changed && input == x.Input {
			return unchanged()
		}
		na := *x
		na.Input = child
		na.GroupKeys = make([]int, len(x.GroupKeys))
		for i, k := range x.GroupKeys {
			na.GroupKeys[i] = cmap[k]
		}
		na.Aggs = make([]logical.AggCall, len(x.Aggs))
		for i, a := range x.Aggs {
			b := a
			b.Args = make([]int, len(a.Args))
			for j, arg := range a.Args {
				b.Args[j] = cmap[arg]
			}
			if a.Filter >= 0 {
				b.Filter = cmap[a.Filter]
			}
			na.Aggs[i] = b
		}
		return &na, identityMap(width), true

	case *logical.Join:
		nLeft, nRight := len(x.Left.Schema()), len(x.Right.Schema())
		needL, needR := make([]bool, nLeft), make([]bool, nRight)
		for i, b := range need {
			if !b {
				continue
			}
			if i < nLeft {
				needL[i] = true
			} else if i-nLeft < nRight {
				needR[i-nLeft] = true
			}
		}
		if x.Cond != nil {
			for i := range logical.InputRefs(x.Cond) {
				if i < nLeft {
					needL[i] = true
				} else {
					needR[i-nLeft] = true
				}
			}
		}
		l, lmap, lch := pruneExact(x.Left, needL)
		r, rmap, rch := pruneExact(x.Right, needR)
		if !lch && !rch {
			return unchanged()
		}
		newLeft := len(l.Schema())
		both := make([]int, nLeft+nRight)
		for i := range both {
			if i < nLeft {
				both[i] = lmap[i]
			} else if m := rmap[i-nLeft]; m >= 0 {
				both[i] = newLeft + m
			} else {
				both[i] = -1
			}
		}
		mapping := both
		if x.Kind == logical.SemiJoin || x.Kind == logical.AntiJoin {
			mapping = lmap
		}
		nj := *x
		nj.Left, nj.Right = l, r
		nj.Cond = remap(x.Cond, both)
		nj.Out = remapSchema(x.Out, mapping)
		return &nj, mapping, true

	case *logical.Sort:
		for _, k := range x.Keys {
			need[k.Index] = true
		}
		child, cmap, changed := prune(x.Input, need)
		if !changed {
			return unchanged()
		}
		keys := make([]logical.SortKey, len(x.Keys))
		for i, k := range x.Keys {
			keys[i] = k
			keys[i].Index = cmap[k.Index]
		}
		return &logical.Sort{Input: child, Keys: keys}, cmap, true

	case *logical.WatermarkAssigner:
		// rows pass unchanged: the parent's columns plus the rowtime and
		// what the watermark expression reads
		if x.Rowtime >= 0 && x.Rowtime < len(need) {
			need[x.Rowtime] = true
		}
		addRefs(need, x.Expr)
		child, cmap, changed := prune(x.Input, need)
		if !changed {
			return unchanged()
		}
		nw := *x
		nw.Input = child
		nw.Rowtime = cmap[x.Rowtime]
		nw.Expr = remap(x.Expr, cmap)
		return &nw, cmap, true

	case *logical.Limit:
		child, cmap, changed := prune(x.Input, need)
		if !changed {
			return unchanged()
		}
		nl := *x
		nl.Input = child
		return &nl, cmap, true

	case *logical.Union:
		atLeastOne(need)
		cols := neededCols(need)
		changed := len(cols) != width
		inputs := make([]logical.Node, len(x.Inputs))
		for i, in := range x.Inputs {
			childNeed := make([]bool, len(in.Schema()))
			copy(childNeed, need)
			c, cmap, ch := prune(in, childNeed)
			changed = changed || ch
			if len(c.Schema()) != len(cols) {
				exprs := make([]logical.Expr, len(cols))
				out := make(types.Schema, len(cols))
				cs := c.Schema()
				for k, col := range cols {
					f := cs[cmap[col]]
					exprs[k] = &logical.ColumnRef{Index: cmap[col], Name: f.Name, T: f.Type}
					out[k] = f
				}
				c = &logical.Project{Input: c, Exprs: exprs, Out: out}
			}
			inputs[i] = c
		}
		if !changed {
			return unchanged()
		}
		return &logical.Union{Inputs: inputs, Out: pick(x.Out, cols)}, mappingFor(width, cols), true
	}

	// SetOp (compares whole rows), Sink and anything else: every input
	// column is needed.
	ch := n.Children()
	nc := make([]logical.Node, len(ch))
	changed := false
	for i, c := range ch {
		var ok bool
		nc[i], _, ok = prune(c, allNeeded(len(c.Schema())))
		changed = changed || ok
	}
	if !changed {
		return unchanged()
	}
	return n.WithChildren(nc), identityMap(width), true
}

// pruneExact is prune for the input of a join or an aggregate: where the
// pruned input still carries columns that are not needed (a filter's
// condition reads them), a projection on top drops them, so they do not
// travel through the join or into the aggregate's input.
func pruneExact(n logical.Node, need []bool) (logical.Node, []int, bool) {
	atLeastOne(need)
	cols := neededCols(need)
	child, cmap, changed := prune(n, append([]bool(nil), need...))
	if len(child.Schema()) <= len(cols) {
		return child, cmap, changed
	}
	cs := child.Schema()
	exprs := make([]logical.Expr, len(cols))
	out := make(types.Schema, len(cols))
	for k, c := range cols {
		f := cs[cmap[c]]
		exprs[k] = &logical.ColumnRef{Index: cmap[c], Name: f.Name, T: f.Type}
		out[k] = f
	}
	return &logical.Project{Input: child, Exprs: exprs, Out: out}, mappingFor(len(n.Schema()), cols), true
}

// remapSchema lays out the kept columns of s at their new positions.
func remapSchema(s types.Schema, mapping []int) types.Schema {
	size := 0
	for _, m := range mapping {
		if m+1 > size {
			size = m + 1
		}
	}
	out := make(types.Schema, size)
	for i, m := range mapping {
		if m >= 0 {
			out[m] = s[i]
		}
	}
	return out
}
