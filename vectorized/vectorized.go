// Package vectorized is the columnar executor: Arrow record batches carrying
// row kinds flow through push-based operators from sources to sinks.
//
// Memory: the engine allocates through memory.DefaultAllocator (Go-managed).
// Batches are immutable once emitted; an operator that keeps a batch past
// Process simply holds the reference. Release is called where ownership ends,
// but correctness never depends on it.
package vectorized

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/changelog"
)

// DefaultBatchSize is the number of rows sources aim for in one batch.
const DefaultBatchSize = 4096

// Mem is the allocator every operator uses.
var Mem memory.Allocator = memory.DefaultAllocator

// Batch is a slice of a changelog stream in columnar form.
type Batch struct {
	// Rec holds the columns. Its schema is the producing node's schema.
	Rec arrow.RecordBatch
	// Kinds holds one row kind per row; nil means every row is +I, so
	// append-only streams pay nothing for it.
	Kinds []changelog.RowKind
}

// NumRows returns the number of rows of the batch.
func (b Batch) NumRows() int {
	if b.Rec == nil {
		return 0
	}
	return int(b.Rec.NumRows())
}

// Kind returns the row kind of row i.
func (b Batch) Kind(i int) changelog.RowKind {
	if b.Kinds == nil {
		return changelog.Insert
	}
	return b.Kinds[i]
}

// MarkerKind says what a Marker means.
type MarkerKind uint8

// Marker kinds.
const (
	// Watermark: no row with an event time at or below Marker.Watermark
	// follows.
	Watermark MarkerKind = iota
	// EndOfBundle closes a mini-batch bundle.
	EndOfBundle
	// CheckpointBarrier asks every stateful operator to snapshot.
	CheckpointBarrier
	// EndOfInput: the input is finished; nothing follows.
	EndOfInput
	// Idle: the stream produces no rows for now (a source silent for
	// table.exec.source.idle-timeout, or every input of a merge idle): its
	// watermark does not hold back the minimum where streams merge, until
	// Active follows. See idle.go.
	Idle
	// Active: an Idle stream produces rows again; its watermark counts
	// again where streams merge (the merged watermark never goes back).
	Active
)

// Marker travels in-band between batches.
type Marker struct {
	Kind       MarkerKind
	Watermark  int64 // event time in milliseconds since the epoch, for Watermark
	Checkpoint int64 // checkpoint id, for CheckpointBarrier
}

// Collector receives an operator's output. Emit may be called any number of
// times from inside Process or OnMarker; the batch belongs to the receiver
// afterwards.
type Collector interface {
	Emit(ctx context.Context, b Batch) error
	EmitMarker(ctx context.Context, m Marker) error
}

// Operator is one push-based step of a pipeline with a single input.
//
// Open is called once before anything else. Process is called once per
// input batch, in order, never concurrently. OnMarker is called for each
// marker in stream order; an EndOfInput marker is the last call before
// Close, and an operator that buffers (sort, aggregate) emits its result
// there and then forwards the marker. Close is called once, also after an
// error, and releases resources.
type Operator interface {
	Open(ctx context.Context) error
	Process(ctx context.Context, b Batch, out Collector) error
	OnMarker(ctx context.Context, m Marker, out Collector) error
	Close() error
}

// Source produces the batches of one scan.
//
// Open is called once; Run emits every batch and marker of the scan into
// out and returns when the input is exhausted (a bounded source) or ctx is
// cancelled. Run does not emit EndOfInput: the driver does. Close is called
// once, also after an error.
type Source interface {
	Open(ctx context.Context) error
	Run(ctx context.Context, out Collector) error
	Close() error
}
