package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// maxCubeElements bounds CUBE: 2^n grouping sets.
const maxCubeElements = 12

// groupBy binds a GROUP BY list: the distinct key expressions and their
// names and, when GROUPING SETS, ROLLUP or CUBE (crossed with the plain
// items, as in SQL) give two or more grouping sets, the sets as positions
// in the keys ordered by expand id. Plain GROUP BY lists, and grouping
// sets that reduce to one set, give nil sets: a plain aggregate over that
// set's keys (no keys for GROUP BY ()).
func (b *binder) groupBy(items []ast.Expr) ([]logical.Expr, []string, [][]int, error) {
	var keys []logical.Expr
	var names []string
	index := func(g ast.Expr) (int, error) {
		x, err := b.expr(g)
		if err != nil {
			return 0, err
		}
		for j, o := range keys {
			if o.String() == x.String() {
				return j, nil
			}
		}
		name := fmt.Sprintf("$f%d", len(keys))
		if c, ok := x.(*logical.ColumnRef); ok {
			name = c.Name
		}
		keys = append(keys, x)
		names = append(names, name)
		return len(keys) - 1, nil
	}
	hasSets := false
	sets := [][]int{{}}
	for _, g := range items {
		var alts [][]int
		gs, ok := g.(*ast.GroupingSets)
		if !ok {
			k, err := index(g)
			if err != nil {
				return nil, nil, nil, err
			}
			alts = [][]int{{k}}
		} else {
			hasSets = true
			elems := make([][]int, len(gs.Sets))
			for i, s := range gs.Sets {
				elems[i] = []int{}
				for _, e := range s {
					k, err := index(e)
					if err != nil {
						return nil, nil, nil, err
					}
					elems[i] = append(elems[i], k)
				}
			}
			switch gs.Kind {
			case ast.GroupingSetsKindRoll:
				for i := len(elems); i >= 0; i-- {
					alts = append(alts, concatSets(elems[:i]))
				}
			case ast.GroupingSetsKindCube:
				if len(elems) > maxCubeElements {
					return nil, nil, nil, unsupported("CUBE with more than %d elements", maxCubeElements)
				}
				for mask := (1 << len(elems)) - 1; mask >= 0; mask-- {
					var pick [][]int
					for i := range elems {
						if mask&(1<<(len(elems)-1-i)) != 0 {
							pick = append(pick, elems[i])
						}
					}
					alts = append(alts, concatSets(pick))
				}
			default:
				alts = elems
			}
		}
		next := make([][]int, 0, len(sets)*len(alts))
		for _, s := range sets {
			for _, a := range alts {
				next = append(next, concatSets([][]int{s, a}))
			}
		}
		sets = next
	}
	if !hasSets {
		return keys, names, nil, nil
	}
	sets = logical.SortGroupSets(sets, len(keys))
	for i := 1; i < len(sets); i++ {
		if fmt.Sprint(sets[i]) == fmt.Sprint(sets[i-1]) {
			return nil, nil, nil, unsupported("duplicate grouping sets (GROUP BY %s)", groupSetText(items))
		}
	}
	if len(sets) == 1 {
		// one set: a plain aggregate over its keys (all the keys)
		return keys, names, nil, nil
	}
	return keys, names, sets, nil
}

func groupSetText(items []ast.Expr) string {
	parts := make([]string, len(items))
	for i, g := range items {
		parts[i] = ast.Format(g)
	}
	return strings.Join(parts, ", ")
}

