package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
)

// Union concatenates several inputs (UNION ALL). Every input's batches and
// markers go through the same operator; EndOfInput is forwarded once, after
// every input has ended. Batches are relabelled with the union's schema.
type Union struct {
	inputs int
	ended  int
	out    *arrow.Schema
}

var _ vectorized.Operator = (*Union)(nil)

// NewUnion returns a Union of n inputs producing schema out.
func NewUnion(n int, out *arrow.Schema) *Union { return &Union{inputs: n, out: out} }

// Open implements vectorized.Operator.
func (u *Union) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (u *Union) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	rec := b.Rec
	if !rec.Schema().Equal(u.out) {
		if int(rec.NumCols()) != u.out.NumFields() {
			return fmt.Errorf("internal: union input of %d columns, want %d", rec.NumCols(), u.out.NumFields())
		}
		var err error
		rec, err = NewRecord(u.out, rec.Columns(), rec.NumRows())
		if err != nil {
			return err
		}
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec, Kinds: b.Kinds})
}

// OnMarker implements vectorized.Operator.
func (u *Union) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if m.Kind == vectorized.EndOfInput {
		u.ended++
		if u.ended < u.inputs {
			return nil
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (u *Union) Close() error { return nil }
