package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// GroupAggregateOptions tune the streaming GROUP BY.
type GroupAggregateOptions struct {
	// Retract: the input may contain -U/-D rows; MIN and MAX then keep
	// per-group multisets (Flink's *_RETRACT aggregate functions).
	Retract bool
	// StateTTL is table.exec.state.ttl (0: off). A group not accessed for
	// that long (processing time) is dropped: a later row for its key
	// starts from scratch (+I). With TTL on, an update that does not
	// change the result is still emitted as -U/+U (Flink does so to keep
	// downstream state alive); with TTL off it is suppressed.
	StateTTL time.Duration
	// NoUpdateBefore: emit +U without the -U before it (an upsert
	// consumer asked for it).
	NoUpdateBefore bool
}

// GroupAggregate is the streaming GROUP BY (Flink's GroupAggregate without
// mini-batch): every input row updates its group and immediately emits the
// change of the group's result, so the output changelog is per record and
// in input order — +I for a new group, -U(old)/+U(new) for a change,
// nothing when the result did not change (with state TTL off), -D(old)
// when the group's last row was retracted. A retraction for a group that
// does not exist is ignored. Without group keys it is the global
// aggregate, which emits nothing until its first row.
//
// Execution is vectorized per batch although the output is per record:
// the batch is mapped to group ids by one agg.GroupTable probe; one pass
// over the row kinds keeps each group's row count (first row → +I, count
// 0 → -D); then every aggregate call runs one agg.Stepper loop over the
// batch in row order that records each row's before and after results
// (2 values per row) and flags the rows whose result changed; finally the
// output is gathered in one go from the input's key columns and those
// before/after arrays. The cost is a constant number of passes per batch,
// independent of how the rows spread over groups.
type GroupAggregate struct {
	groupKeys []int
	calls     []logical.AggCall
	in        types.Schema
	out       *arrow.Schema
	opts      GroupAggregateOptions
	scripts   scriptFuncs  // script aggregates (script_agg_stream.go)
	ttl       groupTTL     // state TTL (state_agg.go)
	delta     deltaTracker // incremental snapshots (state_agg_delta.go)
	disk      *aggDisk     // state.backend.type 'rocksdb' (state_agg_disk.go)

	table   agg.GroupTable // nil for the global aggregate
	steps   []stepState
	rows    []int64 // input rows per group; 0 = no state
	nGroups int

	ids     []uint32
	base    []agg.Op
	first   []bool
	empty   []bool
	changed []bool
	keyBuf  []arrow.Array
}

type stepState struct {
	step   agg.Stepper
	args   []int
	filter int
	argBuf []arrow.Array
	ops    []agg.Op
	// nullsCount: NULL arguments are rows too (SINGLE_VALUE).
	nullsCount bool
}

var _ vectorized.Operator = (*GroupAggregate)(nil)

// NewGroupAggregate returns the streaming aggregate of calls grouped by the
// input columns groupKeys, over input schema in, producing schema out
// (group columns, then one column per call).
func NewGroupAggregate(groupKeys []int, calls []logical.AggCall, in types.Schema, out *arrow.Schema, opts GroupAggregateOptions) *GroupAggregate {
	return &GroupAggregate{groupKeys: groupKeys, calls: calls, in: in, out: out, opts: opts}
}

func (h *GroupAggregate) column(i int) (arrow.DataType, error) {
	if i < 0 || i >= len(h.in) {
		return nil, fmt.Errorf("internal: aggregate input column $%d out of range", i)
	}
	return types.ArrowType(h.in[i].Type)
}

// Open implements vectorized.Operator.
func (h *GroupAggregate) Open(context.Context) error {
	if h.out.NumFields() != len(h.groupKeys)+len(h.calls) {
		return fmt.Errorf("internal: aggregate output of %d columns for %d keys and %d calls", h.out.NumFields(), len(h.groupKeys), len(h.calls))
	}
	if len(h.groupKeys) > 0 {
		kts := make([]arrow.DataType, len(h.groupKeys))
		for i, k := range h.groupKeys {
			t, err := h.column(k)
			if err != nil {
				return err
			}
			kts[i] = t
		}
		t, err := agg.NewGroupTable(kts)
		if err != nil {
			return err
		}
		h.table = t
		h.keyBuf = make([]arrow.Array, len(h.groupKeys))
	}
	h.steps = make([]stepState, len(h.calls))
	for i, c := range h.calls {
		argTypes := make([]arrow.DataType, len(c.Args))
		for j, a := range c.Args {
			t, err := h.column(a)
			if err != nil {
				return err
			}
			argTypes[j] = t
		}
		if c.Filter >= len(h.in) || c.Filter >= 0 && h.in[c.Filter].Type.Kind != types.Boolean {
			return fmt.Errorf("internal: aggregate filter column $%d is not a BOOLEAN input column", c.Filter)
		}
		name := accumulatorName(c)
		result := h.out.Field(len(h.groupKeys) + i).Type
		var s agg.Stepper
		if name == "SINGLE_VALUE" {
			if len(argTypes) != 1 || c.Distinct || !arrow.TypeEqual(argTypes[0], result) {
				return fmt.Errorf("internal: SINGLE_VALUE of %d arguments returning %s", len(argTypes), result)
			}
			s = newSingleValueStep(h.in[c.Args[0]].Type, result)
		} else if ss, ok, err := h.scriptStepper(c); ok || err != nil {
			if err != nil {
				return err
			}
			s = ss
		} else {
			var err error
			if s, err = agg.NewStepper(name, argTypes, result, c.Distinct, h.opts.Retract); err != nil {
				return fmt.Errorf("%s: %w", c, err)
			}
		}
		h.steps[i] = stepState{step: s, args: c.Args, filter: c.Filter, argBuf: make([]arrow.Array, len(c.Args)), nullsCount: name == "SINGLE_VALUE" || agg.KeepsNullArgs(name)}
	}
	if h.table == nil {
		h.grow(1)
	}
	if h.disk != nil {
		return h.openDisk()
	}
	return nil
}

