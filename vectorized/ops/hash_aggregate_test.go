package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// refAgg computes the expected groups with Go maps.
func refAgg(rows [][]any, keys []int, calls []logical.AggCall, global bool) [][]any {
	type group struct {
		key  []any
		rows [][]any
	}
	groups := map[string]*group{}
	var order []string
	for _, r := range rows {
		k := make([]any, len(keys))
		for i, c := range keys {
			k[i] = r[c]
		}
		ks := fmt.Sprintf("%#v", k)
		g, ok := groups[ks]
		if !ok {
			g = &group{key: k}
			groups[ks] = g
			order = append(order, ks)
		}
		g.rows = append(g.rows, r)
	}
	if global && len(order) == 0 {
		groups[""] = &group{}
		order = append(order, "")
	}
	var out [][]any
	for _, ks := range order {
		g := groups[ks]
		row := append([]any{}, g.key...)
		for _, c := range calls {
			var vals []any
			seen := map[string]bool{}
			for _, r := range g.rows {
				if c.Filter >= 0 && r[c.Filter] != true {
					continue
				}
				if len(c.Args) == 0 {
					vals = append(vals, true)
					continue
				}
				v := r[c.Args[0]]
				if v == nil {
					continue
				}
				if c.Distinct {
					s := fmt.Sprint(v)
					if seen[s] {
						continue
					}
					seen[s] = true
				}
				vals = append(vals, v)
			}
			row = append(row, refCall(c.Name, vals))
		}
		out = append(out, row)
	}
	return out
}

func refCall(name string, vals []any) any {
	if name == "COUNT" {
		return int64(len(vals))
	}
	if len(vals) == 0 {
		return nil
	}
	switch name {
	case "SUM", "AVG":
		switch vals[0].(type) {
		case int64:
			s := int64(0)
			for _, v := range vals {
				s += v.(int64)
			}
			if name == "AVG" {
				return s / int64(len(vals))
			}
			return s
		case float64:
			s := 0.0
			for _, v := range vals {
				s += v.(float64)
			}
			if name == "AVG" {
				return s / float64(len(vals))
			}
			return s
		}
	case "MIN", "MAX":
		best := vals[0]
		for _, v := range vals[1:] {
			var less bool
			switch x := v.(type) {
			case int64:
				less = x < best.(int64)
			case float64:
				less = x < best.(float64)
			case string:
				less = x < best.(string)
			}
			if less == (name == "MIN") {
				best = v
			}
		}
		return best
	}
	panic("refCall: " + name)
}

func TestHashAggregate(t *testing.T) {
	in := types.Schema{
		{Name: "k", Type: types.BigIntT},
		{Name: "s", Type: types.StringT},
		{Name: "x", Type: types.BigIntT},
		{Name: "d", Type: types.DoubleT},
		{Name: "f", Type: types.BooleanT},
	}
	r := rand.New(rand.NewPCG(3, 4))
	var rows [][]any
	for i := 0; i < 6000; i++ {
		var f any = r.IntN(2) == 0
		if r.IntN(10) == 0 {
			f = nil
		}
		rows = append(rows, []any{randInt64(r, 40, 0.05), randString(r, 7, 0.1), randInt64(r, 1000, 0.1), randFloat(r, 64, 0.1), f})
	}
	call := func(name string, args []int, distinct bool, filter int, t types.Type) logical.AggCall {
		return logical.AggCall{Name: name, Args: args, Distinct: distinct, Filter: filter, T: t, Alias: name}
	}
	calls := []logical.AggCall{
		call("COUNT", nil, false, -1, types.BigIntT.WithNullable(false)),
		call("COUNT", []int{2}, false, -1, types.BigIntT.WithNullable(false)),
		call("SUM", []int{2}, false, -1, types.BigIntT),
		call("SUM", []int{3}, false, 4, types.DoubleT),
		call("MIN", []int{1}, false, -1, types.StringT),
		call("MAX", []int{2}, false, -1, types.BigIntT),
		call("AVG", []int{2}, false, -1, types.BigIntT),
		call("COUNT", []int{2}, true, -1, types.BigIntT.WithNullable(false)),
		call("COUNT", nil, false, 4, types.BigIntT.WithNullable(false)),
	}
	outFor := func(keys []int) types.Schema {
		var s types.Schema
		for _, k := range keys {
			s = append(s, in[k])
		}
		for _, c := range calls {
			s = append(s, types.Field{Name: c.Alias, Type: c.T})
		}
		return s
	}
	tests := []struct {
		name string
		keys []int
		rows [][]any
	}{
		{"by k", []int{0}, rows},
		{"by s, k", []int{1, 0}, rows},
		{"global", nil, rows},
		{"global, empty input", nil, nil},
		{"grouped, empty input", []int{0}, nil},
	}
	for _, tc := range tests {
		out := outFor(tc.keys)
		want := refAgg(tc.rows, tc.keys, calls, len(tc.keys) == 0)
		for _, bs := range batchSizes {
			op := NewHashAggregate(tc.keys, calls, in, mustArrow(t, out))
			got, err := runUnary(t, op, in, tc.rows, bs, out)
			require.NoError(t, err)
			requireRowsAlmostEqual(t, want, got, "%s, batch size %d", tc.name, bs)
		}
	}
}

