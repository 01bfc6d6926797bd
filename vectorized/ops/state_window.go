package ops

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Checkpointed state of the window aggregates.
//
// WindowAggregate (TUMBLE, HOP, CUMULATE) writes every open window into
// the keyed part "windows": the key group of the group key (the GROUP BY
// columns other than the window; a constant without keys), window_start
// and window_end (the operator's internal wall-clock milliseconds), the
// key columns and the partial state of every aggregate call (agg.MergerOf:
// for a DISTINCT call its per-window value sets and the inner state),
// one record per window in order of window end, then start. Restoring
// re-creates each window's hash aggregation with the owned keys, in the
// same group order, so that a fired window emits its rows in the same
// order.
//
// SessionWindowAggregate (aggregation or the SESSION table function alone)
// keeps the rows of its open sessions: it writes them into the keyed part
// "sessions" (key group of the partition keys, session_start, session_end,
// a session number, then the input row), partitions in key order and each
// partition's sessions in their order.
//
// Both write the non-keyed part "window_meta": the current watermark and
// the late rows dropped so far. A restored instance takes the minimum
// watermark over all former instances (never declaring a watermark some
// input has not reached) and, on subtask 0, the sum of the late rows.

// State parts of the window aggregates.
const (
	StatePartWindows    = "windows"
	StatePartSessions   = "sessions"
	StatePartWindowMeta = "window_meta"
)

var (
	_ vectorized.Stateful = (*WindowAggregate)(nil)
	_ vectorized.Stateful = (*SessionWindowAggregate)(nil)
)

