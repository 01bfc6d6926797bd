package logical

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/function"
)

// Grouping sets (GROUP BY GROUPING SETS, ROLLUP, CUBE) are an Aggregate
// with GroupSets. Flink plans them as an Expand that emits every input row
// once per set, with the keys outside the set NULL and the set's expand id
// in a column $e, under an aggregate grouped by the keys and $e; GROUPING
// and GROUPING_ID become CASE expressions over $e.

// IsGroupingCall reports whether an aggregate call name is GROUPING or
// GROUPING_ID: computed from the grouping set a row belongs to, not from
// the input rows.
func IsGroupingCall(name string) bool { return name == "GROUPING" || name == "GROUPING_ID" }

// The internal aggregate definitions: SINGLE_VALUE (a scalar subquery's
// one row, Calcite's SqlSingleValueAggFunction) and the grouping
// functions, which the grouping-sets rewrite computes from the expand id.
var (
	SingleValueDef = function.Internal("SINGLE_VALUE", function.Aggregate)
	GroupingDef    = function.Internal("GROUPING", function.Aggregate)
	GroupingIDDef  = function.Internal("GROUPING_ID", function.Aggregate)
)

// ExpandID is the expand id of a grouping set (positions in n group keys),
// as Flink's ExpandUtil numbers it: bit n-1-k is set when key k is not in
// the set, so the set of all keys is 0 and the empty set 2^n - 1.
func ExpandID(set []int, n int) int64 {
	in := make([]bool, n)
	for _, k := range set {
		in[k] = true
	}
	var id int64
	for k := 0; k < n; k++ {
		if !in[k] {
			id |= 1 << (n - 1 - k)
		}
	}
	return id
}

// GroupingValue is the value of GROUPING(args…) / GROUPING_ID(args…)
// (args are positions in the group keys) for rows of one grouping set:
// bit len(args)-1-j is set when args[j] is not in the set.
func GroupingValue(args, set []int) int64 {
	in := map[int]bool{}
	for _, k := range set {
		in[k] = true
	}
	var v int64
	for j, a := range args {
		if !in[a] {
			v |= 1 << (len(args) - 1 - j)
		}
	}
	return v
}

// SortGroupSets orders grouping sets by expand id (the order of Calcite's
// canonical group sets: {0, 1}, {0}, {1}, {}); each set is sorted.
func SortGroupSets(sets [][]int, n int) [][]int {
	out := make([][]int, len(sets))
	for i, s := range sets {
		c := append([]int(nil), s...)
		sort.Ints(c)
		out[i] = c
	}
	sort.SliceStable(out, func(i, j int) bool { return ExpandID(out[i], n) < ExpandID(out[j], n) })
	return out
}

// KeyInAllSets reports whether group key position k is in every set.
func KeyInAllSets(sets [][]int, k int) bool {
	for _, s := range sets {
		found := false
		for _, x := range s {
			if x == k {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// groupSetsString prints grouping sets as Calcite does, with input
// column indexes: "[{0, 1}, {0}, {}]".
func groupSetsString(keys []int, sets [][]int) string {
	parts := make([]string, len(sets))
	for i, s := range sets {
		cols := make([]int, len(s))
		for j, k := range s {
			cols[j] = keys[k]
		}
		sort.Ints(cols)
		items := make([]string, len(cols))
		for j, c := range cols {
			items[j] = fmt.Sprint(c)
		}
		parts[i] = "{" + strings.Join(items, ", ") + "}"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
