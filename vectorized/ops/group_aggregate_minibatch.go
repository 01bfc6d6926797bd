package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Mini-batch streaming aggregation: a MiniBatchAssigner near the sources
// cuts the stream into bundles with EndOfBundle markers; the aggregates
// buffer a bundle and, when it closes (the marker, EndOfInput, or the size
// limit reached in the aggregate itself), apply it to their state at once
// and emit ONE net change per group: +I for a new group, -U/+U for a
// changed result, -D for a group whose last row was retracted, nothing for
// an unchanged result (unless state TTL is on, as without mini-batch).

var bundleEnd = vectorized.Marker{Kind: vectorized.EndOfBundle}

// MiniBatchAssigner passes rows through and closes a bundle (emits an
// EndOfBundle marker) after size rows or once interval of processing time
// has passed since the bundle's first row. Time is checked when a batch
// arrives: a source that stays silent holds its last bundle until the next
// batch or the end of the input.
type MiniBatchAssigner struct {
	interval time.Duration
	size     int64
	now      func() time.Time
	rows     int64
	start    time.Time
}

var _ vectorized.Operator = (*MiniBatchAssigner)(nil)

// NewMiniBatchAssigner returns the assigner of bundles of at most size
// rows (<= 0: no limit) and interval (<= 0: no limit).
func NewMiniBatchAssigner(interval time.Duration, size int64) *MiniBatchAssigner {
	return &MiniBatchAssigner{interval: interval, size: size, now: time.Now}
}

// Open implements vectorized.Operator.
func (m *MiniBatchAssigner) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (m *MiniBatchAssigner) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	if m.rows == 0 {
		m.start = m.now()
	}
	if err := out.Emit(ctx, b); err != nil {
		return err
	}
	m.rows += int64(n)
	if m.size > 0 && m.rows >= m.size || m.interval > 0 && m.now().Sub(m.start) >= m.interval {
		m.rows = 0
		return out.EmitMarker(ctx, bundleEnd)
	}
	return nil
}

// OnMarker implements vectorized.Operator: markers pass through.
func (m *MiniBatchAssigner) OnMarker(ctx context.Context, mk vectorized.Marker, out vectorized.Collector) error {
	if mk.Kind == vectorized.EndOfBundle {
		m.rows = 0
	}
	return out.EmitMarker(ctx, mk)
}

// Close implements vectorized.Operator.
func (m *MiniBatchAssigner) Close() error { return nil }

// bundleBuffer holds the batches of the current bundle.
type bundleBuffer struct {
	size  int64
	batch []vectorized.Batch
	rows  int64
}

// add buffers b and reports whether the bundle is full.
func (u *bundleBuffer) add(b vectorized.Batch) bool {
	if b.NumRows() == 0 {
		return false
	}
	u.batch = append(u.batch, b)
	u.rows += int64(b.NumRows())
	return u.size > 0 && u.rows >= u.size
}

// take returns the bundle as one batch (nil record when empty) and
// empties the buffer.
func (u *bundleBuffer) take(schema *arrow.Schema) (vectorized.Batch, error) {
	bs := u.batch
	u.batch, u.rows = u.batch[:0:0], 0
	switch len(bs) {
	case 0:
		return vectorized.Batch{}, nil
	case 1:
		return bs[0], nil
	}
	recs := make([]arrow.RecordBatch, len(bs))
	var kinds []changelog.RowKind
	hasKinds := false
	for i, b := range bs {
		recs[i] = b.Rec
		hasKinds = hasKinds || b.Kinds != nil
	}
	if hasKinds {
		for _, b := range bs {
			if b.Kinds != nil {
				kinds = append(kinds, b.Kinds...)
			} else {
				kinds = append(kinds, make([]changelog.RowKind, b.NumRows())...)
			}
		}
	}
	rec, err := concatRecords(schema, recs)
	if err != nil {
		return vectorized.Batch{}, err
	}
	return vectorized.Batch{Rec: rec, Kinds: kinds}, nil
}

