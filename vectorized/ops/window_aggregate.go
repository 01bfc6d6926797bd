package ops

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// WindowAggregate aggregates an insert-only stream per window and key. It
// assigns the windows of each row from its time column, keeps one hash
// aggregation per open window, and when the watermark reaches a window's
// last millisecond (window_end - 1) emits the window's rows (+I) followed
// by window_start and window_end, and frees the window. Rows whose every
// window already fired are late: they are dropped and counted. At the end
// of the input every open window fires, in order of window end.
type WindowAggregate struct {
	keys    []int
	calls   []logical.AggCall
	win     logical.WindowSpec
	in      types.Schema
	out     *arrow.Schema
	aggOut  *arrow.Schema
	wm      int64
	windows map[[2]int64]*HashAggregate
	late    atomic.Int64
	buf     [][2]int64
	clock   *zoneClock
	scripts scriptFuncs // script aggregates (script_agg_stream.go)
	disk    *windowDisk // the disk state backend (state_window_disk.go)
	diskSch *arrow.Schema
}

// SetTimeZone sets the session time zone: windows over a TIMESTAMP_LTZ
// time column are aligned in it.
func (w *WindowAggregate) SetTimeZone(loc *time.Location) {
	if dt, err := types.ArrowType(w.in[w.win.TimeCol].Type); err == nil {
		w.clock = newZoneClock(dt, loc)
	}
}

// NewWindowAggregate returns the operator: keys and calls index the
// input schema in, win.TimeCol is the input's time column, out is keys ++
// aggregates ++ window_start, window_end [, window_time].
func NewWindowAggregate(keys []int, calls []logical.AggCall, win logical.WindowSpec, in types.Schema, out *arrow.Schema) (*WindowAggregate, error) {
	n := out.NumFields()
	nwin := n - len(keys) - len(calls)
	if nwin != 2 && nwin != 3 {
		return nil, fmt.Errorf("window aggregate: output schema has %d columns for %d keys and %d aggregates", n, len(keys), len(calls))
	}
	fields := out.Fields()[:n-nwin]
	return &WindowAggregate{keys: keys, calls: calls, win: win, in: in, out: out,
		aggOut: arrow.NewSchema(fields, nil), wm: math.MinInt64, windows: map[[2]int64]*HashAggregate{}}, nil
}

// LateRows returns the number of late rows dropped so far.
func (w *WindowAggregate) LateRows() int64 { return w.late.Load() }

// OpenWindows returns the number of windows holding state.
func (w *WindowAggregate) OpenWindows() int {
	n := len(w.windows)
	if w.disk != nil {
		for win := range w.disk.onDisk {
			if w.windows[win] == nil {
				n++
			}
		}
	}
	return n
}

// Open implements vectorized.Operator.
func (w *WindowAggregate) Open(ctx context.Context) error {
	if w.disk != nil {
		return w.openDisk(ctx)
	}
	return nil
}

// Process implements vectorized.Operator.
func (w *WindowAggregate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	for i := range n {
		if k := b.Kind(i); k.IsRetraction() {
			return fmt.Errorf("window aggregate: the input must be insert-only, got %s", k)
		}
	}
	if w.disk != nil {
		if err := w.maybeSpill(ctx); err != nil {
			return err
		}
	}
	tcol := b.Rec.Column(w.win.TimeCol)
	sel := map[[2]int64][]int32{}
	var order [][2]int64
	for i := range n {
		ts, ok, err := eventMillis(tcol, i)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		w.buf = w.win.Windows(w.buf[:0], w.clock.local(ts))
		kept := false
		for _, win := range w.buf {
			if w.clock.instant(win[1])-1 <= w.wm && !w.win.Proctime {
				continue // fired already
			}
			kept = true
			if _, seen := sel[win]; !seen {
				order = append(order, win)
			}
			sel[win] = append(sel[win], int32(i))
		}
		if !kept {
			w.late.Add(1)
		}
	}
	for _, win := range order {
		agg := w.windows[win]
		created := agg == nil
		if created {
			agg = NewHashAggregate(w.keys, w.calls, w.in, w.aggOut)
			agg.SetFunctions(w.scripts.ectx)
			if err := agg.Open(ctx); err != nil {
				return err
			}
			w.windows[win] = agg
		}
		rows := sel[win]
		var rec arrow.RecordBatch
		if len(rows) == n {
			rec = b.Rec
		} else {
			var err error
			if rec, err = Gather(b.Rec, rows, nil); err != nil {
				return err
			}
		}
		if w.disk != nil && w.disk.onDisk[win] {
			if err := w.loadBatch(win, agg, rec, created); err != nil {
				return err
			}
		}
		if err := agg.Process(ctx, vectorized.Batch{Rec: rec}, &batchCapture{}); err != nil {
			return err
		}
	}
	if w.win.Proctime {
		// processing time: a window fires once the wall clock passed its
		// end (checked as batches arrive)
		return w.fire(ctx, time.Now().UnixMilli()-1, out)
	}
	return nil
}

// fire emits and frees the windows whose end - 1 is at or below wm, in
// order of window end, then start.
func (w *WindowAggregate) fire(ctx context.Context, wm int64, out vectorized.Collector) error {
	for _, win := range w.dueWindows(wm) {
		if err := w.loadDue(ctx, win); err != nil {
			return err
		}
		agg := w.windows[win]
		delete(w.windows, win)
		if agg == nil {
			continue
		}
		c := &batchCapture{}
		err := agg.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c)
		cerr := agg.Close()
		if err != nil {
			return err
		}
		if cerr != nil {
			return cerr
		}
		for _, r := range c.batches {
			m := r.NumRows()
			if m == 0 {
				continue
			}
			cols := make([]arrow.Array, 0, w.out.NumFields())
			cols = append(cols, r.Rec.Columns()...)
			base := w.aggOut.NumFields()
			for k := base; k < w.out.NumFields(); k++ {
				v := win[0] // window_start, window_end, window_time
				if k-base == 1 {
					v = win[1]
				} else if k-base == 2 {
					v = w.clock.instant(win[1]) - 1
				}
				vals := make([]int64, m)
				for j := range vals {
					vals[j] = v
				}
				a, err := timestampArray(w.out.Field(k).Type, vals)
				if err != nil {
					return err
				}
				cols = append(cols, a)
			}
			rec, err := NewRecord(w.out, cols, int64(m))
			if err != nil {
				return fmt.Errorf("window aggregate: %w", err)
			}
			if err := out.Emit(ctx, vectorized.Batch{Rec: rec}); err != nil {
				return err
			}
		}
	}
	return nil
}

// OnMarker implements vectorized.Operator.
func (w *WindowAggregate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	switch m.Kind {
	case vectorized.Watermark:
		if m.Watermark > w.wm && !w.win.Proctime {
			w.wm = m.Watermark
			if err := w.fire(ctx, w.wm, out); err != nil {
				return err
			}
		}
	case vectorized.EndOfInput:
		if err := w.fire(ctx, math.MaxInt64, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (w *WindowAggregate) Close() error {
	for k, agg := range w.windows {
		_ = agg.Close()
		delete(w.windows, k)
	}
	return w.disk.close()
}
