package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// batchSizes are the splits every operator test runs with; 0 means all
// rows in one batch.
var batchSizes = []int{1, 3, 4096, 0}

// collector gathers emitted batches and markers.
type collector struct {
	batches []vectorized.Batch
	markers []vectorized.Marker
}

func (c *collector) Emit(_ context.Context, b vectorized.Batch) error {
	c.batches = append(c.batches, b)
	return nil
}

func (c *collector) EmitMarker(_ context.Context, m vectorized.Marker) error {
	c.markers = append(c.markers, m)
	return nil
}

func (c *collector) rows(t *testing.T, s types.Schema, maxRows int) [][]any {
	t.Helper()
	var out [][]any
	for _, b := range c.batches {
		require.LessOrEqual(t, b.NumRows(), max(maxRows, vectorized.DefaultBatchSize))
		require.Equal(t, len(s), int(b.Rec.NumCols()))
		out = append(out, types.RecordRows(b.Rec, s)...)
	}
	return out
}

func mustArrow(t *testing.T, s types.Schema) *arrow.Schema {
	t.Helper()
	as, err := types.ArrowSchema(s)
	require.NoError(t, err)
	return as
}

// split cuts rows into records of bs rows (0: one record).
func split(t *testing.T, s types.Schema, rows [][]any, bs int) []vectorized.Batch {
	t.Helper()
	if bs == 0 {
		bs = max(len(rows), 1)
	}
	var out []vectorized.Batch
	for lo := 0; lo < len(rows); lo += bs {
		hi := min(lo+bs, len(rows))
		rec, err := types.BuildRecord(vectorized.Mem, s, rows[lo:hi])
		require.NoError(t, err)
		out = append(out, vectorized.Batch{Rec: rec})
	}
	return out
}

// runUnary feeds rows to a fresh operator in batches of bs rows and returns
// the output rows.
func runUnary(t *testing.T, op vectorized.Operator, in types.Schema, rows [][]any, bs int, out types.Schema) ([][]any, error) {
	t.Helper()
	ctx := context.Background()
	c := &collector{}
	if err := op.Open(ctx); err != nil {
		return nil, err
	}
	defer func() { require.NoError(t, op.Close()) }()
	for _, b := range split(t, in, rows, bs) {
		if err := op.Process(ctx, b, c); err != nil {
			return nil, err
		}
	}
	if err := op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c); err != nil {
		return nil, err
	}
	require.Equal(t, []vectorized.Marker{{Kind: vectorized.EndOfInput}}, c.markers)
	if bs == 0 {
		bs = len(rows)
	}
	return c.rows(t, out, bs), nil
}

// runBinary feeds the right rows to the build side and the left rows to the
// probe side of a fresh operator.
func runBinary(t *testing.T, op BinaryOperator, ls types.Schema, left [][]any, rs types.Schema, right [][]any, bs int, out types.Schema) ([][]any, error) {
	t.Helper()
	ctx := context.Background()
	c := &collector{}
	if err := op.Open(ctx); err != nil {
		return nil, err
	}
	defer func() { require.NoError(t, op.Close()) }()
	for _, b := range split(t, rs, right, bs) {
		if err := op.ProcessBuild(ctx, b); err != nil {
			return nil, err
		}
	}
	if err := op.FinishBuild(ctx); err != nil {
		return nil, err
	}
	for _, b := range split(t, ls, left, bs) {
		if err := op.Process(ctx, b, c); err != nil {
			return nil, err
		}
	}
	if err := op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c); err != nil {
		return nil, err
	}
	return c.rows(t, out, max(bs, len(left))), nil
}

// canonRows sorts rows by their printed form, for order-free comparison.
func canonRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%v", r)
	}
	sort.Strings(out)
	return out
}

// rowSelector is a test Selector: a Go predicate over canonical rows.
type rowSelector struct {
	s  types.Schema
	fn func(row []any) bool
}

func (r *rowSelector) Select(rec arrow.RecordBatch) ([]int32, error) {
	var sel []int32
	for i, row := range types.RecordRows(rec, r.s) {
		if r.fn(row) {
			sel = append(sel, int32(i))
		}
	}
	return sel, nil
}

// rowEvaluator is a test Evaluator: a Go function over canonical rows.
type rowEvaluator struct {
	s  types.Schema
	t  types.Type
	fn func(row []any) any
}

func (r *rowEvaluator) Eval(rec arrow.RecordBatch) (arrow.Array, error) {
	rows := types.RecordRows(rec, r.s)
	vals := make([]any, len(rows))
	for i, row := range rows {
		vals[i] = r.fn(row)
	}
	return types.BuildArray(vectorized.Mem, r.t, vals)
}

// randInt64 returns an int64 in [0, card) or NULL with probability nullP.
func randInt64(r *rand.Rand, card int, nullP float64) any {
	if r.Float64() < nullP {
		return nil
	}
	return int64(r.IntN(card))
}

func randString(r *rand.Rand, card int, nullP float64) any {
	if r.Float64() < nullP {
		return nil
	}
	return fmt.Sprintf("s%d", r.IntN(card))
}

func randFloat(r *rand.Rand, card int, nullP float64) any {
	if r.Float64() < nullP {
		return nil
	}
	return float64(r.IntN(card)) / 4
}
