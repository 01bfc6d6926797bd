package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpoint state of Rank and Deduplicate.
//
// Rank writes the keyed part "rows": key_group (of the PARTITION BY
// columns), then the input columns of every row it keeps, partition by
// partition (in first-seen order), each partition's rows in rank order.
// Deduplicate writes the keyed part "rows": key_group (of its key
// columns), then the kept row of every key.

var (
	_ vectorized.Stateful = (*Rank)(nil)
	_ vectorized.Stateful = (*Deduplicate)(nil)
)

// SnapshotState implements vectorized.Stateful.
func (r *Rank) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	sr, err := newStateRows("rows", r.in, r.part)
	if err != nil {
		return err
	}
	if len(r.buf.rows) > 0 {
		return fmt.Errorf("internal: rank snapshot with %d unflushed rows", len(r.buf.rows))
	}
	if r.disk != nil {
		if err := r.disk.flush(r.partRows); err != nil {
			return err
		}
		return r.disk.snapshot(w, sr)
	}
	var rows [][]any
	for _, k := range r.seen {
		rows = append(rows, *r.parts[k]...)
	}
	return sr.write(w, rows, nil)
}

// RestoreState implements vectorized.Stateful.
func (r *Rank) RestoreState(ctx context.Context, rd vectorized.StateReader) error {
	sr, err := newStateRows("rows", r.in, r.part)
	if err != nil {
		return err
	}
	if r.disk != nil {
		return r.disk.restore(rd, sr)
	}
	if err := refuseStoreFiles("Rank", rd); err != nil {
		return err
	}
	return sr.read(rd, func(_ arrow.RecordBatch, _ int, row []any) error {
		k := keyOf(row, r.part)
		p, ok := r.parts[k]
		if !ok {
			p = &[][]any{}
			r.parts[k] = p
			r.seen = append(r.seen, k)
		}
		*p = append(*p, row)
		return nil
	})
}

// SnapshotState implements vectorized.Stateful.
func (d *Deduplicate) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	sr, err := newStateRows("rows", d.in, d.keys)
	if err != nil {
		return err
	}
	if len(d.buf.rows) > 0 {
		return fmt.Errorf("internal: deduplicate snapshot with %d unflushed rows", len(d.buf.rows))
	}
	if d.disk != nil {
		if err := d.disk.flush(d.kept); err != nil {
			return err
		}
		return d.disk.snapshot(w, sr)
	}
	keys := make([]string, 0, len(d.state))
	for k := range d.state {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a deterministic snapshot
	rows := make([][]any, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, d.state[k])
	}
	return sr.write(w, rows, nil)
}

// RestoreState implements vectorized.Stateful.
func (d *Deduplicate) RestoreState(ctx context.Context, rd vectorized.StateReader) error {
	sr, err := newStateRows("rows", d.in, d.keys)
	if err != nil {
		return err
	}
	if d.disk != nil {
		return d.disk.restore(rd, sr)
	}
	if err := refuseStoreFiles("Deduplicate", rd); err != nil {
		return err
	}
	return sr.read(rd, func(_ arrow.RecordBatch, _ int, row []any) error {
		d.state[keyOf(row, d.keys)] = row
		return nil
	})
}
