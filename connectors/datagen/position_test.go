package datagen

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
	"github.com/tablerun/tablerun/vectorized"
)

func TestDatagenPosition(t *testing.T) {
	schema := types.Schema{
		{Name: "id", Type: types.BigIntT}, {Name: "i", Type: types.IntT}, {Name: "vc", Type: types.VarCharOf(12)},
		{Name: "d", Type: types.DoubleT}, {Name: "dec", Type: types.DecimalOf(10, 3)}, {Name: "b", Type: types.BooleanT},
		{Name: "arr", Type: types.ArrayOf(types.IntT)}, {Name: "r", Type: types.RowOf(types.Field{Name: "x", Type: types.StringT})},
		{Name: "seqs", Type: types.StringT},
	}
	opts := map[string]string{
		"number-of-rows":      "500",
		"fields.id.kind":      "sequence",
		"fields.id.start":     "10",
		"fields.id.end":       "100000",
		"fields.i.null-rate":  "0.3",
		"fields.vc.var-len":   "true",
		"fields.arr.length":   "2",
		"fields.seqs.kind":    "sequence",
		"fields.seqs.start":   "1",
		"fields.seqs.end":     "1000",
		"fields.r.x.length":   "3",
		"fields.r.null-rate":  "0.2",
		"fields.dec.max":      "50",
		"fields.b.null-rate":  "0.1",
		"fields.d.min":        "-1",
		"fields.d.max":        "1",
		"fields.vc.null-rate": "0.1",
	}
	tests := []struct {
		name string
		proj []int
	}{
		{"all columns", nil},
		{"projected", []int{8, 2, 0}},
		{"no columns", []int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := schema
			if tc.proj != nil {
				out = nil
				for _, p := range tc.proj {
					out = append(out, schema[p])
				}
			}
			run := func(ck *statetest.Checkpoint, stop int, snap *statetest.Checkpoint) []string {
				t.Helper()
				src, err := NewSource("t", opts, schema, tc.proj, 32, true, time.UTC)
				require.NoError(t, err)
				require.NoError(t, src.Open(context.Background()))
				if ck != nil {
					require.NoError(t, src.RestorePosition(ck.Reader(0, 1)))
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
				}
				var rows []string
				for _, b := range c.Batches {
					for _, r := range types.RecordRows(b.Rec, out) {
						rows = append(rows, fmt.Sprint(r))
					}
				}
				return rows
			}
			full := run(nil, 0, nil)
			require.Len(t, full, 500)
			for _, k := range []int{1, 5, 15, 16} {
				ck := &statetest.Checkpoint{}
				first := run(nil, k, ck)
				// a second checkpoint after the restore
				ck2 := &statetest.Checkpoint{}
				second := run(ck, 2, ck2)
				var rest []string
				if len(first)+len(second) < len(full) {
					rest = run(ck2, 0, nil)
				}
				require.Equal(t, full, append(append(first, second...), rest...), "stopped at batch %d", k)
			}
		})
	}
}

func TestDatagenPositionErrors(t *testing.T) {
	schema := types.Schema{{Name: "i", Type: types.IntT}}
	src, err := NewSource("t", map[string]string{"number-of-rows": "100"}, schema, nil, 10, true, time.UTC)
	require.NoError(t, err)
	other, err := NewSource("t", map[string]string{"number-of-rows": "100"}, append(schema, schema...), nil, 10, true, time.UTC)
	require.NoError(t, err)
	ck := &statetest.Checkpoint{}
	require.NoError(t, other.SnapshotPosition(ck.Writer()))
	require.ErrorContains(t, src.RestorePosition(ck.Reader(0, 1)), "the query changed?")
}

// legacyPosition writes the position of src in the format of former
// versions (a single instance: rows emitted, and each column's random
// state and next sequence value).
func legacyPosition(t *testing.T, src *Source, w vectorized.StateWriter) {
	t.Helper()
	gen := array.NewInt64Builder(vectorized.Mem)
	rows := array.NewInt64Builder(vectorized.Mem)
	rng := array.NewBinaryBuilder(vectorized.Mem, arrow.BinaryTypes.Binary)
	seq := array.NewInt64Builder(vectorized.Mem)
	gen.Append(-1)
	rows.Append(src.pos.next)
	rng.AppendNull()
	seq.AppendNull()
	for i, g := range src.gens {
		gen.Append(int64(i))
		rows.Append(src.pos.next)
		b, err := g.pcg.MarshalBinary()
		require.NoError(t, err)
		rng.Append(b)
		seq.AppendNull()
	}
	rec := array.NewRecordBatch(legacySchema, []arrow.Array{gen.NewArray(), rows.NewArray(), rng.NewArray(), seq.NewArray()}, int64(len(src.gens)+1))
	require.NoError(t, w.Write(positionPart, rec))
}

// TestDatagenLegacyPosition: a position written by a former version
// (one instance) restores at parallelism 1 and 2 to the rows of an
// uninterrupted run; written by two instances, it is not supported.
func TestDatagenLegacyPosition(t *testing.T) {
	schema := types.Schema{{Name: "id", Type: types.BigIntT}, {Name: "s", Type: types.VarCharOf(5)}}
	opts := map[string]string{"number-of-rows": "100", "fields.id.kind": "sequence", "fields.id.start": "1", "fields.id.end": "1000"}
	full := splitRun(t, opts, schema, 10, 0, 1, nil, 0, nil)
	require.Len(t, full, 100)
	// a single instance stopped after three batches
	src, err := NewSource("t", opts, schema, nil, 10, true, time.UTC)
	require.NoError(t, err)
	ck := &statetest.Checkpoint{}
	c := &statetest.StopCollector{Stop: 3, Snapshot: func() error { return nil }}
	require.ErrorIs(t, src.Run(context.Background(), c), statetest.ErrStop)
	legacyPosition(t, src, ck.Writer())
	first := full[:30]
	for _, p := range []int{1, 2} {
		var rest []string
		for k := range p {
			rest = append(rest, splitRun(t, opts, schema, 10, k, p, ck, 0, nil)...)
		}
		if p == 1 {
			require.Equal(t, full, append(append([]string{}, first...), rest...))
		}
		require.Equal(t, sorted(full), sorted(append(append([]string{}, first...), rest...)), "p=%d", p)
	}
	// written by two instances
	legacyPosition(t, src, ck.Writer())
	require.ErrorContains(t, src.RestorePosition(ck.Reader(0, 1)), "not supported yet: ")
}
