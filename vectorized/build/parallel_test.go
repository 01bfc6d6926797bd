package build

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/vectorized"
)

// recorder is a collector that records what it receives as text.
type recorder struct{ log []string }

func (r *recorder) Emit(_ context.Context, b vectorized.Batch) error {
	r.log = append(r.log, "batch:"+b.Rec.Column(0).ValueStr(0))
	return nil
}

func (r *recorder) EmitMarker(_ context.Context, m vectorized.Marker) error {
	switch m.Kind {
	case vectorized.Watermark:
		r.log = append(r.log, "wm:"+itoa(m.Watermark))
	case vectorized.CheckpointBarrier:
		r.log = append(r.log, "barrier:"+itoa(m.Checkpoint))
	case vectorized.EndOfInput:
		r.log = append(r.log, "end")
	}
	return nil
}

func itoa(v int64) string { return string(rune('0' + v)) }

func TestMergerAlignsBarriersAndWatermarks(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	m := &merger{out: rec, ps: make([]producerState, 2), lastWM: -1 << 63}
	for i := range m.ps {
		m.ps[i].watermark = -1 << 63
	}
	batch := func(from int, v int64) hubItem {
		return hubItem{from: from, batch: int64Batch(v)}
	}
	marker := func(from int, mk vectorized.Marker) hubItem { return hubItem{from: from, marker: &mk} }
	steps := []hubItem{
		batch(0, 1),
		marker(0, vectorized.Marker{Kind: vectorized.Watermark, Watermark: 5}),
		marker(1, vectorized.Marker{Kind: vectorized.Watermark, Watermark: 3}), // min(5,3) = 3
		marker(0, vectorized.Marker{Kind: vectorized.CheckpointBarrier, Checkpoint: 1}),
		batch(0, 2), // held: producer 0 is past barrier 1
		batch(1, 3), // passes: producer 1 is before it
		marker(1, vectorized.Marker{Kind: vectorized.CheckpointBarrier, Checkpoint: 1}), // aligned
		marker(1, vectorized.Marker{Kind: vectorized.EndOfInput}),
		marker(0, vectorized.Marker{Kind: vectorized.Watermark, Watermark: 7}), // producer 1 ended (5), then 7
		marker(0, vectorized.Marker{Kind: vectorized.EndOfInput}),
	}
	for _, it := range steps {
		require.NoError(t, m.handle(ctx, it))
	}
	require.Equal(t, []string{"batch:1", "wm:3", "batch:3", "barrier:1", "batch:2", "wm:5", "wm:7", "end"}, rec.log)
}

func TestMergerEndWhileAligningReleasesBarrier(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	m := &merger{out: rec, ps: make([]producerState, 2), lastWM: -1 << 63}
	for i := range m.ps {
		m.ps[i].watermark = -1 << 63
	}
	mk := vectorized.Marker{Kind: vectorized.CheckpointBarrier, Checkpoint: 2}
	require.NoError(t, m.handle(ctx, hubItem{from: 0, marker: &mk}))
	require.NoError(t, m.handle(ctx, hubItem{from: 0, batch: int64Batch(4)}))
	require.Equal(t, []string(nil), rec.log)
	require.NoError(t, m.end(ctx, 1)) // the other producer ends: the barrier passes
	require.Equal(t, []string{"barrier:2", "batch:4"}, rec.log)
}

func int64Batch(v int64) vectorized.Batch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.Append(v)
	arr := b.NewArray()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return vectorized.Batch{Rec: array.NewRecordBatch(schema, []arrow.Array{arr}, 1)}
}
