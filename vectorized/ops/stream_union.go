package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
)

// StreamUnion is UNION ALL in streaming: the changelogs of its inputs,
// which run concurrently, interleaved as they arrive, relabelled with the
// union's schema. Its watermark is the minimum of its inputs'.
type StreamUnion struct {
	out     *arrow.Schema
	markers *inputMarkers
}

// NewStreamUnion returns the union of n inputs producing schema out.
func NewStreamUnion(n int, out *arrow.Schema) *StreamUnion {
	return &StreamUnion{out: out, markers: newInputMarkers(n)}
}

// Open implements the multi-input operator protocol.
func (u *StreamUnion) Open(context.Context) error { return nil }

// Process forwards a batch of input side.
func (u *StreamUnion) Process(ctx context.Context, side int, b vectorized.Batch, out vectorized.Collector) error {
	rec := b.Rec
	if !rec.Schema().Equal(u.out) {
		if int(rec.NumCols()) != u.out.NumFields() {
			return fmt.Errorf("internal: union input of %d columns, want %d", rec.NumCols(), u.out.NumFields())
		}
		var err error
		if rec, err = NewRecord(u.out, rec.Columns(), rec.NumRows()); err != nil {
			return err
		}
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec, Kinds: b.Kinds})
}

// OnMarker handles a marker of input side.
func (u *StreamUnion) OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error {
	return u.markers.onMarker(ctx, side, m, out)
}

// Close implements the multi-input operator protocol.
func (u *StreamUnion) Close() error { return nil }
