package ops

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// External merge sort: when the batches a Sort buffers exceed its memory
// budget, they are sorted and written to disk as a sorted run (Arrow IPC,
// zstd); at EndOfInput the runs are merged (at most maxFanIn at a time)
// and the merged order is emitted. Runs are merged with ties broken by run
// number, so the sort stays stable. A SortLimit keeps only the first
// offset+fetch rows of each run.

// maxFanIn is the most runs merged at once: each open run holds one batch
// in memory.
const maxFanIn = 64

// externalSort is the spill state of a Sort.
type externalSort struct {
	sp    spiller
	runs  []*spillFile
	bytes int64
}

// SetSpill sets the memory budget and spill directory; call before Open.
func (s *Sort) SetSpill(cfg SpillConfig) { s.ext.sp.cfg = cfg }

// OpStats implements StatsReporter.
func (s *Sort) OpStats() OpStats { return s.ext.sp.stats }

// checkBudget accounts the buffered batches and spills a sorted run when
// they exceed the budget.
func (s *Sort) checkBudget() error {
	if s.ext.bytes > s.ext.sp.stats.PeakStateBytes {
		s.ext.sp.stats.PeakStateBytes = s.ext.bytes
	}
	if !s.ext.sp.enabled() || s.ext.bytes <= s.ext.sp.cfg.Budget {
		return nil
	}
	if s.fetch >= 0 && s.rows > s.offset+s.fetch {
		if err := s.prune(); err != nil {
			return err
		}
		s.ext.bytes = recordBytes(s.recs[0])
		if s.ext.bytes <= s.ext.sp.cfg.Budget {
			return nil
		}
	}
	return s.spillRun()
}

// spillRun writes the buffered rows as one sorted run.
func (s *Sort) spillRun() error {
	if len(s.recs) == 0 {
		return nil
	}
	rec, idx, err := s.sorted()
	if err != nil {
		return err
	}
	if s.fetch >= 0 {
		idx = idx[:min(int64(len(idx)), s.offset+s.fetch)]
	}
	f, err := s.ext.sp.create(s.schema)
	if err != nil {
		return err
	}
	s.ext.runs = append(s.ext.runs, f)
	for len(idx) > 0 {
		k := min(len(idx), batchSize)
		r, err := Gather(rec, idx[:k], s.schema)
		if err != nil {
			return err
		}
		err = f.write(r)
		r.Release()
		if err != nil {
			return err
		}
		idx = idx[k:]
	}
	if err := f.finish(); err != nil {
		return err
	}
	s.recs = nil
	s.rows = 0
	s.ext.bytes = 0
	s.ext.sp.stats.SpillCount++
	return nil
}

// emitExternal spills what is left, merges the runs and emits the order.
func (s *Sort) emitExternal(ctx context.Context, out vectorized.Collector) error {
	if err := s.spillRun(); err != nil {
		return err
	}
	limit := int64(-1)
	if s.fetch >= 0 {
		limit = s.offset + s.fetch
	}
	runs := s.ext.runs
	for len(runs) > maxFanIn {
		f, err := s.ext.sp.create(s.schema)
		if err != nil {
			return err
		}
		err = s.mergeRuns(ctx, runs[:maxFanIn], 0, limit, func(r arrow.RecordBatch) error { return f.write(r) })
		if err != nil {
			return err
		}
		if err := f.finish(); err != nil {
			return err
		}
		for _, r := range runs[:maxFanIn] {
			r.remove()
		}
		// The merged runs are the oldest input: it stays first, so that
		// ties keep their input order.
		runs = append([]*spillFile{f}, runs[maxFanIn:]...)
	}
	return s.mergeRuns(ctx, runs, s.offset, s.fetch, func(r arrow.RecordBatch) error {
		return out.Emit(ctx, vectorized.Batch{Rec: r})
	})
}

// runCursor is the read position in one sorted run.
type runCursor struct {
	r   *spillReader
	rec arrow.RecordBatch // retained
	row int
	run int
	seg int // the chunk segment its rows go to, -1 for none
}

