package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Checkpoint state of OverAggregate. Keyed parts (key_group of the
// PARTITION BY columns):
//   - "partitions": per partition its counters "n", "rank", "dense", per
//     call i the running aggregate ("count_i", "sum_int_i", "sum_float_i",
//     "sum_dec_lo_i", "sum_dec_hi_i", and "best_i" of the argument's type
//     for MIN/MAX), then the partition's last row (input columns);
//   - "window": the rows of the bounded ROWS frames, partition by
//     partition, oldest first;
//   - "pending": the rows an event-time OVER holds until the watermark
//     passes them (and all rows of a batch-mode OVER), in arrival order.
//
// The non-keyed part "watermark" holds "wm" and "has_wm" (0 or 1).

var _ vectorized.Stateful = (*OverAggregate)(nil)

// overAccFields returns the extra fields of the "partitions" part.
func (o *OverAggregate) overAccFields() ([]arrow.Field, []types.Type, error) {
	fields := []arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "rank", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dense", Type: arrow.PrimitiveTypes.Int64},
	}
	bestT := make([]types.Type, len(o.spec.Calls))
	for i, c := range o.spec.Calls {
		bestT[i] = types.BigIntT
		if (c.Name == "MIN" || c.Name == "MAX") && len(c.Args) == 1 {
			bestT[i] = o.spec.In[c.Args[0]].Type.WithNullable(true)
		}
		bt, err := types.ArrowType(bestT[i])
		if err != nil {
			return nil, nil, err
		}
		fields = append(fields,
			arrow.Field{Name: fmt.Sprintf("count_%d", i), Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: fmt.Sprintf("sum_int_%d", i), Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: fmt.Sprintf("sum_float_%d", i), Type: arrow.PrimitiveTypes.Float64},
			arrow.Field{Name: fmt.Sprintf("sum_dec_lo_%d", i), Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: fmt.Sprintf("sum_dec_hi_%d", i), Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: fmt.Sprintf("best_%d", i), Type: bt, Nullable: true},
		)
	}
	return fields, bestT, nil
}

// SnapshotState implements vectorized.Stateful.
func (o *OverAggregate) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	if len(o.buf.rows) > 0 {
		return fmt.Errorf("internal: OVER snapshot with %d unflushed rows", len(o.buf.rows))
	}
	fields, bestT, err := o.overAccFields()
	if err != nil {
		return err
	}
	parts, err := newStateRows("partitions", o.spec.In, o.spec.Partition, fields...)
	if err != nil {
		return err
	}
	nCalls := len(o.spec.Calls)
	var last, window [][]any
	counters := make([][]int64, 3)
	type accCols struct {
		count, sumI, lo, hi []int64
		sumF                []float64
		best                []any
	}
	accs := make([]accCols, nCalls)
	keys := make([]string, 0, len(o.parts))
	for k := range o.parts {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a deterministic snapshot
	for _, k := range keys {
		p := o.parts[k]
		if !p.inited {
			continue
		}
		last = append(last, p.last)
		counters[0] = append(counters[0], p.n)
		counters[1] = append(counters[1], p.rank)
		counters[2] = append(counters[2], p.dense)
		if len(p.accs) != nCalls {
			return fmt.Errorf("internal: OVER partition with %d aggregates, want %d", len(p.accs), nCalls)
		}
		for i, a := range p.accs {
			c := &accs[i]
			c.count = append(c.count, a.count)
			c.sumI = append(c.sumI, a.sumI)
			c.sumF = append(c.sumF, a.sumF)
			c.lo = append(c.lo, int64(a.sumD.LowBits()))
			c.hi = append(c.hi, a.sumD.HighBits())
			c.best = append(c.best, a.best)
		}
		window = append(window, p.window...)
	}
	extra := []arrow.Array{int64Array(counters[0]), int64Array(counters[1]), int64Array(counters[2])}
	for i, c := range accs {
		fb := array.NewFloat64Builder(vectorized.Mem)
		fb.AppendValues(c.sumF, nil)
		best, err := types.BuildArray(vectorized.Mem, bestT[i], c.best)
		if err != nil {
			fb.Release()
			return fmt.Errorf("snapshot partitions: %w", err)
		}
		extra = append(extra, int64Array(c.count), int64Array(c.sumI), fb.NewArray(), int64Array(c.lo), int64Array(c.hi), best)
		fb.Release()
	}
	if err := parts.write(w, last, extra); err != nil {
		return err
	}
	win, err := newStateRows("window", o.spec.In, o.spec.Partition)
	if err != nil {
		return err
	}
	if err := win.write(w, window, nil); err != nil {
		return err
	}
	pending, err := newStateRows("pending", o.spec.In, o.spec.Partition)
	if err != nil {
		return err
	}
	if err := pending.write(w, o.rows, nil); err != nil {
		return err
	}
	has := int64(0)
	if o.hasWM {
		has = 1
	}
	return writeInt64s(w, "watermark", []string{"wm", "has_wm"}, []int64{o.wm, has})
}

// RestoreState implements vectorized.Stateful.
func (o *OverAggregate) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	fields, bestT, err := o.overAccFields()
	if err != nil {
		return err
	}
	parts, err := newStateRows("partitions", o.spec.In, o.spec.Partition, fields...)
	if err != nil {
		return err
	}
	err = parts.read(r, func(rec arrow.RecordBatch, i int, row []any) error {
		i64 := func(c int) int64 { return rec.Column(c).(*array.Int64).Value(i) }
		p := &overPart{n: i64(1), rank: i64(2), dense: i64(3), last: row, inited: true}
		for idx, c := range o.spec.Calls {
			var t types.Type
			if len(c.Args) == 1 {
				t = o.spec.In[c.Args[0]].Type
			}
			base := 4 + 6*idx
			a := &overAcc{name: c.Name, argT: t, resT: c.T,
				count: i64(base), sumI: i64(base + 1),
				sumF: rec.Column(base + 2).(*array.Float64).Value(i),
				sumD: decimal128.New(i64(base+4), uint64(i64(base+3))),
			}
			if c.Name == "MIN" || c.Name == "MAX" {
				a.best = types.GetValue(rec.Column(base+5), i, bestT[idx])
			}
			p.accs = append(p.accs, a)
		}
		o.parts[keyOf(row, o.spec.Partition)] = p
		return nil
	})
	if err != nil {
		return err
	}
	win, err := newStateRows("window", o.spec.In, o.spec.Partition)
	if err != nil {
		return err
	}
	err = win.read(r, func(_ arrow.RecordBatch, _ int, row []any) error {
		p, ok := o.parts[keyOf(row, o.spec.Partition)]
		if !ok {
			return fmt.Errorf("restoring window: a frame row of a partition without state")
		}
		p.window = append(p.window, row)
		return nil
	})
	if err != nil {
		return err
	}
	pending, err := newStateRows("pending", o.spec.In, o.spec.Partition)
	if err != nil {
		return err
	}
	err = pending.read(r, func(_ arrow.RecordBatch, _ int, row []any) error {
		o.rows = append(o.rows, row)
		return nil
	})
	if err != nil {
		return err
	}
	mins, ok, err := minInt64s(r, "watermark", 2)
	if err != nil || !ok {
		return err
	}
	o.wm, o.hasWM = mins[0], mins[1] == 1
	return nil
}
