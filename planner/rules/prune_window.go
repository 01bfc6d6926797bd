package rules

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// pruneWindow is PruneColumns for a Window (OVER): the input keeps the
// columns needed above and those the partitioning, the order and the
// calls read; every call is kept.
func pruneWindow(x *logical.Window, need []bool) (logical.Node, []int, bool) {
	in := x.Input.Schema()
	width := len(in)
	childNeed := make([]bool, width)
	for i := 0; i < width && i < len(need); i++ {
		childNeed[i] = need[i]
	}
	for _, k := range x.PartitionKeys {
		childNeed[k] = true
	}
	for _, k := range x.OrderKeys {
		childNeed[k.Index] = true
	}
	for _, c := range x.Calls {
		for _, a := range c.Args {
			childNeed[a] = true
		}
	}
	child, cmap, changed := pruneExact(x.Input, childNeed)
	if !changed {
		return x, identityMap(len(x.Out)), false
	}
	nw := *x
	nw.Input = child
	nw.PartitionKeys = make([]int, len(x.PartitionKeys))
	for i, k := range x.PartitionKeys {
		nw.PartitionKeys[i] = cmap[k]
	}
	nw.OrderKeys = make([]logical.SortKey, len(x.OrderKeys))
	for i, k := range x.OrderKeys {
		k.Index = cmap[k.Index]
		nw.OrderKeys[i] = k
	}
	nw.Calls = make([]logical.OverCall, len(x.Calls))
	for i, c := range x.Calls {
		d := c
		d.Args = make([]int, len(c.Args))
		for j, a := range c.Args {
			d.Args[j] = cmap[a]
		}
		nw.Calls[i] = d
	}
	cs := child.Schema()
	out := append(types.Schema(nil), cs...)
	out = append(out, x.Out[width:]...)
	nw.Out = out
	mapping := make([]int, len(x.Out))
	for i := range mapping {
		if i < width {
			mapping[i] = cmap[i]
		} else {
			mapping[i] = len(cs) + i - width
		}
	}
	return &nw, mapping, true
}
