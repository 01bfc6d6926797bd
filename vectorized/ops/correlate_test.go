package ops

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// splitFunc is a test table function: the words of a string with their
// lengths; NULL produces nothing, "boom" fails.
type splitFunc struct{}

func (splitFunc) Rows(_ *function.EvalContext, args []any, emit func([]any) error) error {
	if args[0] == nil {
		return nil
	}
	for _, w := range strings.Fields(args[0].(string)) {
		if w == "boom" {
			return errors.New("boom")
		}
		if err := emit([]any{w, int32(len(w))}); err != nil {
			return err
		}
	}
	return nil
}

func TestCorrelate(t *testing.T) {
	in := types.Schema{{Name: "id", Type: types.IntT}, {Name: "s", Type: types.StringT}}
	fnTypes := []types.Type{types.StringT, types.IntT}
	out := append(append(types.Schema(nil), in...), types.Field{Name: "w", Type: types.StringT}, types.Field{Name: "n", Type: types.IntT})
	rows := [][]any{{int32(1), "a bb"}, {int32(2), nil}, {int32(3), ""}, {int32(4), "ccc"}}
	arg := &rowEvaluator{s: in, t: types.StringT, fn: func(r []any) any { return r[1] }}
	tests := []struct {
		name    string
		left    bool
		rows    [][]any
		want    [][]any
		wantErr string
	}{
		{"inner", false, rows, [][]any{{int32(1), "a bb", "a", int32(1)}, {int32(1), "a bb", "bb", int32(2)}, {int32(4), "ccc", "ccc", int32(3)}}, ""},
		{"left", true, rows, [][]any{{int32(1), "a bb", "a", int32(1)}, {int32(1), "a bb", "bb", int32(2)}, {int32(2), nil, nil, nil},
			{int32(3), "", nil, nil}, {int32(4), "ccc", "ccc", int32(3)}}, ""},
		{"error", false, [][]any{{int32(1), "x boom"}}, nil, "boom"},
	}
	for _, tt := range tests {
		for _, bs := range batchSizes {
			t.Run(fmt.Sprintf("%s/bs=%d", tt.name, bs), func(t *testing.T) {
				op := NewCorrelate(CorrelateSpec{Args: []Evaluator{arg}, ArgTypes: []types.Type{types.StringT}, Func: splitFunc{},
					FuncTypes: fnTypes, Left: tt.left, Out: mustArrow(t, out)})
				got, err := runUnary(t, op, in, tt.rows, bs, out)
				if tt.wantErr != "" {
					require.ErrorContains(t, err, tt.wantErr)
					return
				}
				require.NoError(t, err)
				require.Equal(t, tt.want, got)
			})
		}
	}
}

// manyFunc produces n rows for the argument n, to cross batch boundaries.
type manyFunc struct{}

func (manyFunc) Rows(_ *function.EvalContext, args []any, emit func([]any) error) error {
	for i := int32(0); i < args[0].(int32); i++ {
		if err := emit([]any{i}); err != nil {
			return err
		}
	}
	return nil
}

func TestCorrelateLargeOutput(t *testing.T) {
	in := types.Schema{{Name: "n", Type: types.IntT}}
	out := types.Schema{{Name: "n", Type: types.IntT}, {Name: "i", Type: types.IntT}}
	arg := &rowEvaluator{s: in, t: types.IntT, fn: func(r []any) any { return r[0] }}
	op := NewCorrelate(CorrelateSpec{Args: []Evaluator{arg}, ArgTypes: []types.Type{types.IntT}, Func: manyFunc{},
		FuncTypes: []types.Type{types.IntT}, Out: mustArrow(t, out)})
	got, err := runUnary(t, op, in, [][]any{{int32(5000)}, {int32(3000)}}, 0, out)
	require.NoError(t, err)
	require.Len(t, got, 8000)
	require.Equal(t, []any{int32(5000), int32(4999)}, got[4999])
	require.Equal(t, []any{int32(3000), int32(0)}, got[5000])
	require.Equal(t, vectorized.DefaultBatchSize, 4096)
}

// sumAgg is a test script aggregate: the sum of its argument, NULLs
// counted as -1 (script aggregates see NULL arguments).
type sumAgg struct{}

func (sumAgg) NewInstance(*function.EvalContext) (udf.AggInstance, error) { return &sumInstance{}, nil }
func (sumAgg) CanRetract() bool                                           { return false }
func (sumAgg) CanMerge() bool                                             { return false }
func (sumAgg) ResultType() types.Type                                     { return types.BigIntT }

type sumInstance struct{ closed bool }

func (s *sumInstance) CreateAccumulator() (udf.Acc, error) { v := int64(0); return &v, nil }
func (s *sumInstance) Accumulate(acc udf.Acc, args []any) error {
	p := acc.(*int64)
	if args[0] == nil {
		*p--
		return nil
	}
	*p += args[0].(int64)
	return nil
}
func (s *sumInstance) Retract(udf.Acc, []any) error { return errors.New("not supported yet: retract") }
func (s *sumInstance) Merge(udf.Acc, udf.Acc) error { return errors.New("not supported yet: merge") }
func (s *sumInstance) GetValue(acc udf.Acc) (any, error) {
	if v := *acc.(*int64); v != 0 {
		return v, nil
	}
	return nil, nil
}
func (s *sumInstance) Export(acc udf.Acc) (any, error) { return *acc.(*int64), nil }
func (s *sumInstance) Import(v any) (udf.Acc, error)   { x := v.(int64); return &x, nil }
func (s *sumInstance) Close()                          { s.closed = true }

