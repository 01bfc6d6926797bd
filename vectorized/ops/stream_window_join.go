package ops

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// WindowJoinSpec describes a window join.
type WindowJoinSpec struct {
	// Join is the join of the rows of one window: kind, keys (window
	// bounds included), condition and schemas.
	Join JoinSpec
	// LeftEnd and RightEnd are the window_end columns.
	LeftEnd, RightEnd int
	// LeftTypes and RightTypes are the input schemas, and HashKeys the
	// columns each input is routed by (the keys other than the window
	// bounds), for checkpoints.
	LeftTypes, RightTypes types.Schema
	HashKeys              [2][]int
}

// WindowJoin is Flink's window join (WindowJoinOperator): the rows of
// each side are buffered by window; when the watermark reaches the end of
// a window minus one millisecond, the window's rows are joined as a batch
// hash join does (the right side builds), outer rows without a match are
// padded with NULLs, and the window is freed. Rows of a window that
// already fired are late and dropped. Windows fire in the order of their
// ends; the end of both inputs fires the rest.
type WindowJoin struct {
	spec    WindowJoinSpec
	markers *inputMarkers
	bufs    [2]map[int64][]vectorized.Batch
	wm      int64
	clock   *zoneClock
	late    int64
	disk    *windowJoinDisk // the disk state backend (state_timejoin_disk.go)
}

// NewWindowJoin returns a window join.
func NewWindowJoin(spec WindowJoinSpec) *WindowJoin {
	return &WindowJoin{spec: spec, markers: newInputMarkers(2), wm: math.MinInt64,
		bufs: [2]map[int64][]vectorized.Batch{{}, {}}}
}

// SetTimeZone aligns the windows in loc: window_end is a wall-clock time
// there (windows over a TIMESTAMP_LTZ time attribute).
func (j *WindowJoin) SetTimeZone(loc *time.Location) {
	j.clock = newZoneClock(&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, loc)
}

// Open implements the multi-input operator protocol.
func (j *WindowJoin) Open(context.Context) error {
	s := j.spec
	if s.Join.Left == nil || s.Join.Right == nil || s.Join.Out == nil {
		return fmt.Errorf("internal: window join without schemas")
	}
	if s.LeftEnd < 0 || s.LeftEnd >= s.Join.Left.NumFields() || s.RightEnd < 0 || s.RightEnd >= s.Join.Right.NumFields() {
		return fmt.Errorf("internal: window end column out of range")
	}
	if j.disk != nil {
		return j.openDisk()
	}
	return nil
}

// fired reports whether the window ending at end (wall clock) has fired.
func (j *WindowJoin) fired(end int64) bool {
	return j.clock.instant(end)-1 <= j.wm
}

// Process buffers a batch of one side by window.
func (j *WindowJoin) Process(_ context.Context, side int, b vectorized.Batch, _ vectorized.Collector) error {
	if j.disk != nil && b.NumRows() > 0 {
		if err := j.maybeSpill(); err != nil {
			return err
		}
	}
	return j.buffer(side, b, true)
}

// buffer adds the rows of b to the windows of side; dropLate drops the
// rows of windows that already fired.
func (j *WindowJoin) buffer(side int, b vectorized.Batch, dropLate bool) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	col := j.spec.LeftEnd
	if side == 1 {
		col = j.spec.RightEnd
	}
	ends := b.Rec.Column(col)
	rows := map[int64][]int32{}
	var order []int64
	for i := range n {
		if b.Kind(i).IsRetraction() {
			return fmt.Errorf("internal: a window join input must be insert-only, got %s", b.Kind(i))
		}
		end, ok, err := eventMillis(ends, i)
		if err != nil {
			return err
		}
		if !ok || dropLate && j.fired(end) {
			j.late++
			continue
		}
		if _, seen := rows[end]; !seen {
			order = append(order, end)
		}
		rows[end] = append(rows[end], int32(i))
	}
	for _, end := range order {
		idx := rows[end]
		part := b.Rec
		if len(idx) != n {
			var err error
			if part, err = Gather(b.Rec, idx, b.Rec.Schema()); err != nil {
				return err
			}
		}
		j.bufs[side][end] = append(j.bufs[side][end], vectorized.Batch{Rec: part})
	}
	return nil
}

