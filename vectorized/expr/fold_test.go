package expr

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/rules"
)

// bindRow replaces every column reference of e by a literal holding the
// row's value: the same expression written with constants.
func bindRow(e logical.Expr, row []any) logical.Expr {
	return logical.Rewrite(e, func(x logical.Expr) logical.Expr {
		if c, ok := x.(*logical.ColumnRef); ok {
			return &logical.Literal{Value: row[c.Index], T: c.T}
		}
		return x
	})
}

// TestFoldingMatchesEvaluation checks that constant folding does not change
// results: each random expression is evaluated by the vectorized kernels
// over a batch, and, row by row, written with that row's values as
// literals, folded by ReduceExpressionsRule, and evaluated again. Values
// must be equal; folding must never raise an error the evaluation does not
// (it may remove one, as Flink's simplification of FALSE AND x does).
func TestFoldingMatchesEvaluation(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	g := &gen{r: r}
	removed, failed := 0, 0
	for iter := 0; iter < 1200; iter++ {
		n := 1 + r.IntN(12)
		rows := randRows(r, testSchema, n, []int{0, 25}[iter%2])
		rec := buildRec(t, testSchema, rows)
		e := g.expr(iter%gKinds, 1+r.IntN(4))
		if iter%3 == 0 {
			// Strings compared with dates and timestamps are cast to
			// them (and fail to cast): mixed with AND/OR, the order in
			// which folding and evaluation meet the failure differs.
			c := col([]int{7, 8}[r.IntN(2)])
			cmp, err := call([]string{"<=", ">=", "="}[r.IntN(3)], c, g.expr(gStr, 1+r.IntN(2)))
			require.NoError(t, err)
			if e, err = call([]string{"AND", "OR"}[r.IntN(2)], g.expr(gBool, 1+r.IntN(3)), cmp); err != nil {
				continue
			}
		}
		foldCheck(t, e, rec, rows, &removed, &failed)
		rec.Release()
	}
	t.Logf("%d rows failed to evaluate, %d of them folded to a value", failed, removed)
	require.Positive(t, failed, "the generator makes expressions that fail at run time")
}

func foldCheck(t *testing.T, e logical.Expr, rec interface{ NumRows() int64 }, rows [][]any, removed, failed *int) {
	t.Helper()
	ev, err := Compile(e, testSchema, testReg, testCtx)
	require.NoError(t, err, e.String())
	for i, row := range rows {
		one := buildRec(t, testSchema, [][]any{row})
		got, colErr := ev.Eval(one)
		var colVal any
		if colErr == nil {
			colVal = types.GetValue(got, 0, e.Type())
			got.Release()
		}
		one.Release()
		bound := bindRow(e, row)
		folded := rules.FoldExpr(testReg, testCtx, bound)
		require.True(t, folded.Type().Kind == e.Type().Kind, "folding changed the type of %s: %s → %s", e, e.Type(), folded.Type())
		foldVal, foldErr := logical.Eval(testCtx, testReg, folded, nil)
		switch {
		case colErr == nil && foldErr != nil:
			t.Fatalf("expr %s row %d %v: evaluates to %v, folded %s fails: %v", e, i, row, colVal, folded, foldErr)
		case colErr != nil && foldErr == nil:
			*removed++
			*failed++
		case colErr != nil:
			*failed++
		case colErr == nil && !sameValue(colVal, foldVal, e.Type()):
			t.Fatalf("expr %s row %d %v: evaluates to %v (%T), folded to %s = %v (%T)", e, i, row, colVal, colVal, folded, foldVal, foldVal)
		}
	}
}