// MiniBatchGroupAggregate is the streaming GROUP BY with mini-batch
// (Flink's MiniBatchGroupAggFunction): the state and the accumulators are
// those of GroupAggregate, but a whole bundle is stepped at once and only
// each group's net change is emitted.
type MiniBatchGroupAggregate struct {
	*GroupAggregate
	buf     bundleBuffer
	inArrow *arrow.Schema

	epoch  uint32
	seen   []uint32 // bundle epoch a group was last touched in
	first  []int32  // first row of the group in the bundle
	last   []int32  // last row of the group in the bundle
	before []int64  // the group's row count before the bundle
}

var _ vectorized.Operator = (*MiniBatchGroupAggregate)(nil)

// NewMiniBatchGroupAggregate returns the mini-batch form of
// NewGroupAggregate; a bundle also closes in the aggregate once it holds
// size rows (<= 0: only on markers).
func NewMiniBatchGroupAggregate(groupKeys []int, calls []logical.AggCall, in types.Schema, out *arrow.Schema, opts GroupAggregateOptions, size int64) *MiniBatchGroupAggregate {
	return &MiniBatchGroupAggregate{GroupAggregate: NewGroupAggregate(groupKeys, calls, in, out, opts), buf: bundleBuffer{size: size}}
}

// Open implements vectorized.Operator.
func (m *MiniBatchGroupAggregate) Open(ctx context.Context) error {
	s, err := types.ArrowSchema(m.in)
	if err != nil {
		return err
	}
	m.inArrow = s
	return m.GroupAggregate.Open(ctx)
}

// Process implements vectorized.Operator: the batch is buffered.
func (m *MiniBatchGroupAggregate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if m.buf.add(b) {
		return m.flush(ctx, out)
	}
	return nil
}

