package ops

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// chunked turns a row-at-a-time test table function into a
// udf.TableChunkFunc.
type chunked struct {
	udf.TableFunc
	ts []types.Type
}

func (c chunked) RowsArrow(ctx *function.EvalContext, args []udf.ArrowArg, n int, emit func(r int, row []any) error) error {
	for r := 0; r < n; r++ {
		if err := c.Rows(ctx, udf.ArgRow(args, r, c.ts), func(row []any) error { return emit(r, row) }); err != nil {
			return err
		}
	}
	return nil
}

func TestCorrelateCondition(t *testing.T) {
	in := types.Schema{{Name: "id", Type: types.IntT}, {Name: "s", Type: types.StringT}}
	fnTypes := []types.Type{types.StringT, types.IntT}
	out := append(append(types.Schema(nil), in...), types.Field{Name: "w", Type: types.StringT}, types.Field{Name: "n", Type: types.IntT})
	rows := [][]any{{int32(1), "a bb"}, {int32(2), nil}, {int32(3), "x"}, {int32(4), "ccc dd"}}
	arg := &rowEvaluator{s: in, t: types.StringT, fn: func(r []any) any { return r[1] }}
	// ON n > 1 (NULL for the word "dd": NULL is not TRUE)
	cond := &rowEvaluator{s: out, t: types.BooleanT, fn: func(r []any) any {
		if r[2] == "dd" {
			return nil
		}
		return r[3].(int32) > 1
	}}
	tests := []struct {
		name string
		left bool
		want [][]any
	}{
		{"inner", false, [][]any{{int32(1), "a bb", "bb", int32(2)}, {int32(4), "ccc dd", "ccc", int32(3)}}},
		{"left", true, [][]any{{int32(1), "a bb", "bb", int32(2)}, {int32(2), nil, nil, nil}, {int32(3), "x", nil, nil},
			{int32(4), "ccc dd", "ccc", int32(3)}}},
	}
	for _, tt := range tests {
		for _, chunk := range []bool{false, true} {
			for _, bs := range batchSizes {
				t.Run(fmt.Sprintf("%s/chunk=%v/bs=%d", tt.name, chunk, bs), func(t *testing.T) {
					var fn udf.TableFunc = splitFunc{}
					if chunk {
						fn = chunked{splitFunc{}, []types.Type{types.StringT}}
					}
					op := NewCorrelate(CorrelateSpec{Args: []Evaluator{arg}, ArgTypes: []types.Type{types.StringT}, Func: fn,
						FuncTypes: fnTypes, Left: tt.left, Cond: cond, Out: mustArrow(t, out)})
					got, err := runUnary(t, op, in, rows, bs, out)
					require.NoError(t, err)
					require.Equal(t, tt.want, got)
				})
			}
		}
	}
}

// A row producing more rows than a batch holds is decided across flushes.
func TestCorrelateConditionLargeOutput(t *testing.T) {
	in := types.Schema{{Name: "n", Type: types.IntT}}
	out := types.Schema{{Name: "n", Type: types.IntT}, {Name: "i", Type: types.IntT}}
	arg := &rowEvaluator{s: in, t: types.IntT, fn: func(r []any) any { return r[0] }}
	// only i = 4500 passes: n = 5000 matches after its first flush, n = 3000 never
	cond := &rowEvaluator{s: out, t: types.BooleanT, fn: func(r []any) any { return r[1].(int32) == 4500 }}
	for _, chunk := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunk=%v", chunk), func(t *testing.T) {
			var fn udf.TableFunc = manyFunc{}
			if chunk {
				fn = chunked{manyFunc{}, []types.Type{types.IntT}}
			}
			op := NewCorrelate(CorrelateSpec{Args: []Evaluator{arg}, ArgTypes: []types.Type{types.IntT}, Func: fn,
				FuncTypes: []types.Type{types.IntT}, Left: true, Cond: cond, Out: mustArrow(t, out)})
			got, err := runUnary(t, op, in, [][]any{{int32(5000)}, {int32(3000)}, {int32(0)}, {int32(4600)}}, 0, out)
			require.NoError(t, err)
			require.Equal(t, [][]any{{int32(5000), int32(4500)}, {int32(3000), nil}, {int32(0), nil}, {int32(4600), int32(4500)}}, got)
		})
	}
}
