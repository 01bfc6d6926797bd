package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestEvaluateIDsMatchesEvaluate checks, for every accumulator (DISTINCT
// too) that can evaluate some groups, that EvaluateIDs gives Evaluate's
// values of those groups, repeated and out of order.
func TestEvaluateIDsMatchesEvaluate(t *testing.T) {
	for _, distinct := range []bool{false, true} {
		for _, c := range accCases() {
			t.Run(fmt.Sprintf("%s(%s)/distinct=%v", c.name, typeList(c.args), distinct), func(t *testing.T) {
				mem := memory.NewGoAllocator()
				r := rand.New(rand.NewPCG(3, uint64(len(c.args))))
				const n, groups = 2000, 40
				args := make([]arrow.Array, len(c.args))
				for i, typ := range c.args {
					args[i], _ = randomColumn(mem, typ, n, 25, 0.2, r)
				}
				defer release(args)
				gids := make([]uint32, n)
				for i := range gids {
					gids[i] = uint32(r.IntN(groups))
				}
				acc, err := NewAccumulator(c.name, c.args, nil, distinct)
				if err != nil {
					t.Skip(err)
				}
				acc.Resize(groups + 3) // groups without rows
				require.NoError(t, acc.Update(gids, args, nil))
				e, ok := acc.(IDEvaluator)
				if !ok {
					t.Skip("no IDEvaluator")
				}
				ids := []uint32{groups + 1, 5, 0, 5, groups - 1, 17, groups + 2}
				got, err := e.EvaluateIDs(mem, ids)
				if err == ErrNoIDEvaluator {
					t.Skip(err)
				}
				require.NoError(t, err)
				defer got.Release()
				all, err := acc.Evaluate(mem)
				require.NoError(t, err)
				defer all.Release()
				require.True(t, arrow.TypeEqual(all.DataType(), got.DataType()))
				require.Equal(t, len(ids), got.Len())
				for i, g := range ids {
					require.Equal(t, canon(valueAt(all, int(g))), canon(valueAt(got, i)), "group %d", g)
				}
			})
		}
	}
}
