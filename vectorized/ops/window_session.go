package ops

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// SessionWindowAggregate is the window aggregation of SESSION windows: per
// partition (the window's partition keys), rows closer than the gap to
// each other form one session [first time, last time + gap). The rows of
// open sessions are buffered; when the watermark reaches a session's last
// millisecond the rows of every due session are aggregated per group key
// and session, emitted (+I) followed by window_start, window_end [,
// window_time], and freed. A row whose own window [t, t + gap) ended at
// or before the watermark is late: dropped and counted.
type SessionWindowAggregate struct {
	keys  []int
	calls []logical.AggCall
	win   logical.WindowSpec
	in    types.Schema
	out   *arrow.Schema
	nwin  int
	wm    int64
	parts map[string][]*session
	late  atomic.Int64
	clock *zoneClock
	// rows: the window table function alone (no aggregation): a fired
	// session emits its rows followed by the window columns.
	rows bool
	// scripts: script aggregates (script_agg_stream.go).
	scripts scriptFuncs
}

// NewSessionWindowTableFunction returns the SESSION window table function
// without aggregation: rows are buffered per partition and session, and
// when a session fires its rows are emitted followed by window_start,
// window_end and window_time (out is in ++ those three columns).
func NewSessionWindowTableFunction(win logical.WindowSpec, in types.Schema, out *arrow.Schema) (*SessionWindowAggregate, error) {
	if out.NumFields() != len(in)+3 {
		return nil, fmt.Errorf("session window table function: output schema has %d columns for %d input columns", out.NumFields(), len(in))
	}
	if win.Size <= 0 {
		return nil, fmt.Errorf("session window table function: the gap must be positive")
	}
	return &SessionWindowAggregate{win: win, in: in, out: out, nwin: 3, rows: true,
		wm: math.MinInt64, parts: map[string][]*session{}}, nil
}

// SetTimeZone sets the session time zone: window_start and window_end of
// sessions over a TIMESTAMP_LTZ time column are its wall-clock times.
func (s *SessionWindowAggregate) SetTimeZone(loc *time.Location) {
	if dt, err := types.ArrowType(s.in[s.win.TimeCol].Type); err == nil {
		s.clock = newZoneClock(dt, loc)
	}
}

// session is one open session of a partition.
type session struct {
	start, end int64
	rows       [][]any
}

// NewSessionWindowAggregate returns the operator: keys and calls index the
// input schema in, win.TimeCol and win.PartitionKeys too, out is keys ++
// aggregates ++ window_start, window_end [, window_time].
func NewSessionWindowAggregate(keys []int, calls []logical.AggCall, win logical.WindowSpec, in types.Schema, out *arrow.Schema) (*SessionWindowAggregate, error) {
	nwin := out.NumFields() - len(keys) - len(calls)
	if nwin != 2 && nwin != 3 {
		return nil, fmt.Errorf("session window aggregate: output schema has %d columns for %d keys and %d aggregates", out.NumFields(), len(keys), len(calls))
	}
	if win.Size <= 0 {
		return nil, fmt.Errorf("session window aggregate: the gap must be positive")
	}
	return &SessionWindowAggregate{keys: keys, calls: calls, win: win, in: in, out: out, nwin: nwin,
		wm: math.MinInt64, parts: map[string][]*session{}}, nil
}

// LateRows returns the number of late rows dropped so far.
func (s *SessionWindowAggregate) LateRows() int64 { return s.late.Load() }

// OpenWindows returns the number of sessions holding state.
func (s *SessionWindowAggregate) OpenWindows() int {
	n := 0
	for _, ss := range s.parts {
		n += len(ss)
	}
	return n
}

// Open implements vectorized.Operator.
func (s *SessionWindowAggregate) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (s *SessionWindowAggregate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	tcol := b.Rec.Column(s.win.TimeCol)
	rows := types.RecordRows(b.Rec, s.in)
	var kb strings.Builder
	for i, row := range rows {
		if k := b.Kind(i); k.IsRetraction() {
			return fmt.Errorf("session window aggregate: the input must be insert-only, got %s", k)
		}
		ts, ok, err := eventMillis(tcol, i)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		start, end := ts, ts+s.win.Size
		if end-1 <= s.wm {
			s.late.Add(1)
			continue
		}
		kb.Reset()
		for _, p := range s.win.PartitionKeys {
			fmt.Fprintf(&kb, "%#v\x00", row[p])
		}
		key := kb.String()
		// merge every session that intersects [start, end) (touching
		// sessions merge, as Flink's TimeWindow.intersects)
		merged := &session{start: start, end: end, rows: [][]any{row}}
		cur := s.parts[key]
		for changed := true; changed; {
			changed = false
			kept := cur[:0]
			for _, ss := range cur {
				if ss.start <= merged.end && merged.start <= ss.end {
					merged.start = min(merged.start, ss.start)
					merged.end = max(merged.end, ss.end)
					merged.rows = append(ss.rows, merged.rows...)
					changed = true
					continue
				}
				kept = append(kept, ss)
			}
			cur = kept
		}
		s.parts[key] = append(cur, merged)
	}
	return nil
}

