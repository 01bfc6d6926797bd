package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// change is one changelog row: a kind and the row's values.
type change struct {
	kind changelog.RowKind
	row  []any
}

func (c change) String() string { return fmt.Sprintf("%s%v", c.kind, c.row) }

func changeStrings(cs []change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

// runChangelog feeds a changelog to a fresh operator in batches of bs rows
// (0: one batch) and returns the output changelog.
func runChangelog(t *testing.T, op vectorized.Operator, in types.Schema, input []change, bs int, out types.Schema) ([]change, error) {
	t.Helper()
	ctx := context.Background()
	c := &collector{}
	if err := op.Open(ctx); err != nil {
		return nil, err
	}
	defer func() { require.NoError(t, op.Close()) }()
	if bs == 0 {
		bs = max(len(input), 1)
	}
	for lo := 0; lo < len(input); lo += bs {
		hi := min(lo+bs, len(input))
		rows := make([][]any, 0, hi-lo)
		kinds := make([]changelog.RowKind, 0, hi-lo)
		for _, ch := range input[lo:hi] {
			rows = append(rows, ch.row)
			kinds = append(kinds, ch.kind)
		}
		rec, err := types.BuildRecord(vectorized.Mem, in, rows)
		require.NoError(t, err)
		if err := op.Process(ctx, vectorized.Batch{Rec: rec, Kinds: kinds}, c); err != nil {
			return nil, err
		}
	}
	if err := op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c); err != nil {
		return nil, err
	}
	var res []change
	for _, b := range c.batches {
		for i, r := range types.RecordRows(b.Rec, out) {
			res = append(res, change{kind: b.Kind(i), row: r})
		}
	}
	return res, nil
}

func inserts(rows ...[]any) []change {
	out := make([]change, len(rows))
	for i, r := range rows {
		out[i] = change{changelog.Insert, r}
	}
	return out
}

var (
	kvSchema = types.Schema{{Name: "k", Type: types.StringT}, {Name: "v", Type: types.IntT}}
	ib       = changelog.Insert
	ub       = changelog.UpdateBefore
	ua       = changelog.UpdateAfter
	del      = changelog.Delete
)

func aggCall(name string, distinct bool, args ...int) logical.AggCall {
	return logical.AggCall{Name: name, Args: args, Distinct: distinct, Filter: -1, Alias: name}
}

