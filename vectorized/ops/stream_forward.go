package ops

import (
	"context"

	"github.com/tablerun/tablerun/vectorized"
)

// Forward passes batches (with their row kinds) and markers through
// unchanged. It stands for an Exchange while a pipeline runs with
// parallelism 1.
type Forward struct{}

var _ vectorized.Operator = Forward{}

// Open implements vectorized.Operator.
func (Forward) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (Forward) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	return out.Emit(ctx, b)
}

// OnMarker implements vectorized.Operator.
func (Forward) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (Forward) Close() error { return nil }
