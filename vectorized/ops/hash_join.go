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
	ids := make([]uint32, n)
	h.buildKeys = make([]arrow.Array, len(h.core.spec.RightKeys))
	for k, c := range h.core.spec.RightKeys {
		h.buildKeys[k] = rec.Column(c)
	}
	if err := h.insertBuildKeys(ids); err != nil {
		return err
	}
	h.head = make([]int32, h.table.Len())
	for g := range h.head {
		h.head[g] = -1
	}
	h.next = make([]int32, n)
	null := anyNull(h.buildKeys, n)
	// Link backwards so that each chain lists its rows in input order.
	for r := n - 1; r >= 0; r-- {
		if null != nil && null[r] {
			h.next[r] = -1
			continue
		}
		g := ids[r]
		h.next[r] = h.head[g]
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
	if cap(h.ids) < n {
		h.ids = make([]uint32, n)
	}
	ids := h.ids[:n]
	if err := h.trimTable(); err != nil {
		return err
	}
	if err := h.table.Insert(h.keyBuf, n, ids); err != nil {
		return err
	}
	if c.spec.NullAwareAnti {
		return h.probeNullAware(ctx, ids, out)
	}
	null := anyNull(h.keyBuf, n)
	nGroups := uint32(len(h.head))
	fastSemi := c.spec.Cond == nil && (c.spec.Kind == logical.SemiJoin || c.spec.Kind == logical.AntiJoin)
	for i, g := range ids {
		if g >= nGroups || (null != nil && null[i]) {
			continue
		}
		if fastSemi {
			c.probeMatched[i] = h.head[g] >= 0
			continue
		}
		for j := h.head[g]; j >= 0; j = h.next[j] {
			if err := c.addPair(ctx, int32(i), j, out); err != nil {
				return err
			}
		}
	}
	return c.finishProbe(ctx, out)
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
	h.head, h.next = nil, nil
	return nil
}
