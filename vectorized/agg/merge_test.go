package agg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestTwoPhaseMatchesOnePhase splits the rows over two local accumulators
// (each with its own group ids), merges their states into a global one and
// checks it evaluates like one accumulator fed every row.
func TestTwoPhaseMatchesOnePhase(t *testing.T) {
	for _, c := range accCases() {
		t.Run(fmt.Sprintf("%s(%s)", c.name, typeList(c.args)), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			r := rand.New(rand.NewPCG(7, uint64(len(c.args))))
			const n, groups = 3000, 50
			args := make([]arrow.Array, len(c.args))
			for i, typ := range c.args {
				args[i], _ = randomColumn(mem, typ, n, 30, 0.2, r)
			}
			defer release(args)
			gids := make([]uint32, n)
			for i := range gids {
				gids[i] = uint32(r.IntN(groups))
			}

			one, err := NewAccumulator(c.name, c.args, nil, false)
			require.NoError(t, err)
			one.Resize(groups)
			require.NoError(t, one.Update(gids, args, nil))
			want, err := one.Evaluate(mem)
			require.NoError(t, err)
			defer want.Release()

			global, err := NewAccumulator(c.name, c.args, nil, false)
			require.NoError(t, err)
			global.Resize(groups)
			gm := global.(Merger)
			for part := range 2 {
				// rows of this partition, with local ids in first-seen order
				var rows []int
				localOf := map[uint32]uint32{}
				var globalOf, local []uint32
				for i := part; i < n; i += 2 {
					rows = append(rows, i)
					l, ok := localOf[gids[i]]
					if !ok {
						l = uint32(len(globalOf))
						localOf[gids[i]] = l
						globalOf = append(globalOf, gids[i])
					}
					local = append(local, l)
				}
				acc, err := NewAccumulator(c.name, c.args, nil, false)
				require.NoError(t, err)
				acc.Resize(len(globalOf))
				for j, row := range rows {
					sl := sliceArrays(args, row, row+1)
					require.NoError(t, acc.Update(local[j:j+1], sl, nil))
					release(sl)
				}
				m := acc.(Merger)
				state, err := m.State(mem)
				require.NoError(t, err)
				require.Len(t, state, len(m.StateTypes()))
				for i, s := range state {
					require.True(t, arrow.TypeEqual(m.StateTypes()[i], s.DataType()))
				}
				require.NoError(t, gm.Merge(globalOf, state))
				release(state)
			}
			got, err := global.Evaluate(mem)
			require.NoError(t, err)
			defer got.Release()
			for g := range groups {
				w, v := valueAt(want, g), valueAt(got, g)
				if c.name == FuncMin || c.name == FuncMax {
					// with NaNs the result depends on row order (as in Flink)
					if wf, ok := w.(float64); ok && (math.IsNaN(wf) || math.IsNaN(v.(float64))) {
						continue
					}
				}
				if wf, ok := w.(float64); ok && !math.IsNaN(wf) {
					require.InDelta(t, wf, v, 1e-3*math.Max(1, math.Abs(wf)), "group %d", g)
					continue
				}
				require.Equal(t, canon(w), canon(v), "group %d", g)
			}
		})
	}
}

func TestMergeErrorsAndDistinct(t *testing.T) {
	acc, err := NewAccumulator(FuncAvg, []arrow.DataType{arrow.PrimitiveTypes.Int64}, nil, false)
	require.NoError(t, err)
	acc.Resize(1)
	m := acc.(Merger)
	mem := memory.NewGoAllocator()
	a := int64Array(mem, []int64{1})
	defer a.Release()
	require.Error(t, m.Merge([]uint32{0}, []arrow.Array{a}), "AVG state has two columns")
	b := array.NewFloat64Builder(mem)
	b.Append(1)
	f := b.NewArray()
	b.Release()
	defer f.Release()
	require.Error(t, m.Merge([]uint32{0}, []arrow.Array{f, a}), "wrong state type")

	d, err := NewAccumulator(FuncSum, []arrow.DataType{arrow.PrimitiveTypes.Int64}, nil, true)
	require.NoError(t, err)
	_, ok := d.(Merger)
	require.False(t, ok, "DISTINCT exports no state yet")
}
