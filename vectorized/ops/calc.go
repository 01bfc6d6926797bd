package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/vectorized"
)

// Projection computes one output column of a Calc: either the input column
// Column (zero-copy, when Eval is nil) or Eval's result.
type Projection struct {
	Column int
	Eval   Evaluator
}

// Calc is the fused filter and projection: rows where the condition is
// TRUE are kept (no condition keeps all), then every projection is
// computed over the kept rows.
type Calc struct {
	cond  Selector
	projs []Projection
	out   *arrow.Schema
}

var _ vectorized.Operator = (*Calc)(nil)

// NewCalc returns a Calc with an optional condition (nil keeps every row),
// one Projection per output column and the output schema.
func NewCalc(cond Selector, projs []Projection, out *arrow.Schema) *Calc {
	return &Calc{cond: cond, projs: projs, out: out}
}

// Open implements vectorized.Operator.
func (c *Calc) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (c *Calc) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	rec := b.Rec
	kinds := b.Kinds
	for _, p := range c.projs {
		if p.Eval == nil && (p.Column < 0 || p.Column >= int(rec.NumCols())) {
			return fmt.Errorf("internal: projection of column $%d from %d columns", p.Column, rec.NumCols())
		}
	}
	if c.cond != nil {
		sel, err := c.cond.Select(rec)
		if err != nil {
			return err
		}
		if len(sel) == 0 {
			return nil
		}
		if len(sel) < int(rec.NumRows()) {
			rec, err = Gather(rec, sel, nil)
			if err != nil {
				return err
			}
			if kinds != nil {
				nk := make([]changelog.RowKind, len(sel))
				for i, s := range sel {
					nk[i] = kinds[s]
				}
				kinds = nk
			}
		}
	}
	n := rec.NumRows()
	cols := make([]arrow.Array, len(c.projs))
	for i, p := range c.projs {
		if p.Eval == nil {
			cols[i] = rec.Column(p.Column)
			continue
		}
		a, err := p.Eval.Eval(rec)
		if err != nil {
			return err
		}
		if int64(a.Len()) != n {
			return fmt.Errorf("internal: projection %d returned %d rows for %d", i, a.Len(), n)
		}
		cols[i] = a
	}
	outRec, err := NewRecord(c.out, cols, n)
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: outRec, Kinds: kinds})
}

// OnMarker implements vectorized.Operator.
func (c *Calc) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (c *Calc) Close() error { return nil }