// windowMetaSchema is the schema of "window_meta".
var windowMetaSchema = arrow.NewSchema([]arrow.Field{
	{Name: "watermark", Type: arrow.PrimitiveTypes.Int64},
	{Name: "late_rows", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// writeWindowMeta writes the watermark and late row count.
func writeWindowMeta(w vectorized.StateWriter, wm, late int64) error {
	cols := []arrow.Array{aggInt64s(vectorized.Mem, []int64{wm}), aggInt64s(vectorized.Mem, []int64{late})}
	defer releaseArrays(cols)
	rec := array.NewRecordBatch(windowMetaSchema, cols, 1)
	defer rec.Release()
	return w.Write(StatePartWindowMeta, rec)
}

// readWindowMeta returns the minimum watermark over all former instances
// (math.MinInt64 when nobody wrote one) and the sum of their late rows.
func readWindowMeta(r vectorized.StateReader) (wm, late int64, err error) {
	wm = math.MaxInt64
	seen := false
	err = r.Read(StatePartWindowMeta, func(rec arrow.RecordBatch) error {
		if err := aggCheckSchema("window aggregate", rec.Schema(), windowMetaSchema); err != nil {
			return err
		}
		w, l := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
		for i := 0; i < w.Len(); i++ {
			seen = true
			wm = min(wm, w.Value(i))
			late += l.Value(i)
		}
		return nil
	})
	if !seen {
		wm = math.MinInt64
	}
	return wm, late, err
}

// hashAggMergers returns the Mergers of a hash aggregation, or a "not
// supported yet" error naming the first call without exportable state.
func hashAggMergers(h *HashAggregate) ([]agg.Merger, error) {
	if h.spill.spilled {
		return nil, fmt.Errorf("not supported yet: checkpointing a window aggregate whose state spilled to disk")
	}
	ms := make([]agg.Merger, len(h.accs))
	for i, a := range h.accs {
		if sa, script := a.acc.(*scriptAccumulator); script {
			ms[i] = scriptMerger{sa}
			continue
		}
		m, ok := agg.MergerOf(a.acc)
		if !ok {
			return nil, fmt.Errorf("not supported yet: checkpointing %s in a window aggregate", h.calls[i])
		}
		ms[i] = m
	}
	return ms, nil
}

// windowStateSchema is the schema of "windows" for the mergers ms.
func (w *WindowAggregate) windowStateSchema(ms []agg.Merger) (*arrow.Schema, error) {
	fields := []arrow.Field{{Name: "key_group", Type: arrow.PrimitiveTypes.Int32},
		{Name: "window_start", Type: arrow.PrimitiveTypes.Int64}, {Name: "window_end", Type: arrow.PrimitiveTypes.Int64}}
	for i, k := range w.keys {
		if k < 0 || k >= len(w.in) {
			return nil, fmt.Errorf("internal: window aggregate key $%d out of range", k)
		}
		t, err := types.ArrowType(w.in[k].Type)
		if err != nil {
			return nil, err
		}
		fields = append(fields, arrow.Field{Name: w.out.Field(i).Name, Type: t, Nullable: true})
	}
	for i, m := range ms {
		for j, t := range m.StateTypes() {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("agg%d_%d", i, j), Type: t, Nullable: true})
		}
	}
	return arrow.NewSchema(fields, nil), nil
}

// newWindowAgg returns the opened hash aggregation of one window.
func (w *WindowAggregate) newWindowAgg(ctx context.Context) (*HashAggregate, error) {
	h := NewHashAggregate(w.keys, w.calls, w.in, w.aggOut)
	h.SetFunctions(w.scripts.ectx)
	if err := h.Open(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// sortedWindows returns the open windows by end, then start.
func (w *WindowAggregate) sortedWindows() [][2]int64 {
	wins := make([][2]int64, 0, len(w.windows))
	for win := range w.windows {
		wins = append(wins, win)
	}
	sort.Slice(wins, func(i, j int) bool {
		if wins[i][1] != wins[j][1] {
			return wins[i][1] < wins[j][1]
		}
		return wins[i][0] < wins[j][0]
	})
	return wins
}

// SnapshotState implements vectorized.Stateful: every open window's
// groups and partial aggregates ("windows"), the watermark and the late
// row count ("window_meta").
func (w *WindowAggregate) SnapshotState(ctx context.Context, sw vectorized.StateWriter) error {
	if w.disk != nil {
		return w.diskSnapshot(ctx, sw) // state_window_disk.go
	}
	for _, win := range w.sortedWindows() {
		h := w.windows[win]
		ms, err := hashAggMergers(h)
		if err != nil {
			return err
		}
		schema, err := w.windowStateSchema(ms)
		if err != nil {
			return err
		}
		n := h.nGroups
		var cols []arrow.Array
		var keys []arrow.Array
		if h.table != nil {
			keys = h.table.Keys(vectorized.Mem)
		}
		kg := aggKeyGroups(keys, n)
		ws, we := make([]int64, n), make([]int64, n)
		for i := range n {
			ws[i], we[i] = win[0], win[1]
		}
		cols = append(cols, kg, aggInt64s(vectorized.Mem, ws), aggInt64s(vectorized.Mem, we))
		cols = append(cols, keys...)
		for i, m := range ms {
			m.Resize(n)
			st, err := m.State(vectorized.Mem)
			if err != nil {
				releaseArrays(cols)
				if errors.Is(err, errScriptState) {
					return scriptStateError(h.calls[i].Name, err)
				}
				return err
			}
			cols = append(cols, st...)
		}
		rec, err := NewRecord(schema, cols, int64(n))
		releaseArrays(cols)
		if err != nil {
			return err
		}
		err = sw.Write(StatePartWindows, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return writeWindowMeta(sw, w.wm, w.late.Load())
}

// RestoreState implements vectorized.Stateful: the owned groups of every
// window, the minimum watermark and (subtask 0) the late row count.
func (w *WindowAggregate) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	if w.disk != nil {
		if done, err := w.diskRestore(ctx, r); done || err != nil {
			return err // state_window_disk.go; else the cache takes the canonical parts
		}
	} else if err := refuseStoreFiles("WindowAggregate", r); err != nil {
		return err
	}
	var schema *arrow.Schema
	err := r.Read(StatePartWindows, func(rec arrow.RecordBatch) error {
		if schema == nil {
			probe, err := w.newWindowAgg(ctx)
			if err != nil {
				return err
			}
			ms, err := hashAggMergers(probe)
			if err == nil {
				schema, err = w.windowStateSchema(ms)
			}
			_ = probe.Close()
			if err != nil {
				return err
			}
		}
		if err := aggCheckSchema("window aggregate", rec.Schema(), schema); err != nil {
			return err
		}
		own, err := aggOwnedRows(rec, r)
		if err != nil {
			return err
		}
		defer own.Release()
		return w.loadWindows(ctx, own)
	})
	if err != nil {
		return err
	}
	wm, late, err := readWindowMeta(r)
	if err != nil {
		return err
	}
	w.wm = wm
	if r.Subtask() == 0 {
		w.late.Store(late)
	}
	return nil
}

// loadWindows merges the rows of a "windows" record into their windows.
func (w *WindowAggregate) loadWindows(ctx context.Context, rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	ws, we := rec.Column(1).(*array.Int64), rec.Column(2).(*array.Int64)
	byWin := map[[2]int64][]int32{}
	var order [][2]int64
	for i := range n {
		win := [2]int64{ws.Value(i), we.Value(i)}
		if _, ok := byWin[win]; !ok {
			order = append(order, win)
		}
		byWin[win] = append(byWin[win], int32(i))
	}
	nk := len(w.keys)
	for _, win := range order {
		part, err := Gather(rec, byWin[win], nil)
		if err != nil {
			return err
		}
		err = w.loadWindow(ctx, win, part, nk)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// loadWindow inserts the groups of one window's state rows and merges
// their partial aggregates.
func (w *WindowAggregate) loadWindow(ctx context.Context, win [2]int64, rec arrow.RecordBatch, nk int) error {
	h := w.windows[win]
	if h == nil {
		var err error
		if h, err = w.newWindowAgg(ctx); err != nil {
			return err
		}
		w.windows[win] = h
	}
	ms, err := hashAggMergers(h)
	if err != nil {
		return err
	}
	n := int(rec.NumRows())
	ids := make([]uint32, n)
	if h.table != nil {
		keys := rec.Columns()[3 : 3+nk]
		if err := h.table.Insert(keys, n, ids); err != nil {
			return err
		}
		if g := h.table.Len(); g > h.nGroups {
			h.nGroups = g
		}
	}
	col := 3 + nk
	for _, m := range ms {
		k := len(m.StateTypes())
		m.Resize(h.nGroups)
		if err := m.Merge(ids, rec.Columns()[col:col+k]); err != nil {
			return err
		}
		col += k
	}
	return nil
}

// ---- session windows ----

// sessionStateSchema is the schema of "sessions".
func (s *SessionWindowAggregate) sessionStateSchema() (*arrow.Schema, error) {
	in, err := types.ArrowSchema(s.in)
	if err != nil {
		return nil, err
	}
	fields := []arrow.Field{{Name: "key_group", Type: arrow.PrimitiveTypes.Int32},
		{Name: "session_start", Type: arrow.PrimitiveTypes.Int64}, {Name: "session_end", Type: arrow.PrimitiveTypes.Int64},
		{Name: "session", Type: arrow.PrimitiveTypes.Int64}}
	return arrow.NewSchema(append(fields, in.Fields()...), nil), nil
}

// sessionKey is the partition key of a row, as Process computes it.
func (s *SessionWindowAggregate) sessionKey(kb *strings.Builder, row []any) string {
	kb.Reset()
	for _, p := range s.win.PartitionKeys {
		fmt.Fprintf(kb, "%#v\x00", row[p])
	}
	return kb.String()
}

// SnapshotState implements vectorized.Stateful: the rows of every open
// session ("sessions"), the watermark and the late row count
// ("window_meta").
func (s *SessionWindowAggregate) SnapshotState(_ context.Context, sw vectorized.StateWriter) error {
	schema, err := s.sessionStateSchema()
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(s.parts))
	for k := range s.parts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var rows [][]any
	var starts, ends, seqs []int64
	seq := int64(0)
	for _, k := range keys {
		for _, x := range s.parts[k] {
			for _, r := range x.rows {
				rows = append(rows, r)
				starts, ends, seqs = append(starts, x.start), append(ends, x.end), append(seqs, seq)
			}
			seq++
		}
	}
	if len(rows) > 0 {
		data, err := types.BuildRecord(vectorized.Mem, s.in, rows)
		if err != nil {
			return fmt.Errorf("session window snapshot: %w", err)
		}
		hashes := make([]uint64, len(rows))
		vectorized.HashColumns(data, s.win.PartitionKeys, hashes)
		kg := make([]int32, len(rows))
		for i, h := range hashes {
			kg[i] = int32(vectorized.KeyGroup(h, vectorized.DefaultMaxParallelism))
		}
		b := array.NewInt32Builder(vectorized.Mem)
		b.AppendValues(kg, nil)
		cols := []arrow.Array{b.NewArray(), aggInt64s(vectorized.Mem, starts), aggInt64s(vectorized.Mem, ends), aggInt64s(vectorized.Mem, seqs)}
		b.Release()
		cols = append(cols, data.Columns()...)
		rec, err := NewRecord(schema, cols, int64(len(rows)))
		releaseArrays(cols[:4])
		if err != nil {
			data.Release()
			return err
		}
		err = sw.Write(StatePartSessions, rec)
		rec.Release()
		data.Release()
		if err != nil {
			return err
		}
	}
	return writeWindowMeta(sw, s.wm, s.late.Load())
}

// RestoreState implements vectorized.Stateful: the owned sessions, the
// minimum watermark and (subtask 0) the late row count.
func (s *SessionWindowAggregate) RestoreState(_ context.Context, r vectorized.StateReader) error {
	schema, err := s.sessionStateSchema()
	if err != nil {
		return err
	}
	var kb strings.Builder
	err = r.Read(StatePartSessions, func(rec arrow.RecordBatch) error {
		if err := aggCheckSchema("session window aggregate", rec.Schema(), schema); err != nil {
			return err
		}
		own, err := aggOwnedRows(rec, r)
		if err != nil {
			return err
		}
		defer own.Release()
		n := int(own.NumRows())
		if n == 0 {
			return nil
		}
		data := array.NewRecordBatch(arrow.NewSchema(schema.Fields()[4:], nil), own.Columns()[4:], int64(n))
		defer data.Release()
		rows := types.RecordRows(data, s.in)
		starts, ends := own.Column(1).(*array.Int64), own.Column(2).(*array.Int64)
		seqs := own.Column(3).(*array.Int64)
		var cur *session
		for i, row := range rows {
			if cur == nil || i == 0 || seqs.Value(i) != seqs.Value(i-1) {
				cur = &session{start: starts.Value(i), end: ends.Value(i)}
				key := s.sessionKey(&kb, row)
				s.parts[key] = append(s.parts[key], cur)
			}
			cur.rows = append(cur.rows, row)
		}
		return nil
	})
	if err != nil {
		return err
	}
	wm, late, err := readWindowMeta(r)
	if err != nil {
		return err
	}
	s.wm = wm
	if r.Subtask() == 0 {
		s.late.Store(late)
	}
	return nil
}
