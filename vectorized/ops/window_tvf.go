package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// WindowTableFunction emits every input row once per window it belongs
// to, followed by window_start, window_end and window_time (window_end
// minus 1 ms). Rows with a NULL time are dropped. Row kinds pass through.
type WindowTableFunction struct {
	win logical.WindowSpec
	out *arrow.Schema
	buf [][2]int64
	clk *zoneClock
}

// SetTimeZone sets the session time zone: windows over a TIMESTAMP_LTZ
// time column are aligned in it.
func (w *WindowTableFunction) SetTimeZone(loc *time.Location) {
	w.clk = newZoneClock(w.out.Field(w.win.TimeCol).Type, loc)
}

// NewWindowTableFunction returns the operator; out is the input's schema
// followed by the three window columns.
func NewWindowTableFunction(win logical.WindowSpec, out *arrow.Schema) *WindowTableFunction {
	return &WindowTableFunction{win: win, out: out}
}

// Open implements vectorized.Operator.
func (w *WindowTableFunction) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (w *WindowTableFunction) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	tcol := b.Rec.Column(w.win.TimeCol)
	var sel []int32
	var starts, ends, times []int64
	var kinds []changelog.RowKind
	for i := range n {
		ts, ok, err := eventMillis(tcol, i)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		w.buf = w.win.Windows(w.buf[:0], w.clk.local(ts))
		for _, win := range w.buf {
			sel = append(sel, int32(i))
			starts = append(starts, win[0])
			ends = append(ends, win[1])
			times = append(times, w.clk.instant(win[1])-1)
			if b.Kinds != nil {
				kinds = append(kinds, b.Kinds[i])
			}
		}
	}
	if len(sel) == 0 {
		return nil
	}
	nin := int(b.Rec.NumCols())
	cols := make([]arrow.Array, 0, nin+3)
	for c := range nin {
		a, err := GatherArray(b.Rec.Column(c), sel)
		if err != nil {
			return err
		}
		cols = append(cols, a)
	}
	for k, vals := range [][]int64{starts, ends, times} {
		a, err := timestampArray(w.out.Field(nin+k).Type, vals)
		if err != nil {
			return err
		}
		cols = append(cols, a)
	}
	rec, err := NewRecord(w.out, cols, int64(len(sel)))
	if err != nil {
		return fmt.Errorf("window table function: %w", err)
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec, Kinds: kinds})
}

// OnMarker implements vectorized.Operator.
func (w *WindowTableFunction) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (w *WindowTableFunction) Close() error { return nil }
