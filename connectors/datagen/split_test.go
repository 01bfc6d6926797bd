package datagen

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
)

// wideSchema has every scalar type, nested types, a sequence and a
// sequence BOOLEAN (random); clock columns are blanked by rowStrings.
var wideSchema = append(append(types.Schema{}, allScalars...),
	types.Field{Name: "a", Type: types.ArrayOf(types.IntT)},
	types.Field{Name: "m", Type: types.MapOf(types.VarCharOf(3), types.DoubleT)},
	types.Field{Name: "r", Type: types.RowOf(types.Field{Name: "x", Type: types.TinyIntT}, types.Field{Name: "y", Type: types.BooleanT})},
	types.Field{Name: "sq", Type: types.BigIntT}, types.Field{Name: "sb", Type: types.BooleanT})

var wideOpts = map[string]string{
	"fields.i.null-rate": "0.3", "fields.vc.var-len": "true", "fields.vb.var-len": "true", "fields.s.null-rate": "0.5",
	"fields.s.length": "5", "fields.vb.length": "6",
	"fields.d.null-rate": "0.2", "fields.bi.min": "-5", "fields.bi.max": "1000", "fields.r.null-rate": "0.2",
	"fields.a.element.null-rate": "0.4", "fields.sq.kind": "sequence", "fields.sq.start": "7", "fields.sq.end": "100000",
	"fields.sb.kind": "sequence", "fields.b.null-rate": "0.5", "fields.ts.max-past": "1000", "fields.ltz.null-rate": "0.1",
	"fields.iym.null-rate": "0.1",
}

func withRows(opts map[string]string, n int) map[string]string {
	out := map[string]string{"number-of-rows": strconv.Itoa(n)}
	for k, v := range opts {
		out[k] = v
	}
	return out
}

// clockCols are the columns of wideSchema (and allScalars) read from the
// clock.
var clockCols = map[string]bool{"dt": true, "tm": true, "ts": true, "ltz": true}

// rowStrings formats rows with the clock columns blanked.
func rowStrings(schema types.Schema, rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		for c := range r {
			if clockCols[schema[c].Name] {
				r[c] = nil
			}
		}
		out[i] = fmt.Sprint(r...)
	}
	return out
}

