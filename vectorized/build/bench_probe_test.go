package build

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/vectorized"
)

// nopCollector drops what it gets.
type nopCollector struct{ batches int }

func (c *nopCollector) Emit(context.Context, vectorized.Batch) error { c.batches++; return nil }

func (c *nopCollector) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// fakeState snapshots one part of n int64 values.
type fakeState struct{ n int }

func (f fakeState) SnapshotState(_ context.Context, w vectorized.StateWriter) error {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range f.n {
		b.Append(int64(i))
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(f.n))
	defer rec.Release()
	return w.Write("values", rec)
}

func (f fakeState) RestoreState(context.Context, vectorized.StateReader) error { return nil }

func TestRunProbeLatency(t *testing.T) {
	tests := []struct {
		name         string
		every        int
		sources      int // source batches before each sink batch
		rounds       int
		wantSamples  int
		wantPending  int64
		trailingSrcs int
	}{
		{"every batch", 1, 3, 4, 12, 0, 0},
		{"every second batch", 2, 3, 4, 6, 0, 0},
		{"unmatched at the end", 1, 1, 2, 2, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewRunProbe(tt.every)
			ctx := WithRunProbe(context.Background(), p)
			sink := &nopCollector{}
			src := probeSource(ctx, sink)
			in := probeSinkInput(ctx, sink)
			for range tt.rounds {
				for range tt.sources {
					require.NoError(t, src.Emit(ctx, vectorized.Batch{}))
				}
				time.Sleep(time.Millisecond)
				require.NoError(t, in.Emit(ctx, vectorized.Batch{}))
			}
			for range tt.trailingSrcs {
				require.NoError(t, src.Emit(ctx, vectorized.Batch{}))
			}
			lat := p.Latencies()
			require.Len(t, lat, tt.wantSamples)
			for i, d := range lat {
				require.GreaterOrEqual(t, d, time.Millisecond)
				if i > 0 {
					require.LessOrEqual(t, lat[i-1], d, "sorted")
				}
			}
			require.Equal(t, tt.wantPending, p.Unmatched())
			require.True(t, p.Hooked())
		})
	}
}

func TestRunProbeWithoutProbe(t *testing.T) {
	ctx := context.Background()
	sink := &nopCollector{}
	require.Same(t, vectorized.Collector(sink), probeSource(ctx, sink))
	require.Same(t, vectorized.Collector(sink), probeSinkInput(ctx, sink))
	probeState(ctx, fakeState{n: 10}) // no probe: nothing happens
}

func TestRunProbeState(t *testing.T) {
	p := NewRunProbe(0)
	ctx := WithRunProbe(context.Background(), p)
	require.False(t, p.Hooked())
	probeState(ctx, &nopCollector{}) // stateless: not counted
	require.False(t, p.Hooked())
	probeState(ctx, fakeState{n: 100})
	probeState(ctx, fakeState{n: 28})
	require.True(t, p.Hooked())
	// 128 int64 values and their validity bitmaps
	require.GreaterOrEqual(t, p.StateBytes(), int64(128*8))
	require.LessOrEqual(t, p.StateBytes(), int64(128*8+128))
	require.GreaterOrEqual(t, p.Overhead(), time.Duration(0))
}
