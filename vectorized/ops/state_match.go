package ops

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpoint state of Match (Flink's CepOperator keeps the NFA state and
// the shared buffer of events per key). Keyed parts (key_group of the
// PARTITION BY columns):
//   - "pending": the rows an event-time Match holds until the watermark
//     passes them (all rows of a batch-mode Match), in arrival order;
//   - "events": every row a partial or completed match of the partition
//     references, with its "seq" (the operator's event id) and "ts"
//     (milliseconds);
//   - "states": per partition its partial matches and then its completed
//     matches waiting for an earlier partial one, in order: "kind" (0
//     partial, 1 completed), "elem" and "count" (the NFA position) and
//     "path" ("seq:elem" per mapped row, comma-separated); the row columns
//     are the match's first row.
//
// The non-keyed part "watermark" holds "wm" and "has_wm" (0 or 1). Event
// ids continue after the largest restored one.

var _ vectorized.Stateful = (*Match)(nil)

var (
	matchEventFields = []arrow.Field{{Name: "seq", Type: arrow.PrimitiveTypes.Int64}, {Name: "ts", Type: arrow.PrimitiveTypes.Int64}}
	matchStateFields = []arrow.Field{
		{Name: "kind", Type: arrow.PrimitiveTypes.Int64},
		{Name: "elem", Type: arrow.PrimitiveTypes.Int64},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64},
		{Name: "path", Type: arrow.BinaryTypes.String},
	}
)

func stringArray(vs []string) arrow.Array {
	b := array.NewStringBuilder(vectorized.Mem)
	defer b.Release()
	b.AppendValues(vs, nil)
	return b.NewArray()
}

// SnapshotState implements vectorized.Stateful.
func (m *Match) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	if len(m.buf.rows) > 0 {
		return fmt.Errorf("internal: MATCH_RECOGNIZE snapshot with %d unflushed rows", len(m.buf.rows))
	}
	pending, err := newStateRows("pending", m.spec.In, m.spec.Partition)
	if err != nil {
		return err
	}
	if err := pending.write(w, m.pending, nil); err != nil {
		return err
	}
	keys := make([]string, 0, len(m.parts))
	for k := range m.parts {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a deterministic snapshot
	var evRows, stRows [][]any
	var seqs, tss, kinds, elems, counts []int64
	var paths []string
	for _, k := range keys {
		p := m.parts[k]
		seen := map[int64]bool{}
		add := func(kind int64, s *matchState) {
			var b strings.Builder
			for i, st := range s.path {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatInt(st.ev.seq, 10) + ":" + strconv.Itoa(st.elem))
				if !seen[st.ev.seq] {
					seen[st.ev.seq] = true
					evRows = append(evRows, st.ev.row)
					seqs, tss = append(seqs, st.ev.seq), append(tss, st.ev.ts)
				}
			}
			stRows = append(stRows, s.path[0].ev.row)
			kinds, elems, counts = append(kinds, kind), append(elems, int64(s.elem)), append(counts, int64(s.count))
			paths = append(paths, b.String())
		}
		for _, s := range p.partials {
			add(0, s)
		}
		for _, s := range p.completed {
			add(1, s)
		}
	}
	events, err := newStateRows("events", m.spec.In, m.spec.Partition, matchEventFields...)
	if err != nil {
		return err
	}
	if err := events.write(w, evRows, []arrow.Array{int64Array(seqs), int64Array(tss)}); err != nil {
		return err
	}
	states, err := newStateRows("states", m.spec.In, m.spec.Partition, matchStateFields...)
	if err != nil {
		return err
	}
	if err := states.write(w, stRows, []arrow.Array{int64Array(kinds), int64Array(elems), int64Array(counts), stringArray(paths)}); err != nil {
		return err
	}
	has := int64(0)
	if m.hasWM {
		has = 1
	}
	return writeInt64s(w, "watermark", []string{"wm", "has_wm"}, []int64{m.wm, has})
}

// RestoreState implements vectorized.Stateful.
func (m *Match) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	pending, err := newStateRows("pending", m.spec.In, m.spec.Partition)
	if err != nil {
		return err
	}
	if err := pending.read(r, func(_ arrow.RecordBatch, _ int, row []any) error {
		m.pending = append(m.pending, row)
		return nil
	}); err != nil {
		return err
	}
	events, err := newStateRows("events", m.spec.In, m.spec.Partition, matchEventFields...)
	if err != nil {
		return err
	}
	byKey := map[string]map[int64]*matchEvent{}
	if err := events.read(r, func(rec arrow.RecordBatch, i int, row []any) error {
		seq := rec.Column(1).(*array.Int64).Value(i)
		ts := rec.Column(2).(*array.Int64).Value(i)
		k := keyOf(row, m.spec.Partition)
		if byKey[k] == nil {
			byKey[k] = map[int64]*matchEvent{}
		}
		byKey[k][seq] = &matchEvent{seq: seq, ts: ts, row: row}
		m.seq = max(m.seq, seq+1)
		return nil
	}); err != nil {
		return err
	}
	states, err := newStateRows("states", m.spec.In, m.spec.Partition, matchStateFields...)
	if err != nil {
		return err
	}
	if err := states.read(r, func(rec arrow.RecordBatch, i int, row []any) error {
		kind := rec.Column(1).(*array.Int64).Value(i)
		s := &matchState{elem: int(rec.Column(2).(*array.Int64).Value(i)), count: int(rec.Column(3).(*array.Int64).Value(i))}
		k := keyOf(row, m.spec.Partition)
		evs := byKey[k]
		for _, step := range strings.Split(rec.Column(4).(*array.String).Value(i), ",") {
			seqS, elS, ok := strings.Cut(step, ":")
			seq, err1 := strconv.ParseInt(seqS, 10, 64)
			el, err2 := strconv.Atoi(elS)
			if !ok || err1 != nil || err2 != nil || el < 0 || el >= len(m.spec.Elems) || evs[seq] == nil {
				return fmt.Errorf("restoring MATCH_RECOGNIZE states: bad path %q (the query changed?)", step)
			}
			s.path = append(s.path, matchStep{ev: evs[seq], elem: el})
		}
		if s.elem < 0 || s.elem > len(m.spec.Elems) {
			return fmt.Errorf("restoring MATCH_RECOGNIZE states: pattern position %d of %d elements (the query changed?)", s.elem, len(m.spec.Elems))
		}
		p := m.parts[k]
		if p == nil {
			p = &matchPart{}
			m.parts[k] = p
		}
		if kind == 0 {
			p.partials = append(p.partials, s)
		} else {
			p.completed = append(p.completed, s)
		}
		return nil
	}); err != nil {
		return err
	}
	mins, ok, err := minInt64s(r, "watermark", 2)
	if err != nil || !ok {
		return err
	}
	m.wm, m.hasWM = mins[0], mins[1] == 1
	return nil
}
