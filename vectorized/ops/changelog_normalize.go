package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// ChangelogNormalize turns an upsert changelog (+I/+U for the latest row
// of a key, -D for its removal; what an upsert-kafka source reads) into a
// full changelog, as Flink's ProcTimeDeduplicateKeepLastRowFunction on a
// changelog input does: it keeps the last row of every key; a key's first
// row is +I, a later different row -U (the kept row) and +U, the same row
// again nothing, and -D (or -U) the kept row as -D, after which the key is
// gone; a removal of an unknown key is dropped.
type ChangelogNormalize struct {
	keys  []int
	in    types.Schema
	all   []int
	buf   rowBuffer
	state map[string][]any
	disk  *rowsDisk // state.backend.type 'rocksdb' (state_rows_disk.go)
}

var (
	_ vectorized.Operator = (*ChangelogNormalize)(nil)
	_ vectorized.Stateful = (*ChangelogNormalize)(nil)
)

// NewChangelogNormalize returns the operator over input schema in keyed
// by keys (the output has the same columns).
func NewChangelogNormalize(keys []int, in types.Schema, out *arrow.Schema) *ChangelogNormalize {
	all := make([]int, len(in))
	for i := range all {
		all[i] = i
	}
	return &ChangelogNormalize{keys: keys, in: in, all: all, buf: rowBuffer{schema: in, out: out}, state: map[string][]any{}}
}

// SetDiskState keeps the kept rows in the disk backend, in a store named
// name (the task); the state map is then the cache of hot keys. Call
// before Open.
func (c *ChangelogNormalize) SetDiskState(b *diskstate.Backend, name string) {
	c.disk = newRowsDisk(b, name)
}

// Open implements vectorized.Operator.
func (c *ChangelogNormalize) Open(context.Context) error {
	if c.disk != nil {
		return c.disk.open("ChangelogNormalize", c.in, c.keys)
	}
	return nil
}

func (c *ChangelogNormalize) kept(k string) [][]any {
	if row, ok := c.state[k]; ok {
		return [][]any{row}
	}
	return nil
}

// Process implements vectorized.Operator.
func (c *ChangelogNormalize) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	rows := types.RecordRows(b.Rec, c.in)
	ks := make([]string, len(rows))
	for i, row := range rows {
		ks[i] = keyOf(row, c.keys)
	}
	if c.disk != nil {
		err := c.disk.prepare(rows, ks, c.kept, func() { c.state = map[string][]any{} },
			func(k string, rows [][]any) { c.state[k] = rows[0] })
		if err != nil {
			return err
		}
	}
	for i, row := range rows {
		k := ks[i]
		prev, ok := c.state[k]
		switch b.Kind(i) {
		case changelog.Insert, changelog.UpdateAfter:
			if !ok {
				c.buf.add(changelog.Insert, row)
			} else {
				if keyOf(prev, c.all) == keyOf(row, c.all) {
					continue
				}
				c.buf.add(changelog.UpdateBefore, prev)
				c.buf.add(changelog.UpdateAfter, row)
			}
			c.state[k] = row
			if c.disk != nil {
				c.disk.touch(k)
				if !ok {
					c.disk.grow(1)
				}
			}
		default: // -D, -U
			if ok {
				c.buf.add(changelog.Delete, prev)
				delete(c.state, k)
				if c.disk != nil {
					c.disk.touch(k)
				}
			}
		}
	}
	return c.buf.flush(ctx, out)
}

// OnMarker implements vectorized.Operator.
func (c *ChangelogNormalize) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (c *ChangelogNormalize) Close() error { c.state = nil; return c.disk.close() }

// SnapshotState implements vectorized.Stateful: the kept row of every
// key, in the keyed part "rows".
func (c *ChangelogNormalize) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	sr, err := newStateRows("rows", c.in, c.keys)
	if err != nil {
		return err
	}
	if len(c.buf.rows) > 0 {
		return fmt.Errorf("internal: changelog normalize snapshot with %d unflushed rows", len(c.buf.rows))
	}
	if c.disk != nil {
		if err := c.disk.flush(c.kept); err != nil {
			return err
		}
		return c.disk.snapshot(w, sr)
	}
	keys := make([]string, 0, len(c.state))
	for k := range c.state {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a deterministic snapshot
	rows := make([][]any, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, c.state[k])
	}
	return sr.write(w, rows, nil)
}

// RestoreState implements vectorized.Stateful.
func (c *ChangelogNormalize) RestoreState(ctx context.Context, rd vectorized.StateReader) error {
	sr, err := newStateRows("rows", c.in, c.keys)
	if err != nil {
		return err
	}
	if c.disk != nil {
		return c.disk.restore(rd, sr)
	}
	if err := refuseStoreFiles("ChangelogNormalize", rd); err != nil {
		return err
	}
	return sr.read(rd, func(_ arrow.RecordBatch, _ int, row []any) error {
		c.state[keyOf(row, c.keys)] = row
		return nil
	})
}