// requireRowsAlmostEqual compares rows as multisets, with float sums
// rounded (batch splits change the summation order).
func requireRowsAlmostEqual(t *testing.T, want, got [][]any, msg string, args ...any) {
	t.Helper()
	round := func(rows [][]any) [][]any {
		out := make([][]any, len(rows))
		for i, r := range rows {
			out[i] = make([]any, len(r))
			for j, v := range r {
				if f, ok := v.(float64); ok {
					v = fmt.Sprintf("%.6g", f)
				}
				out[i][j] = v
			}
		}
		return out
	}
	require.Equal(t, canonRows(round(want)), canonRows(round(got)), append([]any{msg}, args...)...)
}

func TestHashAggregateManyGroups(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}}
	var rows [][]any
	for i := 0; i < 20000; i++ {
		rows = append(rows, []any{int64(i % 9000), int64(i)})
	}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1, T: out[1].Type}}
	got, err := runUnary(t, NewHashAggregate([]int{0}, calls, in, mustArrow(t, out)), in, rows, 4096, out)
	require.NoError(t, err)
	require.Len(t, got, 9000)
	require.Equal(t, canonRows(refAgg(rows, []int{0}, calls, false)), canonRows(got))
}

func TestSingleValue(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.StringT}}
	sv := logical.AggCall{Name: "SINGLE_VALUE", Args: []int{1}, Filter: -1, T: types.StringT}
	tests := []struct {
		name string
		keys []int
		rows [][]any
		want [][]any
		err  string
	}{
		{"no rows", nil, nil, [][]any{{nil}}, ""},
		{"one row", nil, [][]any{{int32(1), "a"}}, [][]any{{"a"}}, ""},
		{"one NULL row", nil, [][]any{{int32(1), nil}}, [][]any{{nil}}, ""},
		{"two rows", nil, [][]any{{int32(1), "a"}, {int32(2), "b"}}, nil, "SingleValueAggFunction received more than one element."},
		{"NULL and a row", nil, [][]any{{int32(1), nil}, {int32(2), "b"}}, nil, "SingleValueAggFunction received more than one element."},
		{"grouped", []int{0}, [][]any{{int32(1), "a"}, {int32(2), "b"}, {nil, "c"}}, [][]any{{int32(1), "a"}, {int32(2), "b"}, {nil, "c"}}, ""},
		{"grouped, duplicate", []int{0}, [][]any{{int32(1), "a"}, {int32(2), "b"}, {int32(1), "c"}}, nil, "more than one element"},
	}
	for _, tc := range tests {
		var out types.Schema
		for _, k := range tc.keys {
			out = append(out, in[k])
		}
		out = append(out, types.Field{Name: "v", Type: types.StringT})
		for _, bs := range batchSizes {
			got, err := runUnary(t, NewHashAggregate(tc.keys, []logical.AggCall{sv}, in, mustArrow(t, out)), in, tc.rows, bs, out)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err, tc.name)
				continue
			}
			require.NoError(t, err, tc.name)
			require.Equal(t, canonRows(tc.want), canonRows(got), "%s, batch size %d", tc.name, bs)
		}
	}
}

func TestHashAggregateUnsupported(t *testing.T) {
	in := types.Schema{{Name: "v", Type: types.StringT}}
	out := types.Schema{{Name: "x", Type: types.StringT}}
	calls := []logical.AggCall{{Name: "MEDIAN", Args: []int{0}, Filter: -1, T: types.StringT}}
	_, err := runUnary(t, NewHashAggregate(nil, calls, in, mustArrow(t, out)), in, nil, 0, out)
	require.ErrorContains(t, err, "not supported yet")
}

func TestHashAggregateKeyTypes(t *testing.T) {
	cnt := types.BigIntT.WithNullable(false)
	in := types.Schema{
		{Name: "ltz", Type: types.TimestampLTZOf(3)},
		{Name: "dec", Type: types.DecimalOf(10, 2)},
		{Name: "d", Type: types.DateT},
		{Name: "b", Type: types.BooleanT},
		{Name: "ts", Type: types.TimestampOf(6)},
		{Name: "f", Type: types.FloatT},
	}
	r := rand.New(rand.NewPCG(8, 8))
	var rows [][]any
	for i := 0; i < 500; i++ {
		row := []any{int64(r.IntN(3)) * 1000, decimal128.FromI64(int64(r.IntN(3))), int32(r.IntN(3)), r.IntN(2) == 0, int64(r.IntN(2)), float32(r.IntN(2))}
		if r.IntN(7) == 0 {
			row[r.IntN(len(row))] = nil
		}
		rows = append(rows, row)
	}
	for k := range in {
		keys := []int{k}
		out := types.Schema{in[k], {Name: "c", Type: cnt}}
		calls := []logical.AggCall{{Name: "COUNT", Filter: -1, T: cnt}}
		want := refAgg(rows, keys, calls, false)
		for _, bs := range batchSizes {
			got, err := runUnary(t, NewHashAggregate(keys, calls, in, mustArrow(t, out)), in, rows, bs, out)
			require.NoError(t, err, in[k].Name)
			require.Equal(t, canonRows(want), canonRows(got), "%s, batch size %d", in[k].Name, bs)
		}
	}
	// All columns at once go through the generic table.
	keys := []int{0, 1, 2, 3, 4, 5}
	out := append(append(types.Schema{}, in...), types.Field{Name: "c", Type: cnt})
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1, T: cnt}}
	got, err := runUnary(t, NewHashAggregate(keys, calls, in, mustArrow(t, out)), in, rows, 3, out)
	require.NoError(t, err)
	require.Equal(t, canonRows(refAgg(rows, keys, calls, false)), canonRows(got))
}