func TestGroupAggregateChangelog(t *testing.T) {
	count := aggCall("COUNT", false)
	sum := aggCall("SUM", false, 1)
	maxV := aggCall("MAX", false, 1)
	minV := aggCall("MIN", false, 1)
	avg := aggCall("AVG", false, 1)
	countD := aggCall("COUNT", true, 1)
	outOf := func(names ...string) types.Schema {
		s := types.Schema{{Name: "k", Type: types.StringT}}
		for _, n := range names {
			typ := types.IntT
			if n == "cnt" {
				typ = types.BigIntT.WithNullable(false)
			}
			s = append(s, types.Field{Name: n, Type: typ})
		}
		return s
	}
	tests := []struct {
		name    string
		keys    []int
		calls   []logical.AggCall
		out     types.Schema
		opts    GroupAggregateOptions
		input   []change
		want    []string
		wantErr string
	}{
		{
			name: "sum per key", keys: []int{0}, calls: []logical.AggCall{sum}, out: outOf("s"),
			input: inserts([]any{"a", int32(1)}, []any{"b", int32(2)}, []any{"a", int32(3)}),
			want:  []string{"+I[a 1]", "+I[b 2]", "-U[a 1]", "+U[a 4]"},
		},
		{
			name: "no-change update suppressed", keys: []int{0}, calls: []logical.AggCall{maxV}, out: outOf("m"),
			input: inserts([]any{"a", int32(5)}, []any{"a", int32(3)}, []any{"a", int32(7)}),
			want:  []string{"+I[a 5]", "-U[a 5]", "+U[a 7]"},
		},
		{
			name: "no-change update emitted with state TTL", keys: []int{0}, calls: []logical.AggCall{maxV}, out: outOf("m"),
			opts:  GroupAggregateOptions{StateTTL: 24 * time.Hour},
			input: inserts([]any{"a", int32(5)}, []any{"a", int32(3)}),
			want:  []string{"+I[a 5]", "-U[a 5]", "+U[a 5]"},
		},
		{
			name: "without update before", keys: []int{0}, calls: []logical.AggCall{sum}, out: outOf("s"),
			opts:  GroupAggregateOptions{NoUpdateBefore: true},
			input: inserts([]any{"a", int32(1)}, []any{"a", int32(3)}),
			want:  []string{"+I[a 1]", "+U[a 4]"},
		},
		{
			name: "NULL arguments", keys: []int{0}, calls: []logical.AggCall{count, aggCall("COUNT", false, 1), sum}, out: outOf("cnt", "cnt", "s"),
			input: inserts([]any{"a", nil}, []any{"a", int32(2)}, []any{"a", nil}),
			want:  []string{"+I[a 1 0 <nil>]", "-U[a 1 0 <nil>]", "+U[a 2 1 2]", "-U[a 2 1 2]", "+U[a 3 1 2]"},
		},
		{
			name: "distinct", keys: []int{0}, calls: []logical.AggCall{count, countD}, out: outOf("cnt", "cnt"),
			input: inserts([]any{"a", int32(1)}, []any{"a", int32(1)}, []any{"a", int32(2)}),
			want:  []string{"+I[a 1 1]", "-U[a 1 1]", "+U[a 2 1]", "-U[a 2 1]", "+U[a 3 2]"},
		},
		{
			name: "global aggregate", calls: []logical.AggCall{count}, out: types.Schema{{Name: "cnt", Type: types.BigIntT.WithNullable(false)}},
			input: inserts([]any{"a", int32(1)}, []any{"b", int32(2)}, []any{"c", int32(3)}),
			want:  []string{"+I[1]", "-U[1]", "+U[2]", "-U[2]", "+U[3]"},
		},
		{
			name: "global aggregate over nothing", calls: []logical.AggCall{count}, out: types.Schema{{Name: "cnt", Type: types.BigIntT.WithNullable(false)}},
			want: []string{},
		},
		{
			name: "retractions", keys: []int{0}, calls: []logical.AggCall{count, sum, maxV, minV, avg}, out: outOf("cnt", "s", "mx", "mn", "av"),
			opts: GroupAggregateOptions{Retract: true},
			input: []change{
				{ib, []any{"a", int32(1)}},
				{ib, []any{"a", int32(2)}},
				{ub, []any{"b", int32(9)}}, // no state for b: ignored
				{del, []any{"a", int32(2)}},
				{del, []any{"a", int32(1)}},
				{ib, []any{"a", int32(5)}},
				{ua, []any{"a", int32(8)}},
				{ub, []any{"a", int32(8)}},
			},
			want: []string{
				"+I[a 1 1 1 1 1]",
				"-U[a 1 1 1 1 1]", "+U[a 2 3 2 1 1]",
				"-U[a 2 3 2 1 1]", "+U[a 1 1 1 1 1]",
				"-D[a 1 1 1 1 1]",
				"+I[a 1 5 5 5 5]",
				"-U[a 1 5 5 5 5]", "+U[a 2 13 8 5 6]",
				"-U[a 2 13 8 5 6]", "+U[a 1 5 5 5 5]",
			},
		},
		{
			name: "single value", keys: []int{0}, calls: []logical.AggCall{aggCall("SINGLE_VALUE", false, 1)}, out: outOf("v"),
			opts:  GroupAggregateOptions{Retract: true},
			input: []change{{ib, []any{"a", int32(1)}}, {del, []any{"a", int32(1)}}, {ib, []any{"a", nil}}, {ib, []any{"b", int32(2)}}},
			want:  []string{"+I[a 1]", "-D[a 1]", "+I[a <nil>]", "+I[b 2]"},
		},
		{
			name: "single value of two rows", keys: []int{0}, calls: []logical.AggCall{aggCall("SINGLE_VALUE", false, 1)}, out: outOf("v"),
			input:   inserts([]any{"a", nil}, []any{"a", int32(2)}),
			wantErr: "SingleValueAggFunction received more than one element.",
		},
		{
			name: "retraction into an insert-only plan", keys: []int{0}, calls: []logical.AggCall{count}, out: outOf("cnt"),
			input:   []change{{ib, []any{"a", int32(1)}}, {del, []any{"a", int32(1)}}},
			wantErr: "insert-only",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, bs := range batchSizes {
				op := NewGroupAggregate(tc.keys, tc.calls, kvSchema, mustArrow(t, tc.out), tc.opts)
				got, err := runChangelog(t, op, kvSchema, tc.input, bs, tc.out)
				if tc.wantErr != "" {
					require.ErrorContains(t, err, tc.wantErr)
					continue
				}
				require.NoError(t, err)
				require.Equal(t, tc.want, changeStrings(got), "batch size %d", bs)
			}
		})
	}
}

