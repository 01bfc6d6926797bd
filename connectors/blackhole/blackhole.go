// Package blackhole is Flink's 'blackhole' connector: a sink that discards
// every row (for benchmarks and for running a query only for its effects).
package blackhole

import (
	"context"

	"github.com/tablerun/tablerun/vectorized"
)

// Sink discards rows.
type Sink struct{}

// Open does nothing.
func (Sink) Open(ctx context.Context) error { return nil }

// Write drops the batch.
func (Sink) Write(ctx context.Context, b vectorized.Batch) error { return nil }

// Finish does nothing.
func (Sink) Finish(ctx context.Context) error { return nil }

// Close does nothing.
func (Sink) Close() error { return nil }
