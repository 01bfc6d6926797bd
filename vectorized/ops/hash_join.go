package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// HashJoin joins on equality keys: the build (right) side is collected and
// indexed by an agg.GroupTable over its key columns, with the rows of each
// key chained; probe (left) batches are looked up a batch at a time.
// Candidate pairs are checked against the extra condition, if any. Rows
// with a NULL key never match (except that they make a null-aware anti
// join drop rows, as NOT IN does).
type HashJoin struct {
	core joinCore

	table     agg.GroupTable
	head      []int32 // per build group: first build row, -1 for none
	next      []int32 // per build row: next row of the same key, -1 for none
	nullRows  []int32 // null-aware anti join: build rows whose value key alone is NULL
	buildKeys []arrow.Array
	keyTypes  []arrow.DataType

	ids    []uint32
	keyBuf []arrow.Array
	cmps   []valueCmp

	// Direct index, when the single integer build key spans a dense range:
	// dense[k-denseMin] is the first build row of key k, -1 for none (no
	// hash table is built then).
	dense    []int32
	denseMin int64
	// unique: no build key has more than one row, so a probe row has at
	// most one partner and pairs are added without walking chains.
	unique bool
	first  []int32 // per probe row of the current batch: first build row, -1 for none
}

var _ BinaryOperator = (*HashJoin)(nil)

// NewHashJoin returns a hash join; spec.LeftKeys and spec.RightKeys must be
// non-empty.
func NewHashJoin(spec JoinSpec) *HashJoin { return &HashJoin{core: joinCore{spec: spec}} }

// Open implements BinaryOperator.
func (h *HashJoin) Open(context.Context) error {
	s := h.core.spec
	if err := h.core.init(s); err != nil {
		return err
	}
	if len(s.LeftKeys) == 0 || len(s.LeftKeys) != len(s.RightKeys) {
		return fmt.Errorf("internal: hash join with %d left and %d right keys", len(s.LeftKeys), len(s.RightKeys))
	}
	kts := make([]arrow.DataType, len(s.RightKeys))
	for i := range s.RightKeys {
		l, r := s.LeftKeys[i], s.RightKeys[i]
		if l < 0 || l >= s.Left.NumFields() || r < 0 || r >= s.Right.NumFields() {
			return fmt.Errorf("internal: join key $%d = $%d out of range", l, r)
		}
		lt, rt := s.Left.Field(l).Type, s.Right.Field(r).Type
		if !arrow.TypeEqual(lt, rt) {
			return fmt.Errorf("not supported yet: join key of types %s and %s (the planner must cast them to one type)", lt, rt)
		}
		kts[i] = rt
	}
	h.keyTypes = kts
	t, err := agg.NewGroupTable(kts)
	if err != nil {
		return err
	}
	h.table = t
	h.keyBuf = make([]arrow.Array, len(kts))
	return nil
}

