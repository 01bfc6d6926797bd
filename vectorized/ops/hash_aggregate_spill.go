package ops

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Spilling hash aggregation. When the group table and accumulators of a
// HashAggregate exceed its memory budget, their partial state (the group
// keys and every accumulator's agg.Merger state) is split by a hash of the
// keys into spillPartitions files and the in-memory state starts afresh.
// At EndOfInput whatever is left goes the same way, then each partition is
// aggregated in turn by merging its partial states into a new table; a
// partition that is itself too large spills again one level down with a
// new hash seed. Every group lives in exactly one partition, so each
// partition's result is final.
//
// Aggregates without exportable state (DISTINCT, SINGLE_VALUE) and the
// global aggregate (no group keys) do not spill: they go past the budget.
// Script aggregates spill their exported accumulators; one that cannot
// (DISTINCT, no merge method) fails the query instead (script_agg.go).

const (
	// spillPartitions is the fan-out of one spill level.
	spillPartitions = 16
	// maxSpillLevel bounds the recursion: at this depth a partition is
	// aggregated in memory whatever its size.
	maxSpillLevel = 6
	// minSpillGroups is the fewest groups worth a spill: below it the
	// budget is exceeded instead (spilling a handful of groups level after
	// level costs far more than it saves).
	minSpillGroups = 256
)

// aggSpill is the spill state of a HashAggregate.
type aggSpill struct {
	sp      *spiller // shared by every level; owned by the top level
	owner   bool
	level   int
	seed    maphash.Seed
	seeded  bool
	schema  *arrow.Schema // keys, then every accumulator's state columns
	parts   []*spillFile
	spilled bool
}

// SetSpill sets the memory budget and spill directory; call before Open.
func (h *HashAggregate) SetSpill(cfg SpillConfig) {
	h.spill.sp = &spiller{cfg: cfg}
	h.spill.owner = true
}

// OpStats implements StatsReporter.
func (h *HashAggregate) OpStats() OpStats {
	if h.spill.sp == nil {
		return OpStats{}
	}
	return h.spill.sp.stats
}

// stateBytes estimates the memory of the groups and accumulators.
func (h *HashAggregate) stateBytes() int64 {
	var n int64
	if h.table != nil {
		n = h.table.SizeBytes()
	}
	for _, a := range h.accs {
		n += a.acc.SizeBytes()
	}
	return n
}

// workingBytes is the memory tablerun.exec.spill.memory-budget governs
// for a state of size bytes: the groups and accumulators, the copy of them
// a spill gathers before it writes the partitions (as large again), and
// the open spill files' buffers with their shared encoder.
func (h *HashAggregate) workingBytes(size int64) int64 {
	return 2*size + h.spill.sp.writerBytes()
}

// mergeable reports whether every accumulator can export its state.
func (h *HashAggregate) mergeable() bool {
	for _, a := range h.accs {
		if _, ok := a.acc.(agg.Merger); !ok {
			return false
		}
	}
	return true
}

// checkBudget records the peak state size and spills when the state
// exceeds the budget.
func (h *HashAggregate) checkBudget() error {
	if h.spill.sp == nil {
		h.spill.sp = &spiller{}
		h.spill.owner = true
	}
	size := h.stateBytes()
	st := &h.spill.sp.stats
	if size > st.PeakStateBytes {
		st.PeakStateBytes = size
	}
	if h.table == nil || !h.spill.sp.enabled() || h.workingBytes(size) <= h.spill.sp.cfg.Budget ||
		h.spill.level >= maxSpillLevel || h.nGroups < minSpillGroups {
		return nil
	}
	if err := h.scriptSpillError(); err != nil { // script_agg.go
		return err
	}
	if !h.mergeable() {
		return nil
	}
	return h.spillState()
}

// stateRecord returns the keys and partial states of every group as one
// record of the spill schema.
func (h *HashAggregate) stateRecord() (arrow.RecordBatch, error) {
	cols := h.table.Keys(vectorized.Mem)
	for _, a := range h.accs {
		st, err := a.acc.(agg.Merger).State(vectorized.Mem)
		if err != nil {
			return nil, err
		}
		cols = append(cols, st...)
	}
	if h.spill.schema == nil {
		fields := make([]arrow.Field, len(cols))
		for i, c := range cols {
			fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType(), Nullable: true}
		}
		h.spill.schema = arrow.NewSchema(fields, nil)
	}
	rec, err := NewRecord(h.spill.schema, cols, int64(h.nGroups))
	for _, c := range cols {
		c.Release()
	}
	return rec, err
}

