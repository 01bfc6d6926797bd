package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// TestHashCodeKernel compares the HASH_CODE kernel with the reference
// implementation (logical.Eval) over every column type of testSchema,
// NULLs included, and over a sliced batch.
func TestHashCodeKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rec := buildRec(t, testSchema, randRows(r, testSchema, 300, 20))
	defer rec.Release()
	for i := range testSchema {
		t.Run(testSchema[i].Name, func(t *testing.T) {
			e := mustCall(t, "HASH_CODE", col(i))
			require.Equal(t, types.IntT.WithNullable(testSchema[i].Type.Nullable()), e.Type())
			checkAgainstOracle(t, e, testSchema, rec)
			sl := rec.NewSlice(17, 250)
			defer sl.Release()
			checkAgainstOracle(t, e, testSchema, sl)
		})
	}
}

func TestHashCodeValues(t *testing.T) {
	dbl := types.Schema{{Name: "x", Type: types.DoubleT}}
	str := types.Schema{{Name: "x", Type: types.StringT}}
	tests := []struct {
		name string
		s    types.Schema
		rows [][]any
		// same lists pairs of rows with equal hashes; diff pairs with
		// different ones; null rows whose hash is NULL.
		same, diff [][2]int
		null       []int
	}{
		{"doubles", dbl, [][]any{{0.0}, {math.Copysign(0, -1)}, {math.NaN()}, {math.Float64frombits(0x7ff8000000000009)}, {1.0}, {nil}},
			[][2]int{{0, 1}, {2, 3}}, [][2]int{{0, 4}, {0, 2}}, []int{5}},
		{"strings", str, [][]any{{"a"}, {"b"}, {"a"}, {nil}, {""}},
			[][2]int{{0, 2}}, [][2]int{{0, 1}, {0, 4}}, []int{3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := buildRec(t, tc.s, tc.rows)
			defer rec.Release()
			e := mustCall(t, "HASH_CODE", &logical.ColumnRef{Index: 0, Name: "x", T: tc.s[0].Type})
			ev, err := Compile(e, tc.s, testReg, testCtx)
			require.NoError(t, err)
			hash := func() *array.Int32 {
				a, err := ev.Eval(rec)
				require.NoError(t, err)
				h, ok := a.(*array.Int32)
				require.True(t, ok, "%T", a)
				return h
			}
			h, again := hash(), hash()
			defer h.Release()
			defer again.Release()
			require.Equal(t, h.Int32Values(), again.Int32Values(), "deterministic")
			for _, p := range tc.same {
				require.Equal(t, h.Value(p[0]), h.Value(p[1]), "rows %v", p)
			}
			for _, p := range tc.diff {
				require.NotEqual(t, h.Value(p[0]), h.Value(p[1]), "rows %v", p)
			}
			for i := 0; i < h.Len(); i++ {
				isNull := false
				for _, n := range tc.null {
					isNull = isNull || n == i
				}
				require.Equal(t, isNull, h.IsNull(i), "row %d", i)
				if !isNull {
					require.GreaterOrEqual(t, h.Value(i), int32(0), "row %d", i)
				}
			}
		})
	}
}
