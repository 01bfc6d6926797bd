// Package memory is the connector behind tables made from in-memory Arrow
// record batches of the Go API (TableEnvironment.FromRecords): the stream
// interop path. A table has 'connector' = 'memory' and 'id' = the key its
// batches were stored under in the Factory. It reads zero-copy (in
// parallel instances that take the batches round-robin); writing appends
// the written batches under the table's id.
package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/vectorized"
)

// Factory stores batches by id and opens sources and sinks over them. It is
// safe for concurrent use.
type Factory struct {
	mu     sync.Mutex
	tables map[string][]arrow.RecordBatch
}

// NewFactory returns an empty store.
func NewFactory() *Factory { return &Factory{tables: map[string][]arrow.RecordBatch{}} }

// Put stores batches under id, replacing what was there.
func (f *Factory) Put(id string, batches []arrow.RecordBatch) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tables[id] = batches
}

// Get returns the batches stored under id.
func (f *Factory) Get(id string) []arrow.RecordBatch {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tables[id]
}

// Identifier implements connectors.Factory.
func (f *Factory) Identifier() string { return "memory" }

// RequiredOptions implements connectors.Factory.
func (f *Factory) RequiredOptions() []string { return []string{"id"} }

// OptionalOptions implements connectors.Factory.
func (f *Factory) OptionalOptions() []string { return nil }

// Abilities implements connectors.AbilitiesFactory: the stored batches are
// read to their end, projected.
func (f *Factory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	a := catalog.Abilities{Bounded: true, Lookup: true, ProjectionPushDown: true}
	if t != nil && t.Table != nil {
		id := t.Table.Options["id"]
		a.ReportStatistics = func() catalog.TableStats {
			var n int64
			for _, b := range f.Get(id) {
				n += b.NumRows()
			}
			return catalog.TableStats{RowCount: n}
		}
	}
	return a
}

// CreateSource implements connectors.Factory.
func (f *Factory) CreateSource(cx *connectors.Context, spec connectors.SourceSpec) (vectorized.Source, error) {
	id := spec.Table.Table.Options["id"]
	f.mu.Lock()
	batches, ok := f.tables[id]
	f.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("memory table '%s' has no data stored under id '%s'", spec.Table.ID.Summary(), id)
	}
	phys := spec.Table.PhysicalSchema()
	for _, b := range batches {
		if int(b.NumCols()) != len(phys) {
			return nil, fmt.Errorf("memory table '%s': stored batches have %d columns, the table declares %d", spec.Table.ID.Summary(), b.NumCols(), len(phys))
		}
	}
	return &source{batches: batches, projection: spec.Projection}, nil
}

// Splittable implements connectors.SplittableFactory: at parallelism P the
// stored batches are dealt out round-robin, instance k reading batches k,
// k+P, k+2P, … (the table's row order is kept within each instance only).
func (f *Factory) Splittable(connectors.SourceSpec) bool { return true }

var _ connectors.SplittableFactory = (*Factory)(nil)

// CreateSink implements connectors.Factory.
func (f *Factory) CreateSink(cx *connectors.Context, spec connectors.SinkSpec) (connectors.Sink, error) {
	return &sink{f: f, id: spec.Table.Table.Options["id"], overwrite: spec.Overwrite}, nil
}

type source struct {
	batches    []arrow.RecordBatch
	projection []int
	// split of splits: the instance reads batches split, split+splits, …
	split, splits int
	start         int // first batch to emit (split, or a restored position, position.go)
	next          int // the next batch to emit (the checkpointed position)
}

var _ connectors.SplitSource = (*source)(nil)

// SetSplit implements connectors.SplitSource.
func (s *source) SetSplit(index, count int) error {
	if count < 1 || index < 0 || index >= count {
		return fmt.Errorf("memory source: bad split %d of %d", index, count)
	}
	s.split, s.splits = index, count
	s.start, s.next = index, index
	return nil
}

func (s *source) Open(context.Context) error { return nil }

func (s *source) Run(ctx context.Context, out vectorized.Collector) error {
	step := max(s.splits, 1)
	for i := s.start; i < len(s.batches); i += step {
		b := s.batches[i]
		if err := ctx.Err(); err != nil {
			return err
		}
		rec := b
		if s.projection != nil {
			cols := make([]arrow.Array, len(s.projection))
			fields := make([]arrow.Field, len(s.projection))
			for i, p := range s.projection {
				cols[i] = b.Column(p)
				fields[i] = b.Schema().Field(p)
			}
			rec = array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
		}
		s.next = i + step
		if err := out.Emit(ctx, vectorized.Batch{Rec: rec}); err != nil {
			return err
		}
	}
	return nil
}

func (s *source) Close() error { return nil }

type sink struct {
	f         *Factory
	id        string
	overwrite bool
	written   []arrow.RecordBatch
}

func (s *sink) Open(context.Context) error { return nil }

func (s *sink) Write(_ context.Context, b vectorized.Batch) error {
	s.written = append(s.written, b.Rec)
	return nil
}

func (s *sink) Finish(context.Context) error {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	if s.overwrite {
		s.f.tables[s.id] = s.written
	} else {
		s.f.tables[s.id] = append(s.f.tables[s.id], s.written...)
	}
	return nil
}

func (s *sink) Close() error { return nil }

var _ connectors.Factory = (*Factory)(nil)

var _ connectors.AbilitiesFactory = (*Factory)(nil)
