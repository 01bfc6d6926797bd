package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/vectorized"
)

// Correlate calls a table function for every input row and emits the row
// followed by each row the function produces (LATERAL TABLE). A left
// correlate emits a row the function produces nothing for once, with NULL
// function columns. With a condition (LEFT JOIN LATERAL TABLE(…) ON
// cond), only produced rows for which it is TRUE are emitted, and a left
// correlate pads an input row none of whose produced rows passes. Output
// rows keep their input row's kind.
//
// A function that implements udf.TableChunkFunc is called once per input
// batch (one interpreter borrow, one conversion of the argument columns);
// other functions once per input row.
type Correlate struct {
	args     []Evaluator
	argTypes []types.Type
	fn       udf.TableFunc
	fnTypes  []types.Type
	left     bool
	cond     Evaluator
	ectx     *function.EvalContext
	out      *arrow.Schema

	// the output entries of the current input batch not flushed yet: the
	// input row, the function's values, the row kind, and whether the
	// entry is a NULL-padded row (emitted whatever the condition)
	sel   []int32
	rows  [][]any
	kinds []changelog.RowKind
	pad   []bool
	// row bookkeeping of the current input batch (see closeUpTo)
	done, open int
	matched    []bool // with a condition: a produced row of the input row passed
}

var _ vectorized.Operator = (*Correlate)(nil)

// CorrelateSpec configures a Correlate.
type CorrelateSpec struct {
	// Args evaluate the function's arguments over an input batch; ArgTypes
	// are their types.
	Args     []Evaluator
	ArgTypes []types.Type
	// Func produces the function's rows.
	Func udf.TableFunc
	// FuncTypes are the types of the function's columns (as in Out).
	FuncTypes []types.Type
	// Left keeps rows the function produces nothing for (or, with Cond,
	// nothing that passes Cond for).
	Left bool
	// Cond, if not nil, is the join condition (ON cond): a BOOLEAN
	// evaluated over rows of the output schema Out; produced rows where
	// it is not TRUE are dropped.
	Cond Evaluator
	// Eval is the session context passed to the function.
	Eval *function.EvalContext
	// Out is the output schema: the input's columns, then the function's.
	Out *arrow.Schema
}

// NewCorrelate returns a Correlate.
func NewCorrelate(spec CorrelateSpec) *Correlate {
	return &Correlate{args: spec.Args, argTypes: spec.ArgTypes, fn: spec.Func, fnTypes: spec.FuncTypes,
		left: spec.Left, cond: spec.Cond, ectx: spec.Eval, out: spec.Out}
}

// Open implements vectorized.Operator.
func (c *Correlate) Open(context.Context) error {
	if len(c.args) != len(c.argTypes) {
		return fmt.Errorf("internal: correlate with %d arguments and %d argument types", len(c.args), len(c.argTypes))
	}
	if c.fn == nil {
		return fmt.Errorf("internal: correlate without a table function")
	}
	return nil
}

// corrBatch is the input batch being processed.
type corrBatch struct {
	ctx       context.Context
	b         vectorized.Batch
	withKinds bool
	out       vectorized.Collector
}

// Process implements vectorized.Operator.
func (c *Correlate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	rec := b.Rec
	nIn := c.out.NumFields() - len(c.fnTypes)
	if int(rec.NumCols()) != nIn {
		return fmt.Errorf("internal: correlate input of %d columns, want %d", rec.NumCols(), nIn)
	}
	arrs := make([]arrow.Array, len(c.args))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for k, ev := range c.args {
		a, err := ev.Eval(rec)
		if err != nil {
			return err
		}
		arrs[k] = a
	}
	cb := &corrBatch{ctx: ctx, b: b, withKinds: b.Kinds != nil, out: out}
	c.done, c.open = 0, -1
	if c.cond != nil {
		if cap(c.matched) < n {
			c.matched = make([]bool, n)
		}
		c.matched = c.matched[:n]
		clear(c.matched)
	}
	if cf, ok := c.fn.(udf.TableChunkFunc); ok {
		args := make([]udf.ArrowArg, len(arrs))
		for i, a := range arrs {
			args[i].Array = a
		}
		if err := cf.RowsArrow(c.ectx, args, n, func(r int, row []any) error { return c.produced(cb, r, row) }); err != nil {
			return err
		}
	} else {
		vals := make([]any, len(arrs))
		for r := 0; r < n; r++ {
			for k, a := range arrs {
				vals[k] = types.GetValue(a, r, c.argTypes[k])
			}
			if err := c.fn.Rows(c.ectx, vals, func(row []any) error { return c.produced(cb, r, row) }); err != nil {
				return err
			}
			if err := c.closeUpTo(cb, r+1); err != nil {
				return err
			}
		}
	}
	if err := c.closeUpTo(cb, n); err != nil {
		return err
	}
	return c.flush(cb)
}

// produced buffers a row the function produced for input row r. Rows
// arrive in input order, so a row of a later input row closes the ones
// before it.
func (c *Correlate) produced(cb *corrBatch, r int, row []any) error {
	if len(row) != len(c.fnTypes) {
		return fmt.Errorf("internal: table function row of %d values, want %d", len(row), len(c.fnTypes))
	}
	if r < c.open || r < c.done || r >= cb.b.NumRows() {
		return fmt.Errorf("internal: table function row for input row %d out of order", r)
	}
	if r != c.open {
		if err := c.closeUpTo(cb, r); err != nil {
			return err
		}
		c.open = r
	}
	c.add(int32(r), append([]any(nil), row...), cb.b.Kind(r), false)
	if len(c.sel) >= vectorized.DefaultBatchSize {
		return c.flush(cb)
	}
	return nil
}

