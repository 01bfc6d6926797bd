package logical

import (
	"fmt"

	"github.com/tablerun/tablerun/core/types"
)

// Two-phase aggregation of DISTINCT calls (Flink's local/global split with
// distinct views): the local phase emits, per group, every call's state
// over the bundle's distinct values and, per distinct argument list, one
// shared column of the distinct values the bundle saw — Flink's
// "DISTINCT(x) AS distinct$0" — each value with a bit mask of the calls
// that saw it (calls over the same arguments differ by their FILTER). The
// global phase merges a call's values (those with its bit) into its own
// distinct set, so that only values new to a group change its result.

// MaxDistinctCalls is the most DISTINCT calls one distinct column serves
// (the bits of its mask); an aggregate with more stays in one phase.
const MaxDistinctCalls = 64

// DistinctStateType is the type of a shared distinct column: per group
// the list of (value, mask) pairs, value the encoded argument values.
func DistinctStateType() types.Type {
	return types.ArrayOf(types.RowOf(
		types.Field{Name: "value", Type: types.BytesT.WithNullable(false)},
		types.Field{Name: "mask", Type: types.BigIntT.WithNullable(false)},
	).WithNullable(false))
}

// DistinctLayout assigns the DISTINCT calls of an aggregate to shared
// distinct columns, one per argument list in order of first appearance:
// col[i] is the distinct column of call i (-1 for a call without
// DISTINCT), bit[i] its bit in the column's masks, args[k] the argument
// columns of distinct column k. ok is false when a column would serve
// more than MaxDistinctCalls calls.
func DistinctLayout(calls []AggCall) (col, bit []int, args [][]int, ok bool) {
	col = make([]int, len(calls))
	bit = make([]int, len(calls))
	index := map[string]int{}
	var used []int
	for i, c := range calls {
		col[i] = -1
		if !c.Distinct {
			continue
		}
		key := fmt.Sprint(c.Args)
		k, seen := index[key]
		if !seen {
			k = len(args)
			index[key] = k
			args = append(args, c.Args)
			used = append(used, 0)
		}
		if used[k] == MaxDistinctCalls {
			return nil, nil, nil, false
		}
		col[i], bit[i] = k, used[k]
		used[k]++
	}
	return col, bit, args, true
}
