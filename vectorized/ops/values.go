package ops

import (
	"context"
	"fmt"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Values is the source of constant rows, emitted in batches of at most
// vectorized.DefaultBatchSize rows.
type Values struct {
	schema types.Schema
	rows   [][]any
	start  int // first row to emit (a restored position)
	next   int // rows emitted (the checkpointed position)
}

var _ vectorized.Source = (*Values)(nil)

// NewValues returns a source of rows (canonical Go values, see core/types)
// of the given schema.
func NewValues(schema types.Schema, rows [][]any) *Values {
	return &Values{schema: schema, rows: rows}
}

// Open implements vectorized.Source.
func (v *Values) Open(context.Context) error {
	for i, r := range v.rows {
		if len(r) != len(v.schema) {
			return fmt.Errorf("internal: values row %d has %d fields, want %d", i, len(r), len(v.schema))
		}
	}
	return nil
}

// Run implements vectorized.Source.
func (v *Values) Run(ctx context.Context, out vectorized.Collector) error {
	for lo := v.start; lo < len(v.rows); lo += batchSize {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+batchSize, len(v.rows))
		rec, err := types.BuildRecord(vectorized.Mem, v.schema, v.rows[lo:hi])
		if err != nil {
			return err
		}
		v.next = hi
		if err := out.Emit(ctx, vectorized.Batch{Rec: rec}); err != nil {
			return err
		}
	}
	return nil
}

// Close implements vectorized.Source.
func (v *Values) Close() error { return nil }