func (h *GroupAggregate) grow(n int) {
	if n <= h.nGroups {
		return
	}
	h.nGroups = n
	for _, s := range h.steps {
		s.step.Resize(n)
	}
	if n > len(h.rows) {
		h.rows = append(h.rows, make([]int64, n-len(h.rows))...)
	}
}

// Process implements vectorized.Operator.
func (h *GroupAggregate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
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

	// Row kinds → operations, and the group row counts in row order.
	h.base = resize(h.base, n)
	h.first = resize(h.first, n)
	h.empty = resize(h.empty, n)
	h.changed = resize(h.changed, n)
	clear(h.changed)
	for i, g := range ids {
		h.first[i], h.empty[i] = false, false
		if b.Kinds == nil || !b.Kinds[i].IsRetraction() {
			h.base[i] = agg.OpAdd
			h.first[i] = h.rows[g] == 0
			h.rows[g]++
			continue
		}
		if !h.opts.Retract {
			return fmt.Errorf("internal: GroupAggregate planned for an insert-only input received %s", b.Kinds[i])
		}
		if h.rows[g] == 0 {
			h.base[i] = agg.OpSkip // retraction of a group without state: ignored
			continue
		}
		h.base[i] = agg.OpRetract
		h.rows[g]--
		h.empty[i] = h.rows[g] == 0
	}

	// Every aggregate steps through the batch in row order.
	vals, err := h.stepAggregates(rec, ids)
	defer releaseArrays(vals)
	if err != nil {
		return err
	}

	// The changelog, per input row.
	keyIdx := make([]int32, 0, n)
	valIdx := make([]int32, 0, n)
	kinds := make([]changelog.RowKind, 0, n)
	add := func(i, v int, k changelog.RowKind) {
		keyIdx = append(keyIdx, int32(i))
		valIdx = append(valIdx, int32(v))
		kinds = append(kinds, k)
	}
	for i, g := range ids {
		switch {
		case h.base[i] == agg.OpSkip:
		case h.first[i]:
			add(i, 2*i+1, changelog.Insert)
		case h.empty[i]:
			add(i, 2*i, changelog.Delete)
			if h.rows[g] == 0 {
				// Still empty at the end of the batch: drop the state.
				for _, s := range h.steps {
					s.step.Clear(g)
				}
			}
		case !h.changed[i] && h.opts.StateTTL <= 0:
		default:
			if !h.opts.NoUpdateBefore {
				add(i, 2*i, changelog.UpdateBefore)
			}
			add(i, 2*i+1, changelog.UpdateAfter)
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	cols := make([]arrow.Array, 0, h.out.NumFields())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, k := range h.groupKeys {
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
	outRec, err := NewRecord(h.out, cols, int64(len(kinds)))
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: outRec, Kinds: kinds})
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// OnMarker implements vectorized.Operator: without mini-batch nothing is
// buffered, so markers pass straight through.
func (h *GroupAggregate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (h *GroupAggregate) Close() error {
	h.closeSteppers()
	h.table = nil
	h.steps = nil
	return h.closeDisk()
}

// stepAggregates steps every aggregate through the rows of rec in row
// order (ids are the rows' groups, h.base their +/- operations) and returns
// each aggregate's value before and after every row; the caller releases
// the arrays, also after an error.
func (h *GroupAggregate) stepAggregates(rec arrow.RecordBatch, ids []uint32) ([]arrow.Array, error) {
	vals := make([]arrow.Array, len(h.steps))
	for j := range h.steps {
		s := &h.steps[j]
		for k, c := range s.args {
			s.argBuf[k] = rec.Column(c)
		}
		var filter *array.Boolean
		if s.filter >= 0 {
			f, ok := rec.Column(s.filter).(*array.Boolean)
			if !ok {
				return vals, fmt.Errorf("internal: aggregate filter column $%d is %s", s.filter, rec.Column(s.filter).DataType())
			}
			filter = f
		}
		if s.nullsCount {
			s.ops = agg.StepOps(s.ops, h.base, nil, filter)
		} else {
			s.ops = agg.StepOps(s.ops, h.base, s.argBuf, filter)
		}
		v, err := s.step.Step(vectorized.Mem, ids, s.ops, s.argBuf, h.changed)
		if err != nil {
			return vals, err
		}
		vals[j] = v
	}
	return vals, nil
}

// releaseArrays releases the non-nil arrays of as.
func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}