// closeUpTo marks the input rows before k as complete: a left correlate
// pads a row that produced nothing. A row that produced rows is decided
// by the condition (if any) when its rows are flushed; if they were all
// flushed before it completed, it is decided here.
func (c *Correlate) closeUpTo(cb *corrBatch, k int) error {
	for ; c.done < k; c.done++ {
		r := c.done
		if r%256 == 0 {
			if err := cb.ctx.Err(); err != nil {
				return err
			}
		}
		if !c.left {
			continue
		}
		switch {
		case r != c.open:
			c.add(int32(r), nil, cb.b.Kind(r), true)
		case c.cond != nil && !c.pendingRows(r) && !c.matched[r]:
			c.add(int32(r), nil, cb.b.Kind(r), true)
		}
	}
	if len(c.sel) >= vectorized.DefaultBatchSize {
		return c.flush(cb)
	}
	return nil
}

// pendingRows reports whether produced rows of input row r wait in the
// buffer.
func (c *Correlate) pendingRows(r int) bool {
	for i := len(c.sel) - 1; i >= 0; i-- {
		if int(c.sel[i]) != r {
			return false
		}
		if !c.pad[i] {
			return true
		}
	}
	return false
}

func (c *Correlate) add(r int32, row []any, k changelog.RowKind, pad bool) {
	if pad {
		row = make([]any, len(c.fnTypes))
	}
	c.sel = append(c.sel, r)
	c.rows = append(c.rows, row)
	c.kinds = append(c.kinds, k)
	c.pad = append(c.pad, pad)
}

// applyCond evaluates the condition over the buffered produced rows and
// keeps those where it is TRUE; a complete input row of a left correlate
// none of whose rows passed gets its NULL-padded row in their place.
func (c *Correlate) applyCond(cb *corrBatch) error {
	var cand []int
	for i, p := range c.pad {
		if !p {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return nil
	}
	sel := make([]int32, len(cand))
	rows := make([][]any, len(cand))
	for j, i := range cand {
		sel[j], rows[j] = c.sel[i], c.rows[i]
	}
	rec, err := c.record(cb.b.Rec, sel, rows)
	if err != nil {
		return err
	}
	res, err := c.cond.Eval(rec)
	rec.Release()
	if err != nil {
		return err
	}
	defer res.Release()
	mask, ok := res.(*array.Boolean)
	if !ok || mask.Len() != len(cand) {
		return fmt.Errorf("internal: correlate condition of type %s", res.DataType())
	}
	pass := make([]bool, len(c.sel))
	for j, i := range cand {
		pass[i] = mask.IsValid(j) && mask.Value(j)
	}
	sel0, rows0, kinds0, pad0 := c.sel, c.rows, c.kinds, c.pad
	c.sel, c.rows, c.kinds, c.pad = nil, nil, nil, nil
	for i := 0; i < len(sel0); i++ {
		r := int(sel0[i])
		if pad0[i] {
			c.add(sel0[i], nil, kinds0[i], true)
			continue
		}
		if pass[i] {
			c.matched[r] = true
			c.add(sel0[i], rows0[i], kinds0[i], false)
		}
		lastOfRow := i+1 == len(sel0) || int(sel0[i+1]) != r || pad0[i+1]
		if lastOfRow && c.left && r < c.done && !c.matched[r] {
			c.add(sel0[i], nil, kinds0[i], true)
		}
	}
	return nil
}

// record builds the output rows of input batch rec for the input rows
// sel and function values rows.
func (c *Correlate) record(rec arrow.RecordBatch, sel []int32, rows [][]any) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, c.out.NumFields())
	release := func() {
		for _, a := range cols {
			a.Release()
		}
	}
	for i := 0; i < int(rec.NumCols()); i++ {
		a, err := GatherArray(rec.Column(i), sel)
		if err != nil {
			release()
			return nil, err
		}
		cols = append(cols, a)
	}
	vals := make([]any, len(rows))
	for j, t := range c.fnTypes {
		for i, row := range rows {
			vals[i] = row[j]
		}
		a, err := types.BuildArray(vectorized.Mem, t, vals)
		if err != nil {
			release()
			return nil, fmt.Errorf("table function column %d: %w", j+1, err)
		}
		cols = append(cols, a)
	}
	res, err := NewRecord(c.out, cols, int64(len(sel)))
	release()
	return res, err
}

// flush emits the buffered output rows of the current input batch.
func (c *Correlate) flush(cb *corrBatch) error {
	if c.cond != nil {
		if err := c.applyCond(cb); err != nil {
			return err
		}
	}
	if len(c.sel) == 0 {
		return nil
	}
	defer func() {
		c.sel, c.rows, c.kinds, c.pad = c.sel[:0], c.rows[:0], c.kinds[:0], c.pad[:0]
	}()
	res, err := c.record(cb.b.Rec, c.sel, c.rows)
	if err != nil {
		return err
	}
	var kinds []changelog.RowKind
	if cb.withKinds {
		kinds = append([]changelog.RowKind(nil), c.kinds...)
	}
	return cb.out.Emit(cb.ctx, vectorized.Batch{Rec: res, Kinds: kinds})
}

// OnMarker implements vectorized.Operator.
func (c *Correlate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (c *Correlate) Close() error {
	c.sel, c.rows, c.kinds, c.pad, c.matched = nil, nil, nil, nil, nil
	return nil
}