// concatSets is the sorted union of key position lists.
func concatSets(parts [][]int) []int {
	seen := map[int]bool{}
	out := []int{}
	for _, p := range parts {
		for _, k := range p {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

func hasEmptySet(sets [][]int) bool {
	for _, s := range sets {
		if len(s) == 0 {
			return true
		}
	}
	return false
}

// setGroupSets records the grouping sets of the aggregate: a key missing
// from some set is NULL in that set's rows, so nullable in the output.
func (a *aggCtx) setGroupSets(sets [][]int) {
	a.sets = sets
	a.nullableKey = make([]bool, len(a.groupKeys))
	for k := range a.nullableKey {
		a.nullableKey[k] = len(sets) > 1 && !logical.KeyInAllSets(sets, k)
	}
}

// keyType is the output type of group key i whose input type is t.
func (a *aggCtx) keyType(i int, t types.Type) types.Type {
	if i < len(a.nullableKey) && a.nullableKey[i] {
		return t.WithNullable(true)
	}
	return t
}

// isGroupingFunc reports a call of GROUPING, GROUPING_ID or GROUP_ID.
func isGroupingFunc(fc *ast.FunctionCall) bool {
	if fc.Over != nil || fc.OverName != "" || len(fc.Name.Parts) != 1 {
		return false
	}
	switch strings.ToUpper(fc.Name.Parts[0]) {
	case "GROUPING", "GROUPING_ID", "GROUP_ID":
		return true
	}
	return false
}

// groupingCall binds GROUPING(e, …), GROUPING_ID(e, …) (an aggregate call
// over the group keys, computed from the grouping set of each result row)
// and GROUP_ID() (0: duplicate grouping sets are not supported).
func (b *binder) groupingCall(fc *ast.FunctionCall) (logical.Expr, error) {
	name := strings.ToUpper(fc.Name.Parts[0])
	a := b.agg
	switch {
	case a == nil && b.clause != "":
		return nil, posErr(fc.Pos, "%s operator may only occur in SELECT, HAVING or ORDER BY clause", name)
	case a == nil:
		return nil, posErr(fc.Pos, "%s operator may only occur in an aggregate query", name)
	case b.inAggArg:
		return nil, posErr(fc.Pos, "Aggregate expressions cannot be nested")
	case fc.Star || fc.Distinct || fc.Filter != nil:
		return nil, posErr(fc.Pos, "DISTINCT/ALL/FILTER/* not allowed with %s function", name)
	}
	bigint := types.BigIntT.WithNullable(false)
	if name == "GROUP_ID" {
		if len(fc.Args) != 0 {
			return nil, posErr(fc.Pos, "Invalid number of arguments to function 'GROUP_ID'. Was expecting 0 arguments")
		}
		return &logical.Literal{Value: int64(0), T: bigint}, nil
	}
	if len(fc.Args) == 0 {
		return nil, posErr(fc.Pos, "Invalid number of arguments to function '%s'. Was expecting 1 arguments", name)
	}
	src := *a.src
	src.inAggArg = true
	args := make([]int, len(fc.Args))
	for i, arg := range fc.Args {
		x, err := src.expr(arg)
		if err != nil {
			return nil, err
		}
		k, ok := a.groupIndex(x)
		if !ok {
			return nil, posErr(arg.Position(), "Argument to %s operator must be a grouped expression", name)
		}
		args[i] = k // keys are the first pre-aggregation columns
	}
	def := logical.GroupingDef
	if name == "GROUPING_ID" {
		def = logical.GroupingIDDef
	}
	call := logical.AggCall{Name: name, Args: args, Filter: -1, T: bigint, Def: def}
	key := call.String() + ":" + bigint.String()
	i, ok := a.aggKeys[key]
	if !ok {
		call.Alias = fmt.Sprintf("EXPR$%d", len(a.groupKeys)+len(a.aggs))
		a.aggs = append(a.aggs, call)
		i = len(a.aggs) - 1
		a.aggKeys[key] = i
	}
	return &logical.ColumnRef{Index: len(a.groupKeys) + i, Name: a.aggs[i].Alias, T: bigint}, nil
}

// groupedRows reports whether every group of the aggregation has at least
// one input row, which makes SUM, MAX, … of a NOT NULL argument NOT NULL:
// a GROUP BY with keys and without grouping sets, or with several sets
// (Flink's Expand groups by the set's id too, so even the () set gives no
// row for an empty input); not a global aggregation (GROUP BY () alone).
func groupedRows(groups []logical.Expr, sets [][]int) bool {
	return len(groups) > 0 && (!hasEmptySet(sets) || len(sets) > 1)
}
