package agg

import (
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// refStat is the Go reference of the variance family over float64 values
// (two-pass, so it checks the one-pass formula too).
func refStat(name string, xs []float64) (float64, bool) {
	n := float64(len(xs))
	sample := name == FuncStddevSamp || name == FuncStddev || name == FuncVarSamp || name == FuncVariance
	if len(xs) == 0 || (sample && len(xs) == 1) {
		return 0, false
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	if sample {
		n--
	}
	v := ss / n
	if name == FuncStddevPop || name == FuncStddevSamp || name == FuncStddev {
		v = math.Sqrt(v)
	}
	return v, true
}

// refIntStat is Flink's integer arithmetic for the variance family.
func refIntStat(name string, xs []int64) (int64, bool) {
	sample := name == FuncStddevSamp || name == FuncStddev || name == FuncVarSamp || name == FuncVariance
	n := int64(len(xs))
	if n == 0 || (sample && n == 1) {
		return 0, false
	}
	var sum, sq int32
	for _, x := range xs {
		sum += int32(x)
		sq += int32(x) * int32(x)
	}
	den := n
	if sample {
		den--
	}
	div := (int64(sq) - int64(sum*sum)/n) / den
	if name == FuncVarPop || name == FuncVarSamp || name == FuncVariance {
		return int64(int32(div)), true
	}
	return int64(int32(math.Sqrt(float64(div)))), true
}

func float64Array(vals []float64, valid []bool) arrow.Array {
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func TestStatAccumulatorFloat(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	const n, groups = 1000, 7
	vals := make([]float64, n)
	valid := make([]bool, n)
	ids := make([]uint32, n)
	per := make([][]float64, groups+1) // the last group gets no rows
	for i := range vals {
		vals[i] = r.NormFloat64()*10 + 3
		valid[i] = r.Intn(10) != 0
		ids[i] = uint32(r.Intn(groups))
		if ids[i] == 1 { // a group with exactly one value
			if len(per[1]) > 0 || !valid[i] {
				ids[i] = 2
			}
		}
		if valid[i] {
			per[ids[i]] = append(per[ids[i]], vals[i])
		}
	}
	a := float64Array(vals, valid)
	defer a.Release()
	for _, name := range []string{FuncStddevPop, FuncStddevSamp, FuncStddev, FuncVarPop, FuncVarSamp, FuncVariance} {
		t.Run(name, func(t *testing.T) {
			acc, err := NewAccumulator(name, []arrow.DataType{arrow.PrimitiveTypes.Float64}, nil, false)
			require.NoError(t, err)
			acc.Resize(groups + 1)
			for _, lh := range batchSizes(n, []int{1, 17, 300}) {
				s := sliceArrays([]arrow.Array{a}, lh[0], lh[1])
				require.NoError(t, acc.Update(ids[lh[0]:lh[1]], s, nil))
				release(s)
			}
			out, err := acc.Evaluate(memory.DefaultAllocator)
			require.NoError(t, err)
			defer out.Release()
			f := out.(*array.Float64)
			for g := 0; g <= groups; g++ {
				want, ok := refStat(name, per[g])
				require.Equal(t, !ok, f.IsNull(g), "group %d", g)
				if ok {
					require.InDelta(t, want, f.Value(g), 1e-9*math.Max(1, math.Abs(want)), "group %d", g)
				}
			}
		})
	}
}

func TestStatAccumulatorInt(t *testing.T) {
	tests := []struct {
		name string
		vals []int64
	}{
		{"small", []int64{1, 2, 3, 4}},
		{"pair", []int64{1, 2}},
		{"spread", []int64{-5, 100, 7, 7, 42, 0}},
		{"one", []int64{9}},
		{"none", nil},
	}
	for _, fn := range []string{FuncStddevPop, FuncStddevSamp, FuncVarPop, FuncVarSamp} {
		for _, tt := range tests {
			t.Run(fn+"/"+tt.name, func(t *testing.T) {
				acc, err := NewAccumulator(fn, []arrow.DataType{arrow.PrimitiveTypes.Int32}, nil, false)
				require.NoError(t, err)
				acc.Resize(1)
				b := array.NewInt32Builder(memory.DefaultAllocator)
				for _, v := range tt.vals {
					b.Append(int32(v))
				}
				b.AppendNull()
				a := b.NewArray()
				b.Release()
				defer a.Release()
				require.NoError(t, acc.Update(make([]uint32, a.Len()), []arrow.Array{a}, nil))
				out, err := acc.Evaluate(memory.DefaultAllocator)
				require.NoError(t, err)
				defer out.Release()
				want, ok := refIntStat(fn, tt.vals)
				require.Equal(t, !ok, out.IsNull(0))
				if ok {
					require.Equal(t, int32(want), out.(*array.Int32).Value(0))
				}
			})
		}
	}
}

func TestStatResultTypes(t *testing.T) {
	for _, tt := range []struct {
		in, want arrow.DataType
	}{
		{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32},
		{arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float32},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, &arrow.Decimal128Type{Precision: 38, Scale: 6}},
		{&arrow.Decimal128Type{Precision: 20, Scale: 8}, &arrow.Decimal128Type{Precision: 38, Scale: 8}},
	} {
		got, err := ResultType(FuncVarPop, []arrow.DataType{tt.in})
		require.NoError(t, err)
		require.True(t, arrow.TypeEqual(tt.want, got), "%s → %s", tt.in, got)
	}
	_, err := ResultType(FuncVarPop, []arrow.DataType{arrow.BinaryTypes.String})
	require.ErrorIs(t, err, ErrNotSupported)
}

func TestStatStepperRetract(t *testing.T) {
	s, err := NewStepper(FuncVarPop, []arrow.DataType{arrow.PrimitiveTypes.Float64}, nil, false, true)
	require.NoError(t, err)
	s.Resize(1)
	a := float64Array([]float64{1, 2, 3, 2}, nil)
	defer a.Release()
	changed := make([]bool, 4)
	out, err := s.Step(memory.DefaultAllocator, []uint32{0, 0, 0, 0}, []Op{OpAdd, OpAdd, OpAdd, OpRetract}, []arrow.Array{a}, changed)
	require.NoError(t, err)
	defer out.Release()
	f := out.(*array.Float64)
	require.True(t, f.IsNull(0))
	require.Equal(t, 0.0, f.Value(1))
	require.InDelta(t, 0.25, f.Value(3), 1e-12)
	require.InDelta(t, 2.0/3, f.Value(5), 1e-12)
	require.InDelta(t, 1.0, f.Value(7), 1e-12) // {1, 3}
	require.Equal(t, []bool{true, true, true, true}, changed)
}

func TestStatMerge(t *testing.T) {
	mk := func() Merger {
		acc, err := NewAccumulator(FuncStddevSamp, []arrow.DataType{arrow.PrimitiveTypes.Float64}, nil, false)
		require.NoError(t, err)
		acc.Resize(1)
		return acc.(Merger)
	}
	l1, l2, g := mk(), mk(), mk()
	a := float64Array([]float64{1, 2}, nil)
	b := float64Array([]float64{3, 4, 5}, nil)
	defer a.Release()
	defer b.Release()
	require.NoError(t, l1.Update([]uint32{0, 0}, []arrow.Array{a}, nil))
	require.NoError(t, l2.Update([]uint32{0, 0, 0}, []arrow.Array{b}, nil))
	for _, l := range []Merger{l1, l2} {
		st, err := l.State(memory.DefaultAllocator)
		require.NoError(t, err)
		require.NoError(t, g.Merge([]uint32{0}, st))
		release(st)
	}
	out, err := g.Evaluate(memory.DefaultAllocator)
	require.NoError(t, err)
	defer out.Release()
	want, _ := refStat(FuncStddevSamp, []float64{1, 2, 3, 4, 5})
	require.InDelta(t, want, out.(*array.Float64).Value(0), 1e-12)
}

func TestListAgg(t *testing.T) {
	str := arrow.BinaryTypes.String
	t.Run("accumulate", func(t *testing.T) {
		acc, err := NewAccumulator(FuncListAgg, []arrow.DataType{str}, nil, false)
		require.NoError(t, err)
		acc.Resize(3)
		a := stringArray(sp("a"), sp("b"), nil, sp("c"), sp("d"))
		defer a.Release()
		require.NoError(t, acc.Update([]uint32{0, 1, 0, 0, 1}, []arrow.Array{a}, nil))
		out, err := acc.Evaluate(memory.DefaultAllocator)
		require.NoError(t, err)
		defer out.Release()
		require.Equal(t, []any{"a,c", "b,d", nil}, stringsOf(out))
	})
	t.Run("separator", func(t *testing.T) {
		acc, err := NewAccumulator(FuncListAgg, []arrow.DataType{str, str}, nil, false)
		require.NoError(t, err)
		acc.Resize(1)
		a := stringArray(sp("a"), sp("b"), sp("c"))
		sep := stringArray(sp("; "), sp("; "), sp("; "))
		defer a.Release()
		defer sep.Release()
		require.NoError(t, acc.Update([]uint32{0, 0, 0}, []arrow.Array{a, sep}, nil))
		out, err := acc.Evaluate(memory.DefaultAllocator)
		require.NoError(t, err)
		defer out.Release()
		require.Equal(t, []any{"a; b; c"}, stringsOf(out))
	})
	t.Run("retract", func(t *testing.T) {
		s, err := NewStepper(FuncListAgg, []arrow.DataType{str}, nil, false, true)
		require.NoError(t, err)
		s.Resize(1)
		a := stringArray(sp("a"), sp("b"), sp("a"), sp("a"), sp("b"), sp("a"))
		defer a.Release()
		changed := make([]bool, 6)
		out, err := s.Step(memory.DefaultAllocator, make([]uint32, 6), []Op{OpAdd, OpAdd, OpAdd, OpRetract, OpRetract, OpRetract}, []arrow.Array{a}, changed)
		require.NoError(t, err)
		defer out.Release()
		require.Equal(t, []any{nil, "a", "a", "a,b", "a,b", "a,b,a", "a,b,a", "b,a", "b,a", "a", "a", nil}, stringsOf(out))
	})
	t.Run("not a string", func(t *testing.T) {
		_, err := NewAccumulator(FuncListAgg, []arrow.DataType{arrow.PrimitiveTypes.Int32}, nil, false)
		require.ErrorIs(t, err, ErrNotSupported)
	})
}
