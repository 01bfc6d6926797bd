package rules

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// pruneCorrelate is PruneColumns for a Correlate (LATERAL TABLE): the left
// input keeps the columns used above and those the function's arguments
// read; the function's columns are always produced.
func pruneCorrelate(x *logical.Correlate, need []bool) (logical.Node, []int, bool) {
	width := len(x.Out)
	nl := len(x.Left.Schema())
	if len(need) != width || nl > width {
		return x, identityMap(width), false
	}
	leftNeed := append([]bool(nil), need[:nl]...)
	addRefs(leftNeed, x.Right.Call, x.Cond)
	atLeastOne(leftNeed)
	child, cmap, changed := pruneExact(x.Left, leftNeed) // a Calc drops what the scan cannot
	if !changed {
		return x, identityMap(width), false
	}
	cs := child.Schema()
	left := append(types.Schema(nil), cs...)
	names := make([]string, len(cs))
	for i, f := range cs {
		names[i] = f.Name
	}
	for i := 0; i < nl; i++ {
		if m := cmap[i]; m >= 0 && m < len(left) {
			left[m] = x.Out[i]
			if i < len(x.Right.Correlated) {
				names[m] = x.Right.Correlated[i]
			}
		}
	}
	call, ok := remap(x.Right.Call, cmap).(*logical.Call)
	if !ok {
		return x, identityMap(width), false
	}
	scan := *x.Right
	scan.Call, scan.Correlated = call, names
	mapping := make([]int, width)
	copy(mapping, cmap[:nl])
	for j := nl; j < width; j++ {
		mapping[j] = len(cs) + j - nl
	}
	out := append(left, x.Out[nl:]...)
	var cond logical.Expr
	if x.Cond != nil {
		cond = remap(x.Cond, mapping)
	}
	return &logical.Correlate{Left: child, Right: &scan, Kind: x.Kind, Out: out, Cond: cond}, mapping, true
}