// insertBuildKeys inserts the build keys into the table in batch-sized
// slices, writing the group ids to ids (nil: discard them).
func (h *HashJoin) insertBuildKeys(ids []uint32) error {
	n := int(h.core.build.NumRows())
	keys := make([]arrow.Array, len(h.buildKeys))
	scratch := make([]uint32, batchSize)
	for lo := 0; lo < n; lo += batchSize {
		hi := min(lo+batchSize, n)
		for k, a := range h.buildKeys {
			keys[k] = array.NewSlice(a, int64(lo), int64(hi))
		}
		out := scratch
		if ids != nil {
			out = ids[lo:hi]
		}
		err := h.table.Insert(keys, hi-lo, out)
		for _, a := range keys {
			a.Release()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// trimTable drops the probe keys the table accumulated (GroupTable has no
// lookup without insert): once they outnumber the build keys, the table is
// rebuilt from the build keys alone, which hands out the same group ids
// because ids follow first-seen order.
func (h *HashJoin) trimTable() error {
	if h.table.Len() <= 2*len(h.head)+1<<16 {
		return nil
	}
	t, err := agg.NewGroupTable(h.keyTypes)
	if err != nil {
		return err
	}
	h.table = t
	return h.insertBuildKeys(nil)
}

// ProcessBuild implements BinaryOperator.
func (h *HashJoin) ProcessBuild(_ context.Context, b vectorized.Batch) error {
	return h.core.addBuild(b)
}

// FinishBuild implements BinaryOperator.
func (h *HashJoin) FinishBuild(context.Context) error {
	if err := h.core.finishBuild(); err != nil {
		return err
	}
	rec := h.core.build
	n := int(rec.NumRows())
	h.buildKeys = make([]arrow.Array, len(h.core.spec.RightKeys))
	for k, c := range h.core.spec.RightKeys {
		h.buildKeys[k] = rec.Column(c)
	}
	null := anyNull(h.buildKeys, n)
	h.next = make([]int32, n)
	if h.buildDense(null) {
		return nil
	}
	ids := make([]uint32, n)
	if err := h.insertBuildKeys(ids); err != nil {
		return err
	}
	h.head = make([]int32, h.table.Len())
	for g := range h.head {
		h.head[g] = -1
	}
	h.unique = true
	// Link backwards so that each chain lists its rows in input order.
	for r := n - 1; r >= 0; r-- {
		if null != nil && null[r] {
			h.next[r] = -1
			continue
		}
		g := ids[r]
		h.next[r] = h.head[g]
		if h.head[g] >= 0 {
			h.unique = false
		}
		h.head[g] = int32(r)
	}
	if h.core.spec.NullAwareAnti && h.buildKeys[0].NullN() > 0 {
		rest := anyNull(h.buildKeys[1:], n)
		for r := 0; r < n; r++ {
			if h.buildKeys[0].IsNull(r) && (rest == nil || !rest[r]) {
				h.nullRows = append(h.nullRows, int32(r))
			}
		}
	}
	return nil
}

// Bounds of the direct index: at most this many slots, and at most
// denseFactor slots per build row (beyond that a hash table is smaller).
const (
	maxDenseSlots = 1 << 26
	denseFactor   = 4
)

// buildDense builds the direct index when there is one integer key whose
// non-NULL values span at most denseFactor slots per build row, and
// reports whether it did. Null-aware anti joins keep the hash table.
func (h *HashJoin) buildDense(null []bool) bool {
	if len(h.buildKeys) != 1 || h.core.spec.NullAwareAnti {
		return false
	}
	vals, ok := intValues(h.buildKeys[0])
	if !ok {
		return false
	}
	n := len(vals)
	lo, hi := int64(0), int64(-1)
	for r, v := range vals {
		if null != nil && null[r] {
			continue
		}
		if hi < lo {
			lo, hi = v, v
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi < lo {
		return false // no non-NULL key: the hash path handles it
	}
	span := uint64(hi - lo)
	if span >= maxDenseSlots || span >= uint64(denseFactor*n+1024) {
		return false
	}
	dense := make([]int32, span+1)
	for i := range dense {
		dense[i] = -1
	}
	h.unique = true
	for r := n - 1; r >= 0; r-- {
		h.next[r] = -1
		if null != nil && null[r] {
			continue
		}
		slot := &dense[vals[r]-lo]
		if *slot >= 0 {
			h.unique = false
		}
		h.next[r] = *slot
		*slot = int32(r)
	}
	h.dense, h.denseMin = dense, lo
	return true
}

// intValues returns the values of an integer (or integer-backed temporal)
// array widened to int64; ok is false for other types.
func intValues(a arrow.Array) ([]int64, bool) {
	n := a.Len()
	switch a.DataType().ID() {
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return rawValues[int64](a)[:n], true
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return widen(rawValues[int32](a)[:n]), true
	case arrow.INT16:
		return widen(rawValues[int16](a)[:n]), true
	case arrow.INT8:
		return widen(rawValues[int8](a)[:n]), true
	}
	return nil, false
}

func widen[T int8 | int16 | int32](vs []T) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

// probeDense writes each probe row's first build row through the direct
// index.
func (h *HashJoin) probeDense(keys arrow.Array, first []int32) {
	dense, lo := h.dense, h.denseMin
	span := uint64(len(dense))
	put := func(i int, v int64) {
		first[i] = -1
		if u := uint64(v - lo); u < span {
			first[i] = dense[u]
		}
	}
	switch keys.DataType().ID() {
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		for i, v := range rawValues[int64](keys)[:len(first)] {
			put(i, v)
		}
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		for i, v := range rawValues[int32](keys)[:len(first)] {
			put(i, int64(v))
		}
	case arrow.INT16:
		for i, v := range rawValues[int16](keys)[:len(first)] {
			put(i, int64(v))
		}
	case arrow.INT8:
		for i, v := range rawValues[int8](keys)[:len(first)] {
			put(i, int64(v))
		}
	}
	if keys.NullN() > 0 {
		for i := range first {
			if keys.IsNull(i) {
				first[i] = -1
			}
		}
	}
}

// anyNull marks the rows where any of the arrays is NULL; nil when none is.
func anyNull(as []arrow.Array, n int) []bool {
	var out []bool
	for _, a := range as {
		if a.NullN() == 0 {
			continue
		}
		if out == nil {
			out = make([]bool, n)
		}
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				out[i] = true
			}
		}
	}
	return out
}

// Process implements BinaryOperator.
func (h *HashJoin) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	c := &h.core
	rec := b.Rec
	if err := c.startProbe(rec); err != nil {
		return err
	}
	nb := c.buildRows()
	if nb == 0 {
		return c.finishProbe(ctx, out)
	}
	for k, col := range c.spec.LeftKeys {
		h.keyBuf[k] = rec.Column(col)
	}
	if c.spec.NullAwareAnti {
		if err := h.insertProbe(n); err != nil {
			return err
		}
		return h.probeNullAware(ctx, h.ids[:n], out)
	}
	if cap(h.first) < n {
		h.first = make([]int32, n)
	}
	first := h.first[:n]
	if err := h.firstRows(n, first); err != nil {
		return err
	}
	switch {
	case c.spec.Cond == nil && (c.spec.Kind == logical.SemiJoin || c.spec.Kind == logical.AntiJoin):
		for i, j := range first {
			c.probeMatched[i] = j >= 0
		}
	case h.unique:
		for i, j := range first {
			if j < 0 {
				continue
			}
			c.pl = append(c.pl, int32(i))
			c.pr = append(c.pr, j)
			if len(c.pl) >= batchSize {
				if err := c.flush(ctx, out); err != nil {
					return err
				}
			}
		}
	default:
		for i, j := range first {
			for ; j >= 0; j = h.next[j] {
				if err := c.addPair(ctx, int32(i), j, out); err != nil {
					return err
				}
			}
		}
	}
	return c.finishProbe(ctx, out)
}

// firstRows writes the first build row of each probe row's key (-1 when
// none or when a key is NULL) through the direct index, a lookup of the
// hash table, or an insert into it for tables without lookup.
func (h *HashJoin) firstRows(n int, first []int32) error {
	if h.dense != nil {
		h.probeDense(h.keyBuf[0], first)
		return nil
	}
	if cap(h.ids) < n {
		h.ids = make([]uint32, n)
	}
	ids := h.ids[:n]
	if lk, ok := h.table.(agg.Lookuper); ok {
		if err := lk.Lookup(h.keyBuf, n, ids); err != nil {
			return err
		}
	} else if err := h.insertProbe(n); err != nil {
		return err
	}
	nGroups := uint32(len(h.head))
	for i, g := range ids {
		first[i] = -1
		if g < nGroups {
			first[i] = h.head[g]
		}
	}
	if null := anyNull(h.keyBuf, n); null != nil {
		for i, isNull := range null {
			if isNull {
				first[i] = -1
			}
		}
	}
	return nil
}

// insertProbe inserts the probe keys into the table (for a table without
// lookup), writing their group ids to h.ids; ids past the build groups
// are keys the build side does not hold.
func (h *HashJoin) insertProbe(n int) error {
	if cap(h.ids) < n {
		h.ids = make([]uint32, n)
	}
	if err := h.trimTable(); err != nil {
		return err
	}
	return h.table.Insert(h.keyBuf, n, h.ids[:n])
}

// probeNullAware is the anti join with NOT IN semantics. The first key is
// the NOT IN value: it compares as NOT IN does, so a NULL on either side
// makes it unknown and unknown counts as a match that drops the probe row.
// The other keys (correlation equalities of a correlated NOT IN) filter the
// subquery's rows as a WHERE does: a NULL there never matches. A probe row
// is dropped when some build row matches this way and passes the extra
// condition.
func (h *HashJoin) probeNullAware(ctx context.Context, ids []uint32, out vectorized.Collector) error {
	c := &h.core
	nb := c.buildRows()
	nGroups := uint32(len(h.head))
	n := len(ids)
	value := h.keyBuf[0]
	var restNull []bool // probe rows with a NULL correlation key
	if len(h.keyBuf) > 1 {
		restNull = anyNull(h.keyBuf[1:], n)
	}
	if c.spec.Cond == nil && len(h.keyBuf) == 1 {
		// One key, no condition: a NULL on either side matches every row.
		for i, g := range ids {
			switch {
			case len(h.nullRows) > 0, value.IsNull(i):
				c.probeMatched[i] = true
			case g < nGroups:
				c.probeMatched[i] = h.head[g] >= 0
			}
		}
		return c.finishProbe(ctx, out)
	}
	if h.cmps == nil {
		h.cmps = make([]valueCmp, len(h.keyBuf))
	}
	for k := range h.keyBuf {
		cmp, err := newValueCmp(h.keyBuf[k], h.buildKeys[k])
		if err != nil {
			return err
		}
		h.cmps[k] = cmp
	}
	// matches reports whether build row j may equal probe row i, whose
	// correlation keys are not NULL.
	matches := func(i, j int) bool {
		b0 := h.buildKeys[0]
		if !value.IsNull(i) && !b0.IsNull(j) && h.cmps[0](i, j) != 0 {
			return false
		}
		for k := 1; k < len(h.keyBuf); k++ {
			if h.buildKeys[k].IsNull(j) || h.cmps[k](i, j) != 0 {
				return false
			}
		}
		return true
	}
	for i, g := range ids {
		if restNull != nil && restNull[i] {
			continue // the correlated subquery is empty for this row
		}
		if value.IsNull(i) {
			for j := 0; j < nb; j++ {
				if matches(i, j) {
					if err := c.addPair(ctx, int32(i), int32(j), out); err != nil {
						return err
					}
				}
			}
			continue
		}
		if g < nGroups {
			for j := h.head[g]; j >= 0; j = h.next[j] {
				if err := c.addPair(ctx, int32(i), j, out); err != nil {
					return err
				}
			}
		}
		for _, j := range h.nullRows {
			if matches(i, int(j)) {
				if err := c.addPair(ctx, int32(i), j, out); err != nil {
					return err
				}
			}
		}
	}
	return c.finishProbe(ctx, out)
}

// OnMarker implements BinaryOperator.
func (h *HashJoin) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if m.Kind == vectorized.EndOfInput {
		if err := h.core.finish(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements BinaryOperator.
func (h *HashJoin) Close() error {
	h.core.close()
	h.table = nil
	h.head, h.next, h.dense = nil, nil, nil
	return nil
}