// fire aggregates and emits the sessions whose end - 1 is at or below
// wm.
func (s *SessionWindowAggregate) fire(ctx context.Context, wm int64, out vectorized.Collector) error {
	var due []*session
	for key, ss := range s.parts {
		kept := ss[:0]
		for _, x := range ss {
			if x.end-1 <= wm {
				due = append(due, x)
			} else {
				kept = append(kept, x)
			}
		}
		if len(kept) == 0 {
			delete(s.parts, key)
		} else {
			s.parts[key] = kept
		}
	}
	if len(due) == 0 {
		return nil
	}
	sort.SliceStable(due, func(i, j int) bool {
		if due[i].end != due[j].end {
			return due[i].end < due[j].end
		}
		return due[i].start < due[j].start
	})
	if s.rows {
		return s.emitRows(ctx, due, out)
	}
	// aggregate the rows of all due sessions, grouped by the keys and the
	// session bounds appended to each row
	nin := len(s.in)
	wt := types.Type{Kind: types.BigInt, NotNull: true}
	aggIn := append(append(types.Schema{}, s.in...), types.Field{Name: "$ws", Type: wt}, types.Field{Name: "$we", Type: wt})
	var rows [][]any
	for _, x := range due {
		for _, r := range x.rows {
			rows = append(rows, append(append(make([]any, 0, nin+2), r...), x.start, x.end))
		}
	}
	rec, err := types.BuildRecord(vectorized.Mem, aggIn, rows)
	if err != nil {
		return fmt.Errorf("session window aggregate: %w", err)
	}
	keys := append(append([]int{}, s.keys...), nin, nin+1)
	nk := len(s.keys)
	fields := make([]arrow.Field, 0, nk+2+len(s.calls))
	fields = append(fields, s.out.Fields()[:nk]...)
	fields = append(fields, arrow.Field{Name: "$ws", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "$we", Type: arrow.PrimitiveTypes.Int64})
	fields = append(fields, s.out.Fields()[nk:nk+len(s.calls)]...)
	agg := NewHashAggregate(keys, s.calls, aggIn, arrow.NewSchema(fields, nil))
	agg.SetFunctions(s.scripts.ectx)
	if err := agg.Open(ctx); err != nil {
		return err
	}
	defer agg.Close()
	c := &batchCapture{}
	if err := agg.Process(ctx, vectorized.Batch{Rec: rec}, c); err != nil {
		return err
	}
	if err := agg.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c); err != nil {
		return err
	}
	for _, r := range c.batches {
		m := r.NumRows()
		if m == 0 {
			continue
		}
		cols := make([]arrow.Array, 0, s.out.NumFields())
		cols = append(cols, r.Rec.Columns()[:nk]...)
		cols = append(cols, r.Rec.Columns()[nk+2:]...)
		bounds := [3][]int64{make([]int64, m), make([]int64, m), make([]int64, m)}
		for _, k := range []int{0, 1} {
			a := r.Rec.Column(nk + k).(interface{ Value(int) int64 })
			for j := range m {
				bounds[k][j] = a.Value(j)
			}
		}
		for j := range m {
			bounds[2][j] = bounds[1][j] - 1
			bounds[0][j], bounds[1][j] = s.clock.local(bounds[0][j]), s.clock.local(bounds[1][j])
		}
		base := len(cols)
		for k := range s.nwin {
			a, err := timestampArray(s.out.Field(base+k).Type, bounds[k])
			if err != nil {
				return err
			}
			cols = append(cols, a)
		}
		rec, err := NewRecord(s.out, cols, int64(m))
		if err != nil {
			return fmt.Errorf("session window aggregate: %w", err)
		}
		if err := out.Emit(ctx, vectorized.Batch{Rec: rec}); err != nil {
			return err
		}
	}
	return nil
}

// OnMarker implements vectorized.Operator.
func (s *SessionWindowAggregate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	switch m.Kind {
	case vectorized.Watermark:
		if m.Watermark > s.wm {
			s.wm = m.Watermark
			if err := s.fire(ctx, s.wm, out); err != nil {
				return err
			}
		}
	case vectorized.EndOfInput:
		if err := s.fire(ctx, math.MaxInt64, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (s *SessionWindowAggregate) Close() error {
	s.parts = map[string][]*session{}
	return nil
}

// emitRows emits the rows of the due sessions with their window columns.
func (s *SessionWindowAggregate) emitRows(ctx context.Context, due []*session, out vectorized.Collector) error {
	outSchema := append(append(types.Schema{}, s.in...), logical.WindowColumns(s.in[s.win.TimeCol].Type)...)
	var rows [][]any
	for _, x := range due {
		ws, we, wt := s.clock.local(x.start)*1000, s.clock.local(x.end)*1000, (x.end-1)*1000
		for _, r := range x.rows {
			rows = append(rows, append(append(make([]any, 0, len(r)+3), r...), ws, we, wt))
		}
		if len(rows) >= vectorized.DefaultBatchSize {
			if err := s.emitRecord(ctx, outSchema, rows, out); err != nil {
				return err
			}
			rows = nil
		}
	}
	if len(rows) > 0 {
		return s.emitRecord(ctx, outSchema, rows, out)
	}
	return nil
}

func (s *SessionWindowAggregate) emitRecord(ctx context.Context, schema types.Schema, rows [][]any, out vectorized.Collector) error {
	rec, err := types.BuildRecord(vectorized.Mem, schema, rows)
	if err != nil {
		return fmt.Errorf("session window table function: %w", err)
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec})
}