// spillState writes the in-memory groups to the partitions and resets the
// table and accumulators.
func (h *HashAggregate) spillState() error {
	rec, err := h.stateRecord()
	if err != nil {
		return err
	}
	defer rec.Release()
	if !h.spill.seeded {
		h.spill.seed, h.spill.seeded = maphash.MakeSeed(), true
	}
	n := int(rec.NumRows())
	hashes := hashRows(rec.Columns()[:len(h.groupKeys)], n, h.spill.seed)
	idx := make([][]int32, spillPartitions)
	for i, hv := range hashes {
		p := hv >> (64 - 4) // spillPartitions = 16
		idx[p] = append(idx[p], int32(i))
	}
	if h.spill.parts == nil {
		h.spill.parts = make([]*spillFile, spillPartitions)
	}
	for p, rows := range idx {
		if len(rows) == 0 {
			continue
		}
		if h.spill.parts[p] == nil {
			f, err := h.spill.sp.create(h.spill.schema)
			if err != nil {
				return err
			}
			h.spill.parts[p] = f
		}
		part, err := Gather(rec, rows, h.spill.schema)
		if err != nil {
			return err
		}
		err = h.spill.parts[p].write(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	h.spill.sp.stats.SpillCount++
	h.spill.spilled = true
	return h.resetState()
}

// resetState replaces the table and accumulators with empty ones.
func (h *HashAggregate) resetState() error {
	fresh := NewHashAggregate(h.groupKeys, h.calls, h.in, h.out)
	fresh.scripts = h.scripts // script_agg.go
	if err := fresh.Open(context.Background()); err != nil {
		return err
	}
	h.closeScriptAccumulators()
	h.table, h.accs, h.nGroups = fresh.table, fresh.accs, 0
	return nil
}

// mergeState folds a record of partial states (the spill schema) into the
// groups.
func (h *HashAggregate) mergeState(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	nk := len(h.groupKeys)
	if cap(h.ids) < n {
		h.ids = make([]uint32, n)
	}
	ids := h.ids[:n]
	if err := h.table.Insert(rec.Columns()[:nk], n, ids); err != nil {
		return err
	}
	if g := h.table.Len(); g > h.nGroups {
		h.nGroups = g
		for _, a := range h.accs {
			a.acc.Resize(g)
		}
	}
	col := nk
	for _, a := range h.accs {
		m := a.acc.(agg.Merger)
		k := len(m.StateTypes())
		if err := m.Merge(ids, rec.Columns()[col:col+k]); err != nil {
			return err
		}
		col += k
	}
	return h.checkBudget()
}

// emitSpilled flushes the in-memory groups to the partitions, then
// aggregates and emits each partition in turn.
func (h *HashAggregate) emitSpilled(ctx context.Context, out vectorized.Collector) error {
	if h.nGroups > 0 {
		if err := h.spillState(); err != nil {
			return err
		}
	}
	h.closeScriptAccumulators()
	h.table, h.accs = nil, nil
	for p, f := range h.spill.parts {
		if f == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		inner := NewHashAggregate(h.groupKeys, h.calls, h.in, h.out)
		inner.scripts = h.scripts // script_agg.go
		if err := inner.Open(ctx); err != nil {
			return err
		}
		inner.spill = aggSpill{sp: h.spill.sp, level: h.spill.level + 1, schema: h.spill.schema}
		err := f.read(func(rec arrow.RecordBatch) error { return inner.mergeState(rec) })
		f.remove()
		h.spill.parts[p] = nil
		if err == nil {
			if inner.spill.spilled {
				err = inner.emitSpilled(ctx, out)
			} else {
				err = inner.emit(ctx, out)
			}
		}
		for _, g := range inner.spill.parts {
			if g != nil {
				g.remove()
			}
		}
		inner.closeScriptAccumulators()
		if err != nil {
			return err
		}
	}
	return nil
}

// closeSpill removes the spill files (top level only).
func (h *HashAggregate) closeSpill() error {
	if h.spill.sp == nil || !h.spill.owner {
		return nil
	}
	h.spill.parts = nil
	return h.spill.sp.cleanup()
}

// hashRows hashes the key columns of n rows so that rows with equal keys
// (NULL equal to NULL) get equal hashes. Floating-point keys must be
// canonical (one NaN, no -0.0), as agg.GroupTable.Keys returns them.
func hashRows(cols []arrow.Array, n int, seed maphash.Seed) []uint64 {
	out := make([]uint64, n)
	base := maphash.Comparable(seed, uint64(0x9e3779b97f4a7c15))
	for i := range out {
		out[i] = base
	}
	for _, c := range cols {
		hashColumn(c, n, seed, base, out)
	}
	return out
}

func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	hi, lo := bits.Mul64(h^0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53)
	return hi ^ lo
}

// hashColumn folds column c into the row hashes.
func hashColumn(c arrow.Array, n int, seed maphash.Seed, salt uint64, out []uint64) {
	const nullHash = 0x5bd1e9955bd1e995
	fixed := func(get func(i int) uint64) {
		for i := 0; i < n; i++ {
			if c.IsNull(i) {
				out[i] = mix(out[i], nullHash)
				continue
			}
			out[i] = mix(out[i], get(i)^salt)
		}
	}
	switch c.DataType().ID() {
	case arrow.BOOL:
		b := c.(*array.Boolean)
		fixed(func(i int) uint64 {
			if b.Value(i) {
				return 1
			}
			return 2
		})
		return
	case arrow.STRING:
		s := c.(*array.String)
		fixed(func(i int) uint64 { return maphash.String(seed, s.Value(i)) })
		return
	case arrow.BINARY:
		s := c.(*array.Binary)
		fixed(func(i int) uint64 { return maphash.Bytes(seed, s.Value(i)) })
		return
	}
	if fw, ok := c.DataType().(arrow.FixedWidthDataType); ok && len(c.Data().Buffers()) == 2 {
		switch fw.BitWidth() {
		case 8:
			v := rawValues[uint8](c)
			fixed(func(i int) uint64 { return uint64(v[i]) })
			return
		case 16:
			v := rawValues[uint16](c)
			fixed(func(i int) uint64 { return uint64(v[i]) })
			return
		case 32:
			v := rawValues[uint32](c)
			fixed(func(i int) uint64 { return uint64(v[i]) })
			return
		case 64:
			v := rawValues[uint64](c)
			fixed(func(i int) uint64 { return v[i] })
			return
		case 128:
			v := rawValues[[2]uint64](c)
			fixed(func(i int) uint64 { return mix(v[i][0], v[i][1]) })
			return
		}
	}
	// Anything else (nested types): the value's text form.
	fixed(func(i int) uint64 { return maphash.String(seed, c.ValueStr(i)) })
}