// sortedEnds returns the window ends of buf in ascending order.
func sortedEnds(buf map[int64][]vectorized.Batch) []int64 {
	ends := make([]int64, 0, len(buf))
	for end := range buf {
		ends = append(ends, end)
	}
	slices.Sort(ends)
	return ends
}

// fire joins and frees the windows that fired (all: every window), in
// the order of their ends.
func (j *WindowJoin) fire(ctx context.Context, out vectorized.Collector, all bool) error {
	var ends []int64
	seen := map[int64]bool{}
	for _, buf := range j.bufs {
		for end := range buf {
			if !seen[end] && (all || j.fired(end)) {
				seen[end] = true
				ends = append(ends, end)
			}
		}
	}
	for _, end := range j.storedEnds(all) {
		if !seen[end] {
			seen[end] = true
			ends = append(ends, end)
		}
	}
	slices.Sort(ends)
	for _, end := range ends {
		if err := j.loadDue(end); err != nil {
			return err
		}
		if err := j.joinWindow(ctx, end, out); err != nil {
			return err
		}
		delete(j.bufs[0], end)
		delete(j.bufs[1], end)
	}
	return nil
}

// joinWindow joins the buffered rows of one window.
func (j *WindowJoin) joinWindow(ctx context.Context, end int64, out vectorized.Collector) error {
	h := NewHashJoin(j.spec.Join)
	if err := h.Open(ctx); err != nil {
		return err
	}
	defer h.Close()
	for _, b := range j.bufs[1][end] {
		if err := h.ProcessBuild(ctx, b); err != nil {
			return err
		}
	}
	if err := h.FinishBuild(ctx); err != nil {
		return err
	}
	rows := rowsOnly{out}
	for _, b := range j.bufs[0][end] {
		if err := h.Process(ctx, b, rows); err != nil {
			return err
		}
	}
	return h.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, rows)
}

// rowsOnly passes batches and drops markers.
type rowsOnly struct{ out vectorized.Collector }

// Emit implements vectorized.Collector.
func (r rowsOnly) Emit(ctx context.Context, b vectorized.Batch) error { return r.out.Emit(ctx, b) }

// EmitMarker implements vectorized.Collector.
func (rowsOnly) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// OnMarker handles a marker of one side: the minimum watermark of the
// inputs fires the windows it passed and is forwarded; the end of both
// inputs fires every window left.
func (j *WindowJoin) OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error {
	return j.markers.onMarker(ctx, side, m, &wjMarkers{j: j, out: out})
}

// LateRows returns the number of late rows dropped so far.
func (j *WindowJoin) LateRows() int64 { return j.late }

type wjMarkers struct {
	j   *WindowJoin
	out vectorized.Collector
}

// Emit implements vectorized.Collector.
func (c *wjMarkers) Emit(ctx context.Context, b vectorized.Batch) error { return c.out.Emit(ctx, b) }

// EmitMarker implements vectorized.Collector.
func (c *wjMarkers) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	switch m.Kind {
	case vectorized.Watermark:
		c.j.wm = max(c.j.wm, m.Watermark)
		if err := c.j.fire(ctx, c.out, false); err != nil {
			return err
		}
	case vectorized.EndOfInput:
		if err := c.j.fire(ctx, c.out, true); err != nil {
			return err
		}
	}
	return c.out.EmitMarker(ctx, m)
}

// Close releases the buffered windows.
func (j *WindowJoin) Close() error {
	j.bufs = [2]map[int64][]vectorized.Batch{{}, {}}
	return j.disk.close()
}
