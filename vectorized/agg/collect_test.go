package agg

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func int32Array(vals ...any) arrow.Array {
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(int32(v.(int)))
		}
	}
	return b.NewArray()
}

func TestCollectAccumulators(t *testing.T) {
	i32 := []arrow.DataType{arrow.PrimitiveTypes.Int32}
	tests := []struct {
		name string
		fn   string
		args func() []arrow.Array
		ts   []arrow.DataType
		want []any // per group, as types.FormatValue text
	}{
		{"array_agg keeps nulls", FuncArrayAgg, func() []arrow.Array { return []arrow.Array{int32Array(1, nil, 3, 4)} }, i32,
			[]any{"[1, NULL]", "[3, 4]", nil}},
		{"json_arrayagg absent on null", FuncJSONArrayAgg, func() []arrow.Array { return []arrow.Array{int32Array(1, nil, nil, 4)} }, i32,
			[]any{"[1]", "[4]", "[]"}},
		{"json_objectagg", FuncJSONObjectAgg, func() []arrow.Array {
			return []arrow.Array{stringArray(sp("b"), sp("a"), sp("x"), sp("y")), int32Array(1, nil, 3, 4)}
		}, []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32},
			[]any{`{"a":null,"b":1}`, `{"x":3,"y":4}`, `{}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := ResultType(tt.fn, tt.ts)
			require.NoError(t, err)
			acc, err := NewAccumulator(tt.fn, tt.ts, nil, false)
			require.NoError(t, err)
			acc.Resize(3)
			args := tt.args()
			defer release(args)
			require.NoError(t, acc.Update([]uint32{0, 0, 1, 1}, args, nil))
			out, err := acc.Evaluate(memory.DefaultAllocator)
			require.NoError(t, err)
			defer out.Release()
			require.True(t, arrow.TypeEqual(rt, out.DataType()))
			ft, err := types.FromArrow(rt, true)
			require.NoError(t, err)
			for g, w := range tt.want {
				v := types.GetValue(out, g, ft)
				if w == nil {
					require.Nil(t, v, "group %d", g)
					continue
				}
				require.Equal(t, w, types.FormatValue(v, ft, nil), "group %d", g)
			}
		})
	}
}

func TestCollectDuplicateKey(t *testing.T) {
	ts := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32}
	acc, err := NewAccumulator(FuncJSONObjectAgg, ts, nil, false)
	require.NoError(t, err)
	acc.Resize(1)
	args := []arrow.Array{stringArray(sp("a"), sp("a")), int32Array(1, 2)}
	defer release(args)
	require.EqualError(t, acc.Update([]uint32{0, 0}, args, nil), "Key 'a' is already present.")
}

func TestCollectStepperRetract(t *testing.T) {
	s, err := NewStepper(FuncJSONArrayAgg, []arrow.DataType{arrow.PrimitiveTypes.Int32}, nil, false, true)
	require.NoError(t, err)
	s.Resize(1)
	args := []arrow.Array{int32Array(1, 2, 1)}
	defer release(args)
	changed := make([]bool, 3)
	out, err := s.Step(memory.DefaultAllocator, []uint32{0, 0, 0}, []Op{OpAdd, OpAdd, OpRetract}, args, changed)
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, []any{"[]", "[1]", "[1]", "[1,2]", "[1,2]", "[2]"}, stringsOf(out))
	require.Equal(t, []bool{true, true, true}, changed)

	a, err := NewStepper(FuncArrayAgg, []arrow.DataType{arrow.PrimitiveTypes.Int32}, nil, false, true)
	require.NoError(t, err)
	a.Resize(1)
	changed = make([]bool, 2)
	out2, err := a.Step(memory.DefaultAllocator, []uint32{0, 0}, []Op{OpAdd, OpRetract}, []arrow.Array{int32Array(5, 5)}, changed)
	require.NoError(t, err)
	defer out2.Release()
	require.Equal(t, 4, out2.Len())
	require.True(t, out2.IsNull(0))
	require.False(t, out2.IsNull(1))
	require.True(t, out2.IsNull(3)) // empty again: NULL
}

func TestCollectOnNullVariants(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		ts   []arrow.DataType
		args []arrow.Array
		want string
	}{
		{FuncJSONArrayAggNullOnNull, []arrow.DataType{arrow.PrimitiveTypes.Int32}, []arrow.Array{int32Array(1, nil)}, "[1,null]"},
		{FuncJSONObjectAggAbsentOnNull, []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32},
			[]arrow.Array{stringArray(sp("a"), sp("b")), int32Array(nil, 2)}, `{"b":2}`},
	} {
		acc, err := NewAccumulator(tc.fn, tc.ts, nil, false)
		require.NoError(t, err)
		acc.Resize(1)
		require.NoError(t, acc.Update([]uint32{0, 0}, tc.args, nil))
		out, err := acc.Evaluate(memory.DefaultAllocator)
		require.NoError(t, err)
		require.Equal(t, []any{tc.want}, stringsOf(out))
		out.Release()
		release(tc.args)
	}
}

func TestKeepsNullArgs(t *testing.T) {
	require.True(t, KeepsNullArgs("array_agg"))
	require.True(t, KeepsNullArgs(FuncJSONObjectAgg))
	require.False(t, KeepsNullArgs(FuncJSONArrayAgg))
	require.False(t, KeepsNullArgs("SUM"))
}