// OnMarker implements vectorized.Operator: EndOfBundle, a checkpoint
// barrier and EndOfInput close the bundle; every marker is forwarded.
func (m *MiniBatchGroupAggregate) OnMarker(ctx context.Context, mk vectorized.Marker, out vectorized.Collector) error {
	switch mk.Kind {
	case vectorized.EndOfBundle, vectorized.EndOfInput, vectorized.CheckpointBarrier:
		if err := m.flush(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, mk)
}

func (m *MiniBatchGroupAggregate) flush(ctx context.Context, out vectorized.Collector) error {
	b, err := m.buf.take(m.inArrow)
	if err != nil || b.NumRows() == 0 {
		return err
	}
	return m.bundle(ctx, b, out)
}

// bundle applies one bundle to the state and emits the net changes.
func (m *MiniBatchGroupAggregate) bundle(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	h := m.GroupAggregate
	n := b.NumRows()
	rec := b.Rec
	if int(rec.NumCols()) != len(h.in) {
		return fmt.Errorf("internal: aggregate input of %d columns, want %d", rec.NumCols(), len(h.in))
	}
	h.ids = resize(h.ids, n)
	ids := h.ids
	if err := h.maybeCompact(ctx); err != nil {
		return err
	}
	before := h.nGroups
	if h.table != nil {
		for i, k := range h.groupKeys {
			h.keyBuf[i] = rec.Column(k)
		}
		if err := h.table.Insert(h.keyBuf, n, ids); err != nil {
			return err
		}
		h.grow(h.table.Len())
	} else {
		clear(ids)
	}
	if h.disk != nil {
		if err := h.loadNew(rec, ids, before); err != nil {
			return err
		}
		h.disk.markDirty(ids, h.nGroups)
	}
	h.touchGroups(ids)
	h.delta.mark(ids, h.nGroups)
	for len(m.seen) < h.nGroups {
		m.seen = append(m.seen, 0)
		m.first = append(m.first, 0)
		m.last = append(m.last, 0)
		m.before = append(m.before, 0)
	}
	m.epoch++
	touched := make([]uint32, 0, 64)
	h.base = resize(h.base, n)
	h.changed = resize(h.changed, n)
	clear(h.changed)
	for i, g := range ids {
		if m.seen[g] != m.epoch {
			m.seen[g] = m.epoch
			m.first[g] = int32(i)
			m.before[g] = h.rows[g]
			touched = append(touched, g)
		}
		m.last[g] = int32(i)
		if b.Kinds == nil || !b.Kinds[i].IsRetraction() {
			h.base[i] = agg.OpAdd
			h.rows[g]++
			continue
		}
		if !h.opts.Retract {
			return fmt.Errorf("internal: GroupAggregate planned for an insert-only input received %s", b.Kinds[i])
		}
		if h.rows[g] == 0 {
			h.base[i] = agg.OpSkip
			continue
		}
		h.base[i] = agg.OpRetract
		h.rows[g]--
	}

	vals, err := h.stepAggregates(rec, ids)
	defer releaseArrays(vals)
	if err != nil {
		return err
	}
	cmps := make([]func(i, j int) bool, len(vals))
	for j, v := range vals {
		cmps[j] = sameValueFunc(v)
	}

	// One net change per touched group, in order of first appearance.
	keyIdx := make([]int32, 0, 2*len(touched))
	valIdx := make([]int32, 0, 2*len(touched))
	kinds := make([]changelog.RowKind, 0, 2*len(touched))
	add := func(row, v int32, k changelog.RowKind) {
		keyIdx = append(keyIdx, row)
		valIdx = append(valIdx, v)
		kinds = append(kinds, k)
	}
	for _, g := range touched {
		f, l := m.first[g], m.last[g]
		was, is := m.before[g] > 0, h.rows[g] > 0
		switch {
		case !was && !is:
		case !was:
			add(l, 2*l+1, changelog.Insert)
		case !is:
			add(l, 2*f, changelog.Delete)
		default:
			changed := h.opts.StateTTL > 0
			for _, same := range cmps {
				if changed {
					break
				}
				changed = !same(int(2*f), int(2*l+1))
			}
			if !changed {
				continue
			}
			if !h.opts.NoUpdateBefore {
				add(l, 2*f, changelog.UpdateBefore)
			}
			add(l, 2*l+1, changelog.UpdateAfter)
		}
		if !is {
			for _, s := range h.steps {
				s.step.Clear(g)
			}
		}
	}
	return emitChanges(ctx, out, h.out, rec, h.groupKeys, keyIdx, vals, valIdx, kinds)
}

// emitChanges gathers the key columns of rec at keyIdx and the value
// arrays at valIdx into one batch of the given kinds and emits it.
func emitChanges(ctx context.Context, out vectorized.Collector, schema *arrow.Schema, rec arrow.RecordBatch, keys []int, keyIdx []int32, vals []arrow.Array, valIdx []int32, kinds []changelog.RowKind) error {
	if len(kinds) == 0 {
		return nil
	}
	cols := make([]arrow.Array, 0, schema.NumFields())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, k := range keys {
		c, err := GatherArray(rec.Column(k), keyIdx)
		if err != nil {
			return err
		}
		cols = append(cols, c)
	}
	for _, v := range vals {
		c, err := GatherArray(v, valIdx)
		if err != nil {
			return err
		}
		cols = append(cols, c)
	}
	outRec, err := NewRecord(schema, cols, int64(len(kinds)))
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: outRec, Kinds: kinds})
}

// sameValueFunc returns whether a[i] and a[j] hold the same value (both
// NULL counts as the same). Types without a comparator always differ, so
// that an update is emitted rather than lost.
func sameValueFunc(a arrow.Array) func(i, j int) bool {
	c, err := newValueCmp(a, a)
	if err != nil {
		return func(int, int) bool { return false }
	}
	return func(i, j int) bool {
		ni, nj := a.IsNull(i), a.IsNull(j)
		if ni || nj {
			return ni == nj
		}
		return c(i, j) == 0
	}
}

// Close implements vectorized.Operator.
func (m *MiniBatchGroupAggregate) Close() error {
	m.buf = bundleBuffer{}
	return m.GroupAggregate.Close()
}