// advance moves to the next row; ok is false at the end of the run.
func (c *runCursor) advance() (bool, error) {
	c.row++
	for c.rec == nil || c.row >= int(c.rec.NumRows()) {
		if c.rec != nil {
			c.rec.Release()
			c.rec = nil
		}
		rec, err := c.r.next()
		if err != nil || rec == nil {
			return false, err
		}
		rec.Retain()
		c.rec, c.row, c.seg = rec, 0, -1
	}
	return true, nil
}

// mergeSegment is a contiguous row range of one run's batch in the output
// chunk being built.
type mergeSegment struct {
	rec    arrow.RecordBatch
	lo, hi int
}

// mergeRuns merges runs in key order, skipping offset rows and passing at
// most fetch rows (fetch < 0: all) to emit in batches.
func (s *Sort) mergeRuns(ctx context.Context, runs []*spillFile, offset, fetch int64, emit func(arrow.RecordBatch) error) (err error) {
	h := &cursorHeap{keys: s.keys}
	defer func() {
		for _, c := range h.cs {
			if c.rec != nil {
				c.rec.Release()
			}
			c.r.close()
		}
	}()
	for i, f := range runs {
		r, err := f.open()
		if err != nil {
			return err
		}
		c := &runCursor{r: r, run: i, row: -1, seg: -1}
		ok, err := c.advance()
		if err != nil {
			r.close()
			return err
		}
		if !ok {
			r.close()
			continue
		}
		h.cs = append(h.cs, c)
	}
	h.init()
	var (
		segs    []mergeSegment
		refs    []int32 // segment of each output row
		rows    []int32 // row within the segment's batch
		skipped int64
		emitted int64
	)
	flush := func() error {
		if len(refs) == 0 {
			return nil
		}
		parts := make([]arrow.RecordBatch, len(segs))
		start := make([]int32, len(segs))
		n := int32(0)
		for i, sg := range segs {
			parts[i] = sg.rec.NewSlice(int64(sg.lo), int64(sg.hi))
			start[i] = n
			n += int32(sg.hi - sg.lo)
		}
		all, err := concatRecords(s.schema, parts)
		if err != nil {
			return err
		}
		idx := make([]int32, len(refs))
		for k, sg := range refs {
			idx[k] = start[sg] + rows[k] - int32(segs[sg].lo)
		}
		rec, err := Gather(all, idx, s.schema)
		for _, p := range parts {
			p.Release()
		}
		for _, sg := range segs {
			sg.rec.Release()
		}
		segs, refs, rows = segs[:0], refs[:0], rows[:0]
		for _, c := range h.cs {
			c.seg = -1
		}
		if err != nil {
			return err
		}
		emitted += rec.NumRows()
		return emit(rec)
	}
	for len(h.cs) > 0 {
		if fetch >= 0 && emitted+int64(len(refs)) >= fetch {
			break
		}
		c := h.cs[0]
		if skipped < offset {
			skipped++
		} else {
			if c.seg < 0 || segs[c.seg].rec != c.rec || segs[c.seg].hi != c.row {
				c.rec.Retain()
				segs = append(segs, mergeSegment{rec: c.rec, lo: c.row, hi: c.row + 1})
				c.seg = len(segs) - 1
			} else {
				segs[c.seg].hi++
			}
			refs = append(refs, int32(c.seg))
			rows = append(rows, int32(c.row))
			if len(refs) >= batchSize {
				if err := flush(); err != nil {
					return err
				}
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
		ok, err := c.advance()
		if err != nil {
			return err
		}
		if !ok {
			c.r.close()
			h.pop()
			continue
		}
		h.fix()
	}
	return flush()
}

// cursorHeap is a binary min-heap of run cursors ordered by their current
// row, then by run number.
type cursorHeap struct {
	keys []logical.SortKey
	cs   []*runCursor
}

func (h *cursorHeap) less(a, b *runCursor) bool {
	for _, k := range h.keys {
		x, y := a.rec.Column(k.Index), b.rec.Column(k.Index)
		xn, yn := x.IsNull(a.row), y.IsNull(b.row)
		if xn || yn {
			if xn && yn {
				continue
			}
			if xn == k.NullsFirst {
				return true
			}
			return false
		}
		c := compareAt(x, a.row, y, b.row)
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return a.run < b.run
}

func (h *cursorHeap) init() {
	for i := len(h.cs)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// fix restores the heap after the top cursor moved.
func (h *cursorHeap) fix() { h.down(0) }

// pop removes the top cursor.
func (h *cursorHeap) pop() {
	n := len(h.cs) - 1
	h.cs[0] = h.cs[n]
	h.cs = h.cs[:n]
	if n > 0 {
		h.down(0)
	}
}

func (h *cursorHeap) down(i int) {
	n := len(h.cs)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(h.cs[r], h.cs[l]) {
			m = r
		}
		if !h.less(h.cs[m], h.cs[i]) {
			return
		}
		h.cs[i], h.cs[m] = h.cs[m], h.cs[i]
		i = m
	}
}

// compareAt compares the non-NULL values a[i] and b[j] of two arrays of
// one type in SQL order (floats as Java's Double.compare).
func compareAt(a arrow.Array, i int, b arrow.Array, j int) int {
	switch x := a.(type) {
	case *array.Int8:
		return cmp.Compare(x.Value(i), b.(*array.Int8).Value(j))
	case *array.Int16:
		return cmp.Compare(x.Value(i), b.(*array.Int16).Value(j))
	case *array.Int32:
		return cmp.Compare(x.Value(i), b.(*array.Int32).Value(j))
	case *array.Int64:
		return cmp.Compare(x.Value(i), b.(*array.Int64).Value(j))
	case *array.Uint8:
		return cmp.Compare(x.Value(i), b.(*array.Uint8).Value(j))
	case *array.Uint16:
		return cmp.Compare(x.Value(i), b.(*array.Uint16).Value(j))
	case *array.Uint32:
		return cmp.Compare(x.Value(i), b.(*array.Uint32).Value(j))
	case *array.Uint64:
		return cmp.Compare(x.Value(i), b.(*array.Uint64).Value(j))
	case *array.Float32:
		return javaDoubleCompare(float64(x.Value(i)), float64(b.(*array.Float32).Value(j)))
	case *array.Float64:
		return javaDoubleCompare(x.Value(i), b.(*array.Float64).Value(j))
	case *array.Date32:
		return cmp.Compare(x.Value(i), b.(*array.Date32).Value(j))
	case *array.Date64:
		return cmp.Compare(x.Value(i), b.(*array.Date64).Value(j))
	case *array.Time32:
		return cmp.Compare(x.Value(i), b.(*array.Time32).Value(j))
	case *array.Time64:
		return cmp.Compare(x.Value(i), b.(*array.Time64).Value(j))
	case *array.Timestamp:
		return cmp.Compare(x.Value(i), b.(*array.Timestamp).Value(j))
	case *array.Duration:
		return cmp.Compare(x.Value(i), b.(*array.Duration).Value(j))
	case *array.MonthInterval:
		return cmp.Compare(x.Value(i), b.(*array.MonthInterval).Value(j))
	case *array.Decimal128:
		var v decimal128.Num = x.Value(i)
		return v.Cmp(b.(*array.Decimal128).Value(j))
	case *array.Boolean:
		p, q := x.Value(i), b.(*array.Boolean).Value(j)
		switch {
		case p == q:
			return 0
		case q:
			return -1
		}
		return 1
	case *array.String:
		return strings.Compare(x.Value(i), b.(*array.String).Value(j))
	case *array.Binary:
		return bytes.Compare(x.Value(i), b.(*array.Binary).Value(j))
	case *array.Null:
		return 0
	}
	// Other types: the generic comparator (allocates; rare).
	c, err := newValueCmp(a, b)
	if err != nil {
		panic(fmt.Sprintf("internal: %v", err))
	}
	return c(i, j)
}
