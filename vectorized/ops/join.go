package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// JoinSpec describes a join for NewHashJoin and NewNestedLoopJoin.
type JoinSpec struct {
	Kind logical.JoinKind
	// LeftKeys and RightKeys are the equality keys of a hash join (left and
	// right column indexes, pairwise of the same type). NULL keys never
	// match.
	LeftKeys, RightKeys []int
	// Cond is the non-equi condition (a hash join's extra condition, a
	// nested-loop join's whole condition) over the left columns followed by
	// the right columns; nil is TRUE.
	Cond Selector
	// NullAwareAnti makes an anti join follow NOT IN semantics: a left row
	// is dropped when its first key may equal a right row's first key
	// (either is NULL), the other keys being ordinary equalities (the
	// correlation of a correlated NOT IN). Only hash joins support it;
	// vectorized/build rewrites a null-aware nested-loop join's condition.
	NullAwareAnti bool
	// Left and Right are the input schemas; Out is the output schema (left
	// ++ right columns, left only for semi and anti joins).
	Left, Right, Out *arrow.Schema
	// Unread marks the output columns nothing downstream reads (nil: all
	// are read). The join fills them with NULLs instead of gathering them.
	Unread []bool
}

// joinCore is the part of the join operators that turns candidate pairs
// (probe row, build row) into output: it evaluates the condition on the
// pairs, tracks matched rows on both sides and emits the unmatched rows of
// outer, semi and anti joins.
type joinCore struct {
	spec       JoinSpec
	pairSchema *arrow.Schema
	outer      bool // the output holds both sides' columns

	buildRecs    []arrow.RecordBatch
	build        arrow.RecordBatch
	buildMatched []bool

	probe        arrow.RecordBatch
	probeMatched []bool
	pl, pr       []int32
	done         bool
	fillers      []arrow.Array // per output column: all-NULL array for unread columns
}

func (c *joinCore) init(spec JoinSpec) error {
	c.spec = spec
	fields := make([]arrow.Field, 0, spec.Left.NumFields()+spec.Right.NumFields())
	for _, f := range spec.Left.Fields() {
		f.Nullable = true
		fields = append(fields, f)
	}
	for _, f := range spec.Right.Fields() {
		f.Nullable = true
		fields = append(fields, f)
	}
	c.pairSchema = arrow.NewSchema(fields, nil)
	switch spec.Kind {
	case logical.InnerJoin, logical.LeftJoin, logical.RightJoin, logical.FullJoin:
		c.outer = true
		if spec.Out.NumFields() != len(fields) {
			return fmt.Errorf("internal: join output of %d columns for inputs of %d", spec.Out.NumFields(), len(fields))
		}
	case logical.SemiJoin, logical.AntiJoin:
		if spec.Out.NumFields() != spec.Left.NumFields() {
			return fmt.Errorf("internal: %s output of %d columns for a left input of %d", spec.Kind, spec.Out.NumFields(), spec.Left.NumFields())
		}
	default:
		return fmt.Errorf("not supported yet: join kind %d", spec.Kind)
	}
	if spec.NullAwareAnti && spec.Kind != logical.AntiJoin {
		return fmt.Errorf("internal: null-aware %s", spec.Kind)
	}
	return nil
}

func (c *joinCore) addBuild(b vectorized.Batch) error {
	if b.NumRows() == 0 {
		return nil
	}
	if int(b.Rec.NumCols()) != c.spec.Right.NumFields() {
		return fmt.Errorf("internal: join build input of %d columns, want %d", b.Rec.NumCols(), c.spec.Right.NumFields())
	}
	b.Rec.Retain()
	c.buildRecs = append(c.buildRecs, b.Rec)
	return nil
}

// finishBuild concatenates the build batches.
func (c *joinCore) finishBuild() error {
	rec, err := concatRecords(c.spec.Right, c.buildRecs)
	if err != nil {
		return err
	}
	c.build = rec
	c.buildRecs = nil
	if c.spec.Kind == logical.RightJoin || c.spec.Kind == logical.FullJoin {
		c.buildMatched = make([]bool, rec.NumRows())
	}
	return nil
}

func (c *joinCore) buildRows() int { return int(c.build.NumRows()) }

// startProbe prepares for the pairs of one probe batch.
func (c *joinCore) startProbe(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != c.spec.Left.NumFields() {
		return fmt.Errorf("internal: join probe input of %d columns, want %d", rec.NumCols(), c.spec.Left.NumFields())
	}
	c.probe = rec
	n := int(rec.NumRows())
	if cap(c.probeMatched) < n {
		c.probeMatched = make([]bool, n)
	}
	c.probeMatched = c.probeMatched[:n]
	clear(c.probeMatched)
	c.pl, c.pr = c.pl[:0], c.pr[:0]
	return nil
}

// addPair queues the candidate pair (probe row i, build row j).
func (c *joinCore) addPair(ctx context.Context, i, j int32, out vectorized.Collector) error {
	c.pl = append(c.pl, i)
	c.pr = append(c.pr, j)
	if len(c.pl) >= batchSize {
		return c.flush(ctx, out)
	}
	return nil
}