// materialize applies a changelog to a multiset of rows and returns the
// rows left, sorted by their printed form.
func materialize(t *testing.T, cs []change) []string {
	t.Helper()
	m := map[string]int{}
	for _, c := range cs {
		k := fmt.Sprintf("%v", c.row)
		if c.kind.IsRetraction() {
			require.Positive(t, m[k], "retraction of a row that is not there: %s", c)
			m[k]--
			if m[k] == 0 {
				delete(m, k)
			}
			continue
		}
		m[k]++
	}
	var out []string
	for k, n := range m {
		for range n {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestGroupAggregateOracle checks on random changelogs that the streaming
// result, materialized, equals the batch aggregate of the rows that were
// not retracted, and that every batch size gives the same changelog.
func TestGroupAggregateOracle(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	calls := []logical.AggCall{
		aggCall("COUNT", false), aggCall("COUNT", false, 1), aggCall("SUM", false, 1),
		aggCall("MIN", false, 1), aggCall("MAX", false, 2), aggCall("COUNT", true, 2),
	}
	out := types.Schema{{Name: "k", Type: types.IntT}, {Name: "c", Type: types.BigIntT}, {Name: "cv", Type: types.BigIntT},
		{Name: "s", Type: types.BigIntT}, {Name: "mn", Type: types.BigIntT}, {Name: "mx", Type: types.StringT}, {Name: "cd", Type: types.BigIntT}}
	for _, retract := range []bool{false, true} {
		for seed := uint64(1); seed <= 5; seed++ {
			r := rand.New(rand.NewPCG(seed, 7))
			var input []change
			var live [][]any
			for range 500 {
				if retract && len(live) > 0 && r.IntN(3) == 0 {
					j := r.IntN(len(live))
					kind := del
					if r.IntN(2) == 0 {
						kind = ub
					}
					input = append(input, change{kind, live[j]})
					live = append(live[:j], live[j+1:]...)
					continue
				}
				row := []any{int32(r.IntN(8)), int64(r.IntN(20) - 5), fmt.Sprintf("s%d", r.IntN(6))}
				if r.IntN(10) == 0 {
					row[1] = nil
				}
				if r.IntN(10) == 0 {
					row[2] = nil
				}
				if r.IntN(12) == 0 {
					row[0] = nil
				}
				kind := ib
				if retract && r.IntN(4) == 0 {
					kind = ua
				}
				input = append(input, change{kind, row})
				live = append(live, row)
			}
			var first []string
			for _, bs := range []int{1, 3, 4096} {
				op := NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{Retract: retract})
				got, err := runChangelog(t, op, in, input, bs, out)
				require.NoError(t, err)
				if first == nil {
					first = changeStrings(got)
					want := refAgg(live, []int{0}, calls, false)
					wantS := make([]string, len(want))
					for i, w := range want {
						wantS[i] = fmt.Sprintf("%v", w)
					}
					sort.Strings(wantS)
					require.Equal(t, wantS, materialize(t, got), "seed %d retract %v", seed, retract)
					continue
				}
				require.Equal(t, first, changeStrings(got), "seed %d batch size %d", seed, bs)
			}
		}
	}
}
