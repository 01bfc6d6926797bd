package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// matchTestSpec is PARTITION BY k ORDER BY ts MEASURES FIRST(A.v),
// LAST(A.v), SUM(A.v), COUNT(*), B.s, MATCH_ROWTIME() PATTERN (A{1,4}?
// C? B) DEFINE A AS A.v < 12, C AS C.v IS NULL, B AS B.v >= LAST(A.v)
// over ckKVT.
func matchTestSpec(t *testing.T, rowtime bool, skip MatchSkip, within int64) MatchSpec {
	big := types.BigIntT.WithNullable(true)
	v := &logical.ColumnRef{Index: 2, Name: "v", T: big}
	s := &logical.ColumnRef{Index: 5, Name: "s", T: types.StringT}
	acc := []logical.MatchAccess{
		{Kind: logical.MatchLast, Var: "A", Arg: v, T: big},                                     // 0: A.v
		{Kind: logical.MatchFirst, Var: "A", Arg: v, T: big},                                    // 1: FIRST(A.v)
		{Kind: logical.MatchAgg, Var: "A", Arg: v, Agg: "SUM", T: big},                          // 2: SUM(A.v)
		{Kind: logical.MatchAgg, Agg: "COUNT", T: types.BigIntT.WithNullable(false)},            // 3: COUNT(*)
		{Kind: logical.MatchLast, Var: "B", Arg: s, T: types.StringT},                           // 4: B.s
		{Kind: logical.MatchRowtime, T: types.TimestampOf(3).WithNullable(false)},               // 5: MATCH_ROWTIME()
		{Kind: logical.MatchLast, Var: "C", Arg: v, T: big},                                     // 6: C.v
		{Kind: logical.MatchLast, Var: "B", Arg: v, T: big},                                     // 7: B.v
		{Kind: logical.MatchLast, Var: "A", Offset: 1, Arg: v, Func: "LAST", T: big},            // 8: LAST(A.v, 1)
		{Kind: logical.MatchAgg, Var: "A", Arg: v, Agg: "MAX", T: big},                          // 9: MAX(A.v)
		{Kind: logical.MatchAgg, Var: "A", Arg: v, Agg: "AVG", T: big},                          // 10: AVG(A.v)
		{Kind: logical.MatchAgg, Var: "A", Arg: v, Agg: "COUNT", T: types.BigIntT},              // 11: COUNT(A.v)
		{Kind: logical.MatchAgg, Var: "", Arg: v, Agg: "MIN", T: big},                           // 12: MIN(v)
		{Kind: logical.MatchLast, Var: "", Arg: v, Offset: 1, Func: "LAST", T: big},             // 13: LAST(v, 1)
		{Kind: logical.MatchFirst, Var: "", Arg: s, Offset: 1, Func: "FIRST", T: types.StringT}, // 14: FIRST(s, 1)
		{Kind: logical.MatchAgg, Var: "B", Arg: v, Agg: "SUM", T: big},                          // 15: SUM(B.v)
		{Kind: logical.MatchAgg, Var: "A", Arg: v, Agg: "MIN", T: big},                          // 16: MIN(A.v)
		{Kind: logical.MatchLast, Var: "", Arg: v, Offset: 0, T: big},                           // 17: v (current row)
		{Kind: logical.MatchFirst, Var: "B", Arg: v, Offset: 0, Func: "FIRST", T: big},          // 18: FIRST(B.v)
		{Kind: logical.MatchLast, Var: "A", Offset: 2, Arg: v, Func: "LAST", T: big},            // 19: LAST(A.v, 2)
		{Kind: logical.MatchFirst, Var: "A", Offset: 1, Arg: v, Func: "FIRST", T: big},          // 20: FIRST(A.v, 1)
		{Kind: logical.MatchAgg, Var: "", Agg: "COUNT", T: types.BigIntT.WithNullable(false)},   // 21
	}
	ref := func(i int) logical.Expr { return &logical.ColumnRef{Index: i, Name: fmt.Sprint(i), T: acc[i].T} }
	lit := func(x int64) logical.Expr { return &logical.Literal{Value: x, T: types.BigIntT.WithNullable(false)} }
	call := func(name string, args ...logical.Expr) logical.Expr {
		def, _ := function.Builtin(name)
		return &logical.Call{Name: name, Args: args, T: types.BooleanT, Def: def}
	}
	elems := []MatchElem{
		{Var: "A", Min: 1, Max: 4, Cond: call("AND", call("<", ref(0), lit(12)), call("IS NOT NULL", ref(8)))},
		{Var: "C", Min: 0, Max: 1, Cond: call("IS NULL", ref(6))},
		{Var: "B", Min: 1, Max: 1, Cond: call(">=", ref(7), ref(0))},
	}
	elems[0].Cond = call("OR", call("IS NULL", ref(8)), elems[0].Cond)
	out := types.Schema{{Name: "k", Type: types.StringT}}
	var measures []logical.Expr
	for _, i := range []int{1, 0, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21} {
		if i == 5 && !rowtime {
			continue // processing time: MATCH_ROWTIME is the clock
		}
		out = append(out, types.Field{Name: fmt.Sprintf("m%d", i), Type: acc[i].T})
		measures = append(measures, ref(i))
	}
	spec := MatchSpec{In: ckKVT, Out: out, Arrow: mustArrow(t, out), Partition: []int{0},
		Order: []logical.SortKey{{Index: 1}, {Index: 2}}, Rowtime: rowtime, Elems: elems, Accesses: acc,
		Measures: measures, Skip: skip, SkipVar: "B", Within: within,
		Funcs: function.Builtins(), Eval: &function.EvalContext{Loc: time.UTC, Now: time.Unix(0, 0)}}
	return spec
}

// TestMatchCheckpoint snapshots and restores the NFA state (partial and
// completed matches, pending rows, the watermark) at several points and
// at other parallelisms: the output must not change.
func TestMatchCheckpoint(t *testing.T) {
	for _, rowtime := range []bool{true, false} {
		for _, skip := range []MatchSkip{SkipToNextRow, SkipPastLastRow, SkipToLast} {
			for _, within := range []int64{0, 9} {
				if !rowtime && within > 0 {
					continue // processing time: the wall clock
				}
				t.Run(fmt.Sprintf("rowtime=%v/skip=%d/within=%d", rowtime, skip, within), func(t *testing.T) {
					spec := matchTestSpec(t, rowtime, skip, within)
					tc := ckCase{in: []types.Schema{ckKVT}, keys: [][]int{{0}}, out: spec.Out, sides: 1,
						newOp: func(t *testing.T) ckOp {
							op, err := NewMatch(spec)
							if err != nil {
								t.Fatal(err)
							}
							return unaryCk{op}
						}}
					r := rand.New(rand.NewPCG(21, 22))
					steps := randomChangelog(r, 120, 1, false, false, func(int) []any {
						row := ckKVTRow(r)
						row[0] = []string{"a", "b", "c"}[r.IntN(3)]
						return row
					})
					if !rowtime {
						for i := range steps {
							if steps[i].marker != nil && steps[i].marker.Kind == vectorized.Watermark {
								steps[i] = ckStep{}
							}
						}
					}
					tc.check(t, steps)
				})
			}
		}
	}
}
