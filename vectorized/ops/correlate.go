package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/vectorized"
)

// Correlate calls a table function for every input row and emits the row
// followed by each row the function produces (LATERAL TABLE). A left
// correlate emits a row the function produces nothing for once, with NULL
// function columns. Output rows keep their input row's kind.
type Correlate struct {
	args     []Evaluator
	argTypes []types.Type
	fn       udf.TableFunc
	fnTypes  []types.Type
	left     bool
	ectx     *function.EvalContext
	out      *arrow.Schema

	sel   []int32
	rows  [][]any
	kinds []changelog.RowKind
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
	// Left keeps rows the function produces nothing for.
	Left bool
	// Eval is the session context passed to the function.
	Eval *function.EvalContext
	// Out is the output schema: the input's columns, then the function's.
	Out *arrow.Schema
}

// NewCorrelate returns a Correlate.
func NewCorrelate(spec CorrelateSpec) *Correlate {
	return &Correlate{args: spec.Args, argTypes: spec.ArgTypes, fn: spec.Func, fnTypes: spec.FuncTypes,
		left: spec.Left, ectx: spec.Eval, out: spec.Out}
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
	vals := make([]any, len(arrs))
	for r := 0; r < n; r++ {
		if r%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for k, a := range arrs {
			vals[k] = types.GetValue(a, r, c.argTypes[k])
		}
		produced := 0
		emit := func(row []any) error {
			if len(row) != len(c.fnTypes) {
				return fmt.Errorf("internal: table function row of %d values, want %d", len(row), len(c.fnTypes))
			}
			c.add(int32(r), append([]any(nil), row...), b.Kind(r))
			produced++
			if len(c.sel) >= vectorized.DefaultBatchSize {
				return c.flush(ctx, rec, b.Kinds != nil, out)
			}
			return nil
		}
		if err := c.fn.Rows(c.ectx, vals, emit); err != nil {
			return err
		}
		if produced == 0 && c.left {
			c.add(int32(r), make([]any, len(c.fnTypes)), b.Kind(r))
		}
		if len(c.sel) >= vectorized.DefaultBatchSize {
			if err := c.flush(ctx, rec, b.Kinds != nil, out); err != nil {
				return err
			}
		}
	}
	return c.flush(ctx, rec, b.Kinds != nil, out)
}

func (c *Correlate) add(r int32, row []any, k changelog.RowKind) {
	c.sel = append(c.sel, r)
	c.rows = append(c.rows, row)
	c.kinds = append(c.kinds, k)
}

// flush emits the buffered output rows of the current input batch rec.
func (c *Correlate) flush(ctx context.Context, rec arrow.RecordBatch, withKinds bool, out vectorized.Collector) error {
	if len(c.sel) == 0 {
		return nil
	}
	defer func() {
		c.sel, c.rows, c.kinds = c.sel[:0], c.rows[:0], c.kinds[:0]
	}()
	cols := make([]arrow.Array, 0, c.out.NumFields())
	release := func() {
		for _, a := range cols {
			a.Release()
		}
	}
	for i := 0; i < int(rec.NumCols()); i++ {
		a, err := GatherArray(rec.Column(i), c.sel)
		if err != nil {
			release()
			return err
		}
		cols = append(cols, a)
	}
	vals := make([]any, len(c.rows))
	for j, t := range c.fnTypes {
		for i, row := range c.rows {
			vals[i] = row[j]
		}
		a, err := types.BuildArray(vectorized.Mem, t, vals)
		if err != nil {
			release()
			return fmt.Errorf("table function column %d: %w", j+1, err)
		}
		cols = append(cols, a)
	}
	res, err := NewRecord(c.out, cols, int64(len(c.sel)))
	release()
	if err != nil {
		return err
	}
	var kinds []changelog.RowKind
	if withKinds {
		kinds = append([]changelog.RowKind(nil), c.kinds...)
	}
	return out.Emit(ctx, vectorized.Batch{Rec: res, Kinds: kinds})
}

// OnMarker implements vectorized.Operator.
func (c *Correlate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (c *Correlate) Close() error {
	c.sel, c.rows, c.kinds = nil, nil, nil
	return nil
}