// pairRecord gathers the queued pairs into one record of left ++ right
// columns, in schema s.
func (c *joinCore) pairRecord(s *arrow.Schema, pl, pr []int32) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, s.NumFields())
	var unread []bool
	if s == c.spec.Out {
		unread = c.spec.Unread
	}
	// The probe rows in order, each once: the probe columns as they are.
	ident := len(pl) == int(c.probe.NumRows()) && isIdentity(pl)
	for k := 0; k < int(c.probe.NumCols()); k++ {
		if k < len(unread) && unread[k] {
			a, err := c.filler(k, len(pl))
			if err != nil {
				return nil, err
			}
			cols = append(cols, a)
			continue
		}
		if ident {
			a := c.probe.Column(k)
			a.Retain()
			cols = append(cols, a)
			continue
		}
		a, err := GatherArray(c.probe.Column(k), pl)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	for k := 0; k < int(c.build.NumCols()); k++ {
		o := int(c.probe.NumCols()) + k
		if o < len(unread) && unread[o] {
			a, err := c.filler(o, len(pr))
			if err != nil {
				return nil, err
			}
			cols = append(cols, a)
			continue
		}
		a, err := GatherArray(c.build.Column(k), pr)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return NewRecord(s, cols, int64(len(pl)))
}

// isIdentity reports whether idx is 0, 1, …, len(idx)-1.
func isIdentity(idx []int32) bool {
	for i, v := range idx {
		if v != int32(i) {
			return false
		}
	}
	return true
}

// filler returns an all-NULL array of n rows of output column k's type,
// a slice of one array kept per column.
func (c *joinCore) filler(k, n int) (arrow.Array, error) {
	if c.fillers == nil {
		c.fillers = make([]arrow.Array, c.spec.Out.NumFields())
	}
	if f := c.fillers[k]; f == nil || f.Len() < n {
		a, err := nullArray(c.spec.Out.Field(k).Type, max(n, batchSize))
		if err != nil {
			return nil, err
		}
		c.fillers[k] = a
	}
	return array.NewSlice(c.fillers[k], 0, int64(n)), nil
}

// flush evaluates the condition on the queued pairs and emits or marks the
// matching ones.
func (c *joinCore) flush(ctx context.Context, out vectorized.Collector) error {
	if len(c.pl) == 0 {
		return nil
	}
	pl, pr := c.pl, c.pr
	c.pl, c.pr = c.pl[:0], c.pr[:0]
	if c.spec.Cond != nil {
		pairs, err := c.pairRecord(c.pairSchema, pl, pr)
		if err != nil {
			return err
		}
		sel, err := c.spec.Cond.Select(pairs)
		if err != nil {
			return err
		}
		for k, s := range sel {
			pl[k], pr[k] = pl[s], pr[s]
		}
		pl, pr = pl[:len(sel)], pr[:len(sel)]
	}
	for _, i := range pl {
		c.probeMatched[i] = true
	}
	if c.buildMatched != nil {
		for _, j := range pr {
			c.buildMatched[j] = true
		}
	}
	if !c.outer || len(pl) == 0 {
		return nil
	}
	rec, err := c.pairRecord(c.spec.Out, pl, pr)
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec})
}

// finishProbe flushes the pairs of the current probe batch and emits its
// rows that the join kind outputs unpaired: unmatched rows of left and full
// joins (right columns NULL), matched rows of semi joins, unmatched rows of
// anti joins.
func (c *joinCore) finishProbe(ctx context.Context, out vectorized.Collector) error {
	if err := c.flush(ctx, out); err != nil {
		return err
	}
	want := false // emit the rows whose probeMatched equals want
	switch c.spec.Kind {
	case logical.LeftJoin, logical.FullJoin, logical.AntiJoin:
	case logical.SemiJoin:
		want = true
	default:
		return nil
	}
	var idx []int32
	for i, m := range c.probeMatched {
		if m == want {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == 0 {
		return nil
	}
	if !c.outer {
		rec, err := Gather(c.probe, idx, c.spec.Out)
		if err != nil {
			return err
		}
		return out.Emit(ctx, vectorized.Batch{Rec: rec})
	}
	none := make([]int32, len(idx))
	for k := range none {
		none[k] = -1
	}
	rec, err := c.pairRecord(c.spec.Out, idx, none)
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec})
}

// finish emits the unmatched build rows of right and full joins (left
// columns NULL), in batches.
func (c *joinCore) finish(ctx context.Context, out vectorized.Collector) error {
	if c.done || c.buildMatched == nil {
		return nil
	}
	c.done = true
	// An empty left record to gather NULLs from.
	left := make([]arrow.Array, c.spec.Left.NumFields())
	for k, f := range c.spec.Left.Fields() {
		a, err := nullArray(f.Type, 0)
		if err != nil {
			return err
		}
		left[k] = a
	}
	lrec, err := NewRecord(c.spec.Left, left, 0)
	if err != nil {
		return err
	}
	c.probe = lrec
	var idx []int32
	emit := func() error {
		none := make([]int32, len(idx))
		for k := range none {
			none[k] = -1
		}
		rec, err := c.pairRecord(c.spec.Out, none, idx)
		if err != nil {
			return err
		}
		idx = idx[:0]
		return out.Emit(ctx, vectorized.Batch{Rec: rec})
	}
	for j, m := range c.buildMatched {
		if !m {
			idx = append(idx, int32(j))
			if len(idx) == batchSize {
				if err := emit(); err != nil {
					return err
				}
			}
		}
	}
	if len(idx) > 0 {
		return emit()
	}
	return nil
}

func (c *joinCore) close() {
	c.buildRecs = nil
	c.build = nil
	c.probe = nil
}
