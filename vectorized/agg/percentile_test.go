package agg

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func float64Const(v float64, n int) arrow.Array {
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	defer b.Release()
	for range n {
		b.Append(v)
	}
	return b.NewArray()
}

func TestPercentile(t *testing.T) {
	ts := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64}
	for _, tc := range []struct {
		pct  float64
		want []any
	}{
		{0.5, []any{2.5, 10.0, nil}},
		{0.0, []any{1.0, 10.0, nil}},
		{1.0, []any{4.0, 10.0, nil}},
		{0.25, []any{1.75, 10.0, nil}},
	} {
		acc, err := NewAccumulator(FuncPercentile, ts, nil, false)
		require.NoError(t, err)
		acc.Resize(3)
		args := []arrow.Array{int32Array(4, 1, 3, 2, 10, nil), float64Const(tc.pct, 6)}
		require.NoError(t, acc.Update([]uint32{0, 0, 0, 0, 1, 2}, args, nil))
		out, err := acc.Evaluate(memory.DefaultAllocator)
		require.NoError(t, err)
		got := make([]any, out.Len())
		for i := range got {
			if !out.IsNull(i) {
				got[i] = out.(*array.Float64).Value(i)
			}
		}
		require.Equal(t, tc.want, got, "percentage %v", tc.pct)
		out.Release()
		release(args)
	}
}

func TestPercentileFrequencyAndRetract(t *testing.T) {
	ts := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32}
	s, err := NewStepper(FuncPercentile, ts, nil, false, true)
	require.NoError(t, err)
	s.Resize(1)
	// values 1 (x3) and 5 (x1): median position 1.5 of [1 1 1 5] is 1;
	// after retracting 1 (x3): only 5
	args := []arrow.Array{int32Array(1, 5, 1), float64Const(0.5, 3), int32Array(3, 1, 3)}
	defer release(args)
	changed := make([]bool, 3)
	out, err := s.Step(memory.DefaultAllocator, []uint32{0, 0, 0}, []Op{OpAdd, OpAdd, OpRetract}, args, changed)
	require.NoError(t, err)
	defer out.Release()
	f := out.(*array.Float64)
	require.True(t, f.IsNull(0))
	require.Equal(t, []float64{1, 1, 1, 1, 5}, []float64{f.Value(1), f.Value(2), f.Value(3), f.Value(4), f.Value(5)})

	_, err = NewAccumulator(FuncPercentile, []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64}, nil, false)
	require.ErrorIs(t, err, ErrNotSupported)
	bad, err := NewAccumulator(FuncPercentile, []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64}, nil, false)
	require.NoError(t, err)
	bad.Resize(1)
	badArgs := []arrow.Array{int32Array(1), float64Const(1.5, 1)}
	defer release(badArgs)
	require.ErrorContains(t, bad.Update([]uint32{0}, badArgs, nil), "Percentage of PERCENTILE should be between [0.0, 1.0]")
}
