package ops

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// refCompare orders two canonical values of one type (both non-NULL).
func refCompare(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case int32:
		return cmp.Compare(x, b.(int32))
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		return cmp.Compare(boolInt(x), boolInt(b.(bool)))
	case float64:
		y := b.(float64)
		switch {
		case math.IsNaN(x) && math.IsNaN(y):
			return 0
		case math.IsNaN(x):
			return 1
		case math.IsNaN(y):
			return -1
		case x == 0 && y == 0:
			return cmp.Compare(boolInt(!math.Signbit(x)), boolInt(!math.Signbit(y)))
		}
		return cmp.Compare(x, y)
	}
	panic("refCompare")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func refSort(rows [][]any, keys []logical.SortKey) [][]any {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(x, y []any) int {
		for _, k := range keys {
			a, b := x[k.Index], y[k.Index]
			var c int
			switch {
			case a == nil && b == nil:
			case a == nil:
				c = 1
				if k.NullsFirst {
					c = -1
				}
			case b == nil:
				c = -1
				if k.NullsFirst {
					c = 1
				}
			default:
				c = refCompare(a, b)
				if k.Desc {
					c = -c
				}
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

func sortData() (types.Schema, [][]any) {
	s := types.Schema{
		{Name: "i", Type: types.BigIntT},
		{Name: "s", Type: types.StringT},
		{Name: "f", Type: types.DoubleT},
		{Name: "ts", Type: types.TimestampOf(3)},
		{Name: "b", Type: types.BooleanT},
		{Name: "seq", Type: types.IntT},
	}
	r := rand.New(rand.NewPCG(5, 6))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -1.5, 2.25}
	var rows [][]any
	for i := 0; i < 1500; i++ {
		var f any = specials[r.IntN(len(specials))]
		if r.IntN(8) == 0 {
			f = nil
		}
		var ts any = int64(r.IntN(50)) * 1_000_000
		if r.IntN(8) == 0 {
			ts = nil
		}
		var b any = r.IntN(2) == 0
		if r.IntN(8) == 0 {
			b = nil
		}
		rows = append(rows, []any{randInt64(r, 20, 0.1), randString(r, 15, 0.1), f, ts, b, int32(i)})
	}
	return s, rows
}

// canonFloats prints NaN and -0 so that require.Equal compares them.
func canonFloats(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
		for j, v := range r {
			if f, ok := v.(float64); ok && (math.IsNaN(f) || f == 0) {
				out[i][j] = fmt.Sprintf("float(%v, sign %v)", f, math.Signbit(f))
			}
		}
	}
	return out
}

func TestSort(t *testing.T) {
	s, rows := sortData()
	tests := []struct {
		name string
		keys []logical.SortKey
	}{
		{"int asc nulls first", []logical.SortKey{{Index: 0, NullsFirst: true}}},
		{"int desc nulls last", []logical.SortKey{{Index: 0, Desc: true}}},
		{"string asc nulls last", []logical.SortKey{{Index: 1}}},
		{"string desc nulls first, int", []logical.SortKey{{Index: 1, Desc: true, NullsFirst: true}, {Index: 0}}},
		{"float asc (NaN last, -0 < 0)", []logical.SortKey{{Index: 2, NullsFirst: true}}},
		{"float desc", []logical.SortKey{{Index: 2, Desc: true}}},
		{"timestamp desc nulls first", []logical.SortKey{{Index: 3, Desc: true, NullsFirst: true}}},
		{"bool, timestamp", []logical.SortKey{{Index: 4}, {Index: 3}}},
	}
	for _, tc := range tests {
		want := refSort(rows, tc.keys)
		for _, bs := range batchSizes {
			got, err := runUnary(t, NewSort(tc.keys, mustArrow(t, s)), s, rows, bs, s)
			require.NoError(t, err)
			require.Equal(t, canonFloats(want), canonFloats(got), "%s, batch size %d", tc.name, bs)
			for _, lim := range []struct{ offset, fetch int64 }{{0, 10}, {5, 100}, {1490, 50}, {10, -1}, {0, 0}} {
				got, err := runUnary(t, NewSortLimit(tc.keys, mustArrow(t, s), lim.offset, lim.fetch), s, rows, bs, s)
				require.NoError(t, err)
				hi := int64(len(want))
				if lim.fetch >= 0 {
					hi = min(hi, lim.offset+lim.fetch)
				}
				w := want[min(lim.offset, int64(len(want))):hi]
				if len(w) == 0 {
					w = nil
				}
				require.Equal(t, canonFloats(w), canonFloats(got), "%s, batch size %d, offset %d fetch %d", tc.name, bs, lim.offset, lim.fetch)
			}
		}
	}
}

func TestSortLimitPrunes(t *testing.T) {
	s := types.Schema{{Name: "i", Type: types.BigIntT}}
	var rows [][]any
	for i := 0; i < 100_000; i++ {
		rows = append(rows, []any{int64((i * 7919) % 100_000)})
	}
	op := NewSortLimit([]logical.SortKey{{Index: 0, Desc: true}}, mustArrow(t, s), 1, 3)
	got, err := runUnary(t, op, s, rows, 4096, s)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(99998)}, {int64(99997)}, {int64(99996)}}, got)
}

func TestSortUnsupportedKey(t *testing.T) {
	s := types.Schema{{Name: "a", Type: types.ArrayOf(types.IntT)}}
	_, err := runUnary(t, NewSort([]logical.SortKey{{Index: 0}}, mustArrow(t, s)), s, [][]any{{[]any{int32(1)}}, {nil}}, 0, s)
	require.ErrorContains(t, err, "not supported yet: comparing values")
}

// TestSortLimitThreshold feeds enough rows for the Top-N threshold to be
// set and used, with many ties and NULLs on the first key, and checks the
// result against the reference sort.
func TestSortLimitThreshold(t *testing.T) {
	s := types.Schema{
		{Name: "i", Type: types.BigIntT},
		{Name: "f", Type: types.DoubleT},
		{Name: "seq", Type: types.IntT},
		{Name: "n", Type: types.BigIntT}, // no NULLs: the integer fast path
	}
	r := rand.New(rand.NewPCG(7, 8))
	var rows [][]any
	for i := 0; i < 30_000; i++ {
		var f any = float64(r.IntN(300)) / 4
		if r.IntN(50) == 0 {
			f = nil
		}
		rows = append(rows, []any{randInt64(r, 40, 0.02), f, int32(r.IntN(1000)), int64(r.IntN(60)) - 30})
	}
	tests := [][]logical.SortKey{
		{{Index: 0, Desc: true}},
		{{Index: 0, Desc: true, NullsFirst: true}},
		{{Index: 0}, {Index: 2, Desc: true}},
		{{Index: 1, NullsFirst: true}, {Index: 2}},
		{{Index: 1, Desc: true}, {Index: 0}},
		{{Index: 3, Desc: true}, {Index: 2}},
		{{Index: 3}, {Index: 2, Desc: true}},
	}
	for _, keys := range tests {
		want := refSort(rows, keys)
		for _, bs := range []int{977, 4096} {
			for _, lim := range []struct{ offset, fetch int64 }{{0, 10}, {3, 7}, {100, 50}, {0, 1}} {
				got, err := runUnary(t, NewSortLimit(keys, mustArrow(t, s), lim.offset, lim.fetch), s, rows, bs, s)
				require.NoError(t, err)
				require.Equal(t, want[lim.offset:lim.offset+lim.fetch], got, "keys %v, batch size %d, offset %d fetch %d", keys, bs, lim.offset, lim.fetch)
			}
		}
	}
}
