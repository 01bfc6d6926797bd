package agg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestDistinctMergerOf checks the checkpoint view of DISTINCT accumulators:
// a state merged into empty groups evaluates exactly as the original and
// goes on counting only new values; states of overlapping partitions merge
// as a union.
func TestDistinctMergerOf(t *testing.T) {
	i64, f64, str := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String
	tests := []struct {
		name string
		args []arrow.DataType
	}{
		{FuncCount, []arrow.DataType{i64}},
		{FuncSum, []arrow.DataType{i64}},
		{FuncSum, []arrow.DataType{f64}},
		{FuncAvg, []arrow.DataType{arrow.PrimitiveTypes.Int32}},
		{FuncCount, []arrow.DataType{str}},
		{FuncCount, []arrow.DataType{str, i64}},
		{FuncCount, []arrow.DataType{arrow.FixedWidthTypes.Boolean}},
		{FuncMax, []arrow.DataType{str}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s(%s)", tc.name, typeList(tc.args)), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			r := rand.New(rand.NewPCG(11, uint64(len(tc.args))))
			const n, groups = 3000, 40
			args := make([]arrow.Array, len(tc.args))
			for i, typ := range tc.args {
				args[i], _ = randomColumn(mem, typ, n, 60, 0.1, r)
			}
			defer release(args)
			gids := make([]uint32, n)
			for i := range gids {
				gids[i] = uint32(r.IntN(groups))
			}
			all := make([]uint32, groups)
			for g := range all {
				all[g] = uint32(g)
			}
			newAcc := func() Accumulator {
				a, err := NewAccumulator(tc.name, tc.args, nil, true)
				require.NoError(t, err)
				a.Resize(groups)
				return a
			}
			eval := func(a Accumulator, round bool) []string {
				out, err := a.Evaluate(mem)
				require.NoError(t, err)
				defer out.Release()
				s := make([]string, groups)
				for g := range s {
					v := valueAt(out, g)
					if f, ok := v.(float64); ok && round && !math.IsNaN(f) {
						v = math.Round(f*1e6) / 1e6
					}
					s[g] = canon(v)
				}
				return s
			}
			update := func(a Accumulator, lo, hi int) {
				sl := sliceArrays(args, lo, hi)
				defer release(sl)
				require.NoError(t, a.Update(gids[lo:hi], sl, nil))
			}
			state := func(a Accumulator) []arrow.Array {
				m, ok := MergerOf(a)
				require.True(t, ok)
				st, err := m.State(mem)
				require.NoError(t, err)
				require.Len(t, st, len(m.StateTypes()))
				return st
			}
			merge := func(a Accumulator, st []arrow.Array) {
				m, ok := MergerOf(a)
				require.True(t, ok)
				require.NoError(t, m.Merge(all, st))
			}

			// restore: exact, and the restored set keeps counting right
			orig := newAcc()
			update(orig, 0, n/2)
			st := state(orig)
			restored := newAcc()
			merge(restored, st)
			release(st)
			require.Equal(t, eval(orig, false), eval(restored, false))
			update(orig, n/2, n)
			update(restored, n/2, n)
			require.Equal(t, eval(orig, false), eval(restored, false))

			// union of three overlapping partitions (groups shared)
			union := newAcc()
			for p := range 3 {
				part := newAcc()
				update(part, p*n/3, (p+1)*n/3)
				update(part, 0, n/6) // overlap with every other part
				st := state(part)
				merge(union, st)
				release(st)
			}
			require.Equal(t, eval(orig, true), eval(union, true))
		})
	}
}

func TestDistinctMergerOfErrors(t *testing.T) {
	acc, err := NewAccumulator(FuncCount, []arrow.DataType{arrow.PrimitiveTypes.Int64}, nil, true)
	require.NoError(t, err)
	acc.Resize(1)
	m, ok := MergerOf(acc)
	require.True(t, ok)
	mem := memory.NewGoAllocator()
	a := int64Array(mem, []int64{1})
	defer a.Release()
	require.Error(t, m.Merge([]uint32{0}, []arrow.Array{a}), "wrong state shape")

	plain, err := NewAccumulator(FuncCount, []arrow.DataType{arrow.PrimitiveTypes.Int64}, nil, false)
	require.NoError(t, err)
	pm, ok := MergerOf(plain)
	require.True(t, ok)
	require.Same(t, plain.(Merger), pm)
}
