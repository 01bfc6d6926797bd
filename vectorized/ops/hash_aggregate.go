package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// HashAggregate is the batch GROUP BY: every input batch is mapped to group
// ids by an agg.GroupTable and folded into one agg.Accumulator per
// aggregate call; at EndOfInput the groups are emitted (group columns, then
// the aggregates) in batches of at most vectorized.DefaultBatchSize rows.
// Without group keys it is the global aggregate, which emits exactly one
// row even for an empty input (COUNT 0, other aggregates NULL).
type HashAggregate struct {
	groupKeys []int
	calls     []logical.AggCall
	in        types.Schema
	out       *arrow.Schema

	table   agg.GroupTable // nil for the global aggregate
	accs    []aggState
	ids     []uint32
	keyBuf  []arrow.Array
	nGroups int
	emitted bool
	spill   aggSpill // memory budget and spill files (hash_aggregate_spill.go)

	scripts scriptFuncs // script aggregate functions (script_agg.go)
}

// aggState is one aggregate call's accumulator and its argument buffers.
type aggState struct {
	acc    agg.Accumulator
	args   []int
	filter int
	argBuf []arrow.Array
}

var _ vectorized.Operator = (*HashAggregate)(nil)

// NewHashAggregate returns the aggregate of calls grouped by the input
// columns groupKeys, over input schema in, producing schema out.
func NewHashAggregate(groupKeys []int, calls []logical.AggCall, in types.Schema, out *arrow.Schema) *HashAggregate {
	return &HashAggregate{groupKeys: groupKeys, calls: calls, in: in, out: out}
}

// accumulatorName maps a plan's aggregate name to agg's function names.
func accumulatorName(c logical.AggCall) string {
	name := strings.ToUpper(c.Name)
	if name == "COUNT" && len(c.Args) == 0 {
		return agg.FuncCountStar
	}
	return name
}

func (h *HashAggregate) column(i int) (arrow.DataType, error) {
	if i < 0 || i >= len(h.in) {
		return nil, fmt.Errorf("internal: aggregate input column $%d out of range", i)
	}
	return types.ArrowType(h.in[i].Type)
}

// Open implements vectorized.Operator.
func (h *HashAggregate) Open(context.Context) error {
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
	if h.out.NumFields() != len(h.groupKeys)+len(h.calls) {
		return fmt.Errorf("internal: aggregate output of %d columns for %d keys and %d calls", h.out.NumFields(), len(h.groupKeys), len(h.calls))
	}
	h.accs = make([]aggState, len(h.calls))
	for i, c := range h.calls {
		argTypes := make([]arrow.DataType, len(c.Args))
		for j, a := range c.Args {
			t, err := h.column(a)
			if err != nil {
				return err
			}
			argTypes[j] = t
		}
		if c.Filter >= len(h.in) {
			return fmt.Errorf("internal: aggregate filter column $%d out of range", c.Filter)
		}
		if c.Filter >= 0 && h.in[c.Filter].Type.Kind != types.Boolean {
			return fmt.Errorf("internal: aggregate filter column $%d is %s, not BOOLEAN", c.Filter, h.in[c.Filter].Type)
		}
		result := h.out.Field(len(h.groupKeys) + i).Type
		name := accumulatorName(c)
		var acc agg.Accumulator
		var err error
		if name == "SINGLE_VALUE" {
			if len(argTypes) != 1 || c.Distinct {
				return fmt.Errorf("internal: SINGLE_VALUE takes one argument, got %d", len(argTypes))
			}
			if !arrow.TypeEqual(argTypes[0], result) {
				return fmt.Errorf("internal: SINGLE_VALUE of %s returning %s", argTypes[0], result)
			}
			acc = newSingleValue(result)
		} else if sa, ok, serr := h.scriptAccumulator(c, result); ok { // script_agg.go
			if serr != nil {
				return fmt.Errorf("%s: %w", c, serr)
			}
			acc = sa
		} else {
			acc, err = agg.NewAccumulator(name, argTypes, result, c.Distinct)
			if err != nil {
				return fmt.Errorf("%s: %w", c, err)
			}
		}
		h.accs[i] = aggState{acc: acc, args: c.Args, filter: c.Filter, argBuf: make([]arrow.Array, len(c.Args))}
	}
	if h.table == nil {
		h.nGroups = 1
		for _, a := range h.accs {
			a.acc.Resize(1)
		}
	}
	return nil
}

// Process implements vectorized.Operator.
func (h *HashAggregate) Process(_ context.Context, b vectorized.Batch, _ vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	if b.Kinds != nil {
		for _, k := range b.Kinds {
			if k.IsRetraction() {
				return fmt.Errorf("not supported yet: HashAggregate over a changelog with retractions")
			}
		}
	}
	rec := b.Rec
	if int(rec.NumCols()) != len(h.in) {
		return fmt.Errorf("internal: aggregate input of %d columns, want %d", rec.NumCols(), len(h.in))
	}
	if cap(h.ids) < n {
		h.ids = make([]uint32, n) // zero: the global aggregate's group
	}
	ids := h.ids[:n]
	if h.table != nil {
		for i, k := range h.groupKeys {
			h.keyBuf[i] = rec.Column(k)
		}
		if err := h.table.Insert(h.keyBuf, n, ids); err != nil {
			return err
		}
		if g := h.table.Len(); g > h.nGroups {
			h.nGroups = g
			for _, a := range h.accs {
				a.acc.Resize(g)
			}
		}
	}
	for i := range h.accs {
		a := &h.accs[i]
		for j, c := range a.args {
			a.argBuf[j] = rec.Column(c)
		}
		var filter *array.Boolean
		if a.filter >= 0 {
			f, ok := rec.Column(a.filter).(*array.Boolean)
			if !ok {
				return fmt.Errorf("internal: aggregate filter column $%d is %s", a.filter, rec.Column(a.filter).DataType())
			}
			filter = f
		}
		if err := a.acc.Update(ids, a.argBuf, filter); err != nil {
			return err
		}
	}
	return h.checkBudget()
}

// OnMarker implements vectorized.Operator.
func (h *HashAggregate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if m.Kind == vectorized.EndOfInput && !h.emitted {
		h.emitted = true
		if err := h.emit(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

func (h *HashAggregate) emit(ctx context.Context, out vectorized.Collector) error {
	if h.spill.spilled {
		return h.emitSpilled(ctx, out)
	}
	cols := make([]arrow.Array, 0, h.out.NumFields())
	if h.table != nil {
		cols = append(cols, h.table.Keys(vectorized.Mem)...)
	}
	for _, a := range h.accs {
		v, err := a.acc.Evaluate(vectorized.Mem)
		if err != nil {
			return err
		}
		cols = append(cols, v)
	}
	rec, err := NewRecord(h.out, cols, int64(h.nGroups))
	if err != nil {
		return err
	}
	for _, c := range cols {
		c.Release() // the record holds its own references
	}
	return emitSliced(ctx, rec, out)
}

// Close implements vectorized.Operator.
func (h *HashAggregate) Close() error {
	h.table = nil
	h.closeScriptAccumulators() // script_agg.go
	h.accs = nil
	return h.closeSpill()
}