func TestScriptAggregate(t *testing.T) {
	def := &function.Definition{Name: "my_sum", Kind: function.Aggregate}
	udf.Register(def, sumAgg{})
	defer udf.Release(def)
	in := types.Schema{{Name: "k", Type: types.StringT}, {Name: "v", Type: types.BigIntT}, {Name: "f", Type: types.BooleanT}}
	rows := [][]any{{"a", int64(1), true}, {"a", int64(2), false}, {"b", nil, true}, {"a", int64(4), nil}, {"c", int64(7), true}}
	call := logical.AggCall{Name: "my_sum", Args: []int{1}, Filter: -1, T: types.BigIntT, User: true, Def: def}
	filtered := call
	filtered.Filter = 2
	tests := []struct {
		name  string
		keys  []int
		calls []logical.AggCall
		rows  [][]any
		want  [][]any
	}{
		{"grouped", []int{0}, []logical.AggCall{call}, rows, [][]any{{"a", int64(7)}, {"b", int64(-1)}, {"c", int64(7)}}},
		{"filtered", []int{0}, []logical.AggCall{filtered}, rows, [][]any{{"a", int64(1)}, {"b", int64(-1)}, {"c", int64(7)}}},
		{"global", nil, []logical.AggCall{call}, rows, [][]any{{int64(13)}}},
		{"global empty", nil, []logical.AggCall{call}, nil, [][]any{{nil}}},
	}
	for _, tt := range tests {
		for _, bs := range batchSizes {
			t.Run(fmt.Sprintf("%s/bs=%d", tt.name, bs), func(t *testing.T) {
				var out types.Schema
				for _, k := range tt.keys {
					out = append(out, in[k])
				}
				for i, c := range tt.calls {
					out = append(out, types.Field{Name: fmt.Sprintf("EXPR$%d", i), Type: c.T})
				}
				h := NewHashAggregate(tt.keys, tt.calls, in, mustArrow(t, out))
				h.SetFunctions(nil)
				got, err := runUnary(t, h, in, tt.rows, bs, out)
				require.NoError(t, err)
				require.ElementsMatch(t, tt.want, got)
			})
		}
	}
	// a call not marked user-defined is a built-in, and my_sum is none
	builtin := call
	builtin.User, builtin.Def = false, nil
	h := NewHashAggregate(nil, []logical.AggCall{builtin}, in, mustArrow(t, types.Schema{{Name: "x", Type: types.BigIntT}}))
	_, err := runUnary(t, h, in, rows, 0, nil)
	require.Error(t, err)
}

// retractSum is sumAgg with retract.
type retractSum struct{ sumAgg }

func (retractSum) CanRetract() bool { return true }
func (retractSum) NewInstance(*function.EvalContext) (udf.AggInstance, error) {
	return &retractInstance{}, nil
}

type retractInstance struct{ sumInstance }

func (r *retractInstance) Retract(acc udf.Acc, args []any) error {
	*acc.(*int64) -= args[0].(int64)
	return nil
}

func TestScriptStepper(t *testing.T) {
	noRetract := &function.Definition{Name: "plain_sum", Kind: function.Aggregate}
	withRetract := &function.Definition{Name: "r_sum", Kind: function.Aggregate}
	udf.Register(noRetract, sumAgg{})
	udf.Register(withRetract, retractSum{})
	defer udf.Release(noRetract)
	defer udf.Release(withRetract)
	argTypes := []types.Type{types.BigIntT}

	sum, _ := function.BuiltinAggregate("SUM")
	_, ok, err := NewScriptStepper(nil, logical.AggCall{Name: "SUM", Args: []int{0}, T: types.BigIntT, Def: sum}, argTypes, true)
	require.False(t, ok)
	require.NoError(t, err)
	_, ok, err = NewScriptStepper(nil, logical.AggCall{Name: "plain_sum", Args: []int{0}, T: types.BigIntT, User: true, Def: noRetract}, argTypes, true)
	require.True(t, ok)
	require.ErrorContains(t, err, "no retract method")

	s, ok, err := NewScriptStepper(nil, logical.AggCall{Name: "r_sum", Args: []int{0}, T: types.BigIntT, User: true, Def: withRetract}, argTypes, true)
	require.True(t, ok)
	require.NoError(t, err)
	defer s.(interface{ Close() }).Close()
	s.Resize(2)
	arg, err := types.BuildArray(vectorized.Mem, types.BigIntT, []any{int64(5), int64(2), int64(5), int64(9)})
	require.NoError(t, err)
	changed := make([]bool, 4)
	res, err := s.Step(vectorized.Mem, []uint32{0, 1, 0, 1}, []agg.Op{agg.OpAdd, agg.OpAdd, agg.OpRetract, agg.OpSkip}, []arrow.Array{arg}, changed)
	require.NoError(t, err)
	got := make([]any, res.Len())
	for i := range got {
		got[i] = types.GetValue(res, i, types.BigIntT)
	}
	require.Equal(t, []any{nil, int64(5), nil, int64(2), int64(5), nil, int64(2), int64(2)}, got)
	require.Equal(t, []bool{true, true, true, false}, changed)
	s.Clear(1)
	res, err = s.Step(vectorized.Mem, []uint32{1}, []agg.Op{agg.OpAdd}, []arrow.Array{array.NewSlice(arg, 3, 4)}, changed[:1])
	require.NoError(t, err)
	require.Equal(t, int64(9), types.GetValue(res, 1, types.BigIntT))
	require.Nil(t, types.GetValue(res, 0, types.BigIntT))
}