// runSplit runs split index of count and returns its rows.
func runSplit(t *testing.T, opts map[string]string, schema types.Schema, batch, index, count int) [][]any {
	t.Helper()
	src, err := NewSource("t", opts, schema, nil, batch, true, time.UTC)
	require.NoError(t, err)
	require.NoError(t, src.SetSplit(index, count))
	require.NoError(t, src.Open(context.Background()))
	c := &collect{schema: schema}
	require.NoError(t, src.Run(context.Background(), c))
	return c.rows
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// TestSplitsMakeTheSameRows: at every parallelism and batch size the
// splits together make exactly the rows of a single source, the sequence
// increasing within each split.
func TestSplitsMakeTheSameRows(t *testing.T) {
	sq := len(wideSchema) - 2
	for _, n := range []int{0, 1, 5, 100, 1001} {
		opts := withRows(wideOpts, n)
		want := rowStrings(wideSchema, runSplit(t, opts, wideSchema, 7, 0, 1))
		require.Len(t, want, n)
		for _, p := range []int{1, 2, 3, 4} {
			for _, batch := range []int{1, 7, 64} {
				var got []string
				for k := range p {
					rows := runSplit(t, opts, wideSchema, batch, k, p)
					for i := 1; i < len(rows); i++ {
						require.Less(t, rows[i-1][sq].(int64), rows[i][sq].(int64))
					}
					got = append(got, rowStrings(wideSchema, rows)...)
				}
				require.Equal(t, len(want), len(got), "n=%d p=%d batch=%d", n, p, batch)
				if n > 0 {
					require.Equal(t, sorted(want), sorted(got), "n=%d p=%d batch=%d", n, p, batch)
				}
				if p == 1 && n > 0 {
					require.Equal(t, want, got, "n=%d batch=%d: the single source's order", n, batch)
				}
			}
		}
	}
}

// TestSequenceSplits: every value of a sequence exactly once, the shares
// summing to the rows, whether number-of-rows or the sequence ends the
// source, for sizes not divisible by the parallelism.
func TestSequenceSplits(t *testing.T) {
	schema := types.Schema{{Name: "id", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	cases := []struct {
		opts map[string]string
		want int
	}{
		{map[string]string{"fields.id.kind": "sequence", "fields.id.start": "-3", "fields.id.end": "996",
			"fields.s.kind": "sequence", "fields.s.start": "0", "fields.s.end": "5000"}, 1000},
		{map[string]string{"fields.id.kind": "sequence", "fields.id.start": "1", "fields.id.end": "1001",
			"fields.s.kind": "sequence", "fields.s.start": "4", "fields.s.end": "1004"}, 1001},
		{map[string]string{"number-of-rows": "777", "fields.id.kind": "sequence", "fields.id.start": "-3", "fields.id.end": "996",
			"fields.s.kind": "sequence", "fields.s.start": "0", "fields.s.end": "5000"}, 777},
		{map[string]string{"number-of-rows": "2", "fields.id.kind": "sequence", "fields.id.start": "10", "fields.id.end": "20"}, 2},
	}
	for ci, tc := range cases {
		start, err := strconv.ParseInt(tc.opts["fields.id.start"], 10, 64)
		require.NoError(t, err)
		sstart, _ := strconv.ParseInt(tc.opts["fields.s.start"], 10, 64)
		for _, p := range []int{1, 2, 3, 4, 7} {
			for _, batch := range []int{1, 10, 64, 4096} {
				seen := map[int64]int{}
				total := 0
				for k := range p {
					rows := runSplit(t, tc.opts, schema, batch, k, p)
					total += len(rows)
					for _, r := range rows {
						id := r[0].(int64)
						seen[id]++
						if tc.opts["fields.s.kind"] == "sequence" {
							// the row's values agree: both start + i
							require.Equal(t, strconv.FormatInt(id-start+sstart, 10), r[1], "case %d", ci)
						}
					}
				}
				require.Equal(t, tc.want, total, "case %d p=%d batch=%d", ci, p, batch)
				for i := range int64(tc.want) {
					require.Equal(t, 1, seen[start+i], "case %d p=%d batch=%d value %d", ci, p, batch, start+i)
				}
			}
		}
	}
}

// TestSplitShares: 'number-of-rows' is the total, dealt in chunks of the
// batch size.
func TestSplitShares(t *testing.T) {
	schema := types.Schema{{Name: "i", Type: types.IntT}}
	opts := map[string]string{"number-of-rows": "25"}
	var shares []int
	for k := range 3 {
		shares = append(shares, len(runSplit(t, opts, schema, 4, k, 3)))
	}
	// chunks of 4 rows (the last of 1): split 0 makes chunks 0, 3 and 6, split 1 chunks 1 and 4, split 2 chunks 2 and 5
	require.Equal(t, []int{9, 8, 8}, shares)
	src, err := NewSource("t", opts, schema, nil, 4, true, time.UTC)
	require.NoError(t, err)
	require.Error(t, src.SetSplit(3, 3))
	require.Error(t, src.SetSplit(-1, 3))
	require.Error(t, src.SetSplit(0, 0))
}

// TestSplitRate: 'rows-per-second' is the total rate; each split paces at
// its share.
func TestSplitRate(t *testing.T) {
	schema := types.Schema{{Name: "i", Type: types.IntT}}
	opts := map[string]string{"number-of-rows": "1000", "rows-per-second": "4000"}
	start := time.Now()
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src, err := NewSource("t", opts, schema, nil, 0, false, time.UTC)
			if err != nil {
				panic(err)
			}
			if err := src.SetSplit(k, 2); err != nil {
				panic(err)
			}
			c := &collect{schema: schema}
			if err := src.Run(context.Background(), c); err != nil {
				panic(err)
			}
			counts[k] = len(c.rows)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	require.Equal(t, 1000, counts[0]+counts[1])
	// 1000 rows at 4000 rows/s in total: about a quarter of a second
	// (not an eighth, as two splits each at the full rate would take).
	require.Greater(t, took, 200*time.Millisecond)
	require.Less(t, took, 2*time.Second)
}

// splitRun runs split index of count, restored from ck if not nil; with
// stop > 0 it snapshots into snap at the stop-th batch and fails there.
func splitRun(t *testing.T, opts map[string]string, schema types.Schema, batch, index, count int, ck *statetest.Checkpoint, stop int, snap *statetest.Checkpoint) []string {
	t.Helper()
	src, err := NewSource("t", opts, schema, nil, batch, true, time.UTC)
	require.NoError(t, err)
	require.NoError(t, src.SetSplit(index, count))
	require.NoError(t, src.Open(context.Background()))
	if ck != nil {
		require.NoError(t, src.RestorePosition(ck.Reader(index, count)))
	}
	c := &statetest.StopCollector{Stop: stop}
	if snap != nil {
		w := snap.Writer()
		c.Snapshot = func() error { return src.SnapshotPosition(w) }
	}
	err = src.Run(context.Background(), c)
	if stop > 0 && len(c.Batches) == stop {
		require.ErrorIs(t, err, statetest.ErrStop)
	} else {
		require.NoError(t, err)
		if snap != nil {
			// a finished split gives its final position
			require.NoError(t, src.SnapshotPosition(snap.Writer()))
		}
	}
	var rows [][]any
	for _, b := range c.Batches {
		rows = append(rows, types.RecordRows(b.Rec, schema)...)
	}
	return rowStrings(schema, rows)
}

// TestSplitPositions: every split snapshots and restores its own
// position. At the same parallelism each split resumes exactly; at
// another parallelism (or batch size) the new splits make exactly the
// rows no former split had emitted, also after a second rescale.
func TestSplitPositions(t *testing.T) {
	opts := withRows(wideOpts, 300)
	want := sorted(splitRun(t, opts, wideSchema, 8, 0, 1, nil, 0, nil))
	require.Len(t, want, 300)
	type layout struct{ p, batch int }
	plans := [][]layout{
		{{2, 8}, {2, 8}},         // same parallelism
		{{3, 8}, {3, 8}, {3, 8}}, // twice
		{{2, 8}, {3, 8}},         // scale up
		{{3, 8}, {1, 8}},         // scale down
		{{1, 8}, {2, 8}},         // from a single instance
		{{2, 8}, {3, 5}, {2, 7}}, // rescale twice, other batch sizes
		{{4, 3}, {1, 8}, {4, 3}},
	}
	for _, plan := range plans {
		for _, stop := range []int{1, 3, 7} {
			name := fmt.Sprintf("%v stop %d", plan, stop)
			var got []string
			var ck *statetest.Checkpoint
			for i, l := range plan {
				last := i == len(plan)-1
				next := &statetest.Checkpoint{}
				for k := range l.p {
					st := stop
					if last {
						st = 0
					}
					got = append(got, splitRun(t, opts, wideSchema, l.batch, k, l.p, ck, st, next)...)
				}
				ck = next
			}
			require.Equal(t, want, sorted(got), name)
		}
	}
}

// TestSplitPositionSameParallelismResumes: at the same parallelism a
// split continues exactly where it stopped (its rows in order).
func TestSplitPositionSameParallelismResumes(t *testing.T) {
	opts := withRows(wideOpts, 200)
	for k := range 3 {
		full := splitRun(t, opts, wideSchema, 4, k, 3, nil, 0, nil)
		ck := &statetest.Checkpoint{}
		var first []string
		for j := range 3 {
			rows := splitRun(t, opts, wideSchema, 4, j, 3, nil, 2, ck)
			if j == k {
				first = rows
			}
		}
		rest := splitRun(t, opts, wideSchema, 4, k, 3, ck, 0, nil)
		require.Equal(t, full, append(first, rest...), "split %d", k)
	}
}
