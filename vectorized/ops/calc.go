package ops

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/vectorized"
)

// Projection computes one output column of a Calc: either the input column
// Column (zero-copy, when Eval is nil) or Eval's result.
type Projection struct {
	Column int
	Eval   Evaluator
}

// Evaluators compiled by vectorized/expr say what they read; a Calc uses
// it to gather, for the rows its condition keeps, only what its
// projections need. An Evaluator without these methods is assumed to read
// every column and to be anything but a field-access path.
type (
	// columnReader reports the input columns an evaluator reads (ok false:
	// unknown).
	columnReader interface {
		InputColumns() (cols []int, ok bool)
	}
	// fieldPather reports whether an evaluator is a bare column or a chain
	// of ROW field accesses on one: it cannot fail and commutes with row
	// selection.
	fieldPather interface {
		FieldPath() (col int, path []int, ok bool)
	}
)

// Calc is the fused filter and projection: rows where the condition is
// TRUE are kept (no condition keeps all), then every projection is
// computed over the kept rows.
//
// When the condition drops some rows of a batch, the kept rows are not
// gathered wholesale. A projection that is a bare column or a ROW
// field-access path ($FIELD(col, i), nested) reads the unfiltered batch
// (zero copy: struct children) and only its result is gathered, with the
// NULL rows of the enclosing rows folded in. The other projections are
// evaluated — on the kept rows only, so that a row the condition drops
// never raises an error — over a batch in which only the columns they read
// are gathered; the unread columns are NULL-typed placeholders.
type Calc struct {
	cond  Selector
	projs []Projection
	out   *arrow.Schema

	// early[i]: projection i is a bare column or a field-access path.
	early []bool
	// paths[i]: the column and field indexes of an early projection with
	// an Eval.
	paths []calcPath
	// reads: the input columns, ascending, that the other projections
	// read; readsAll: unknown, gather every column. maxCol is the highest
	// column any projection reads (-1: none).
	reads    []int
	readsAll bool
	maxCol   int
	// masked caches the schema of filtered batches for one input schema.
	masked atomic.Pointer[calcMasked]
}

type calcPath struct {
	col  int
	path []int
}

type calcMasked struct {
	in, out *arrow.Schema
}

var _ vectorized.Operator = (*Calc)(nil)

// NewCalc returns a Calc with an optional condition (nil keeps every row),
// one Projection per output column and the output schema.
func NewCalc(cond Selector, projs []Projection, out *arrow.Schema) *Calc {
	c := &Calc{cond: cond, projs: projs, out: out, early: make([]bool, len(projs)), paths: make([]calcPath, len(projs)), maxCol: -1}
	seen := map[int]bool{}
	for i, p := range projs {
		if p.Eval == nil {
			c.early[i] = true
			c.maxCol = max(c.maxCol, p.Column)
			continue
		}
		if fp, ok := p.Eval.(fieldPather); ok {
			if col, path, ok := fp.FieldPath(); ok {
				c.early[i] = true
				c.paths[i] = calcPath{col: col, path: path}
				c.maxCol = max(c.maxCol, col)
				continue
			}
		}
		cr, ok := p.Eval.(columnReader)
		if !ok {
			c.readsAll = true
			continue
		}
		cols, ok := cr.InputColumns()
		if !ok {
			c.readsAll = true
			continue
		}
		for _, col := range cols {
			c.maxCol = max(c.maxCol, col)
			if !seen[col] {
				seen[col] = true
				c.reads = append(c.reads, col)
			}
		}
	}
	if c.readsAll {
		c.reads = nil
	}
	slices.Sort(c.reads)
	return c
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
			if kinds != nil {
				nk := make([]changelog.RowKind, len(sel))
				for i, s := range sel {
					nk[i] = kinds[s]
				}
				kinds = nk
			}
			cols, err := c.projectSelected(rec, sel)
			if err != nil {
				return err
			}
			outRec, err := NewRecord(c.out, cols, int64(len(sel)))
			if err != nil {
				return err
			}
			return out.Emit(ctx, vectorized.Batch{Rec: outRec, Kinds: kinds})
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

// projectSelected computes the projections over the rows sel of rec (a
// strict, non-empty subset).
func (c *Calc) projectSelected(rec arrow.RecordBatch, sel []int32) ([]arrow.Array, error) {
	if c.maxCol >= int(rec.NumCols()) {
		return nil, fmt.Errorf("internal: projection of column $%d from %d columns", c.maxCol, rec.NumCols())
	}
	n := len(sel)
	cols := make([]arrow.Array, len(c.projs))
	var filtered arrow.RecordBatch
	for i, p := range c.projs {
		if c.early[i] {
			a, err := c.gatherEarly(rec, i, sel)
			if err != nil {
				return nil, err
			}
			cols[i] = a
			continue
		}
		if filtered == nil {
			var err error
			if filtered, err = c.filterRecord(rec, sel); err != nil {
				return nil, err
			}
		}
		a, err := p.Eval.Eval(filtered)
		if err != nil {
			return nil, err
		}
		if a.Len() != n {
			return nil, fmt.Errorf("internal: projection %d returned %d rows for %d", i, a.Len(), n)
		}
		cols[i] = a
	}
	return cols, nil
}

// gatherEarly computes early projection i over the rows sel of rec: the
// column, or the struct child at the end of the field path, is gathered
// and the NULL rows of the structs along the path are folded in (a field
// of a NULL row is NULL), as the field-access kernel does.
func (c *Calc) gatherEarly(rec arrow.RecordBatch, i int, sel []int32) (arrow.Array, error) {
	p := c.projs[i]
	if p.Eval == nil {
		return GatherArray(rec.Column(p.Column), sel)
	}
	cp := c.paths[i]
	a := rec.Column(cp.col)
	var parents []arrow.Array
	for _, f := range cp.path {
		s, ok := a.(*array.Struct)
		if !ok || f < 0 || f >= s.NumField() {
			return c.evalThenGather(rec, p.Eval, sel)
		}
		if s.NullN() > 0 {
			parents = append(parents, s)
		}
		a = s.Field(f)
	}
	if len(parents) > 0 && (a.DataType().ID() == arrow.NULL || len(a.Data().Buffers()) == 0) {
		return c.evalThenGather(rec, p.Eval, sel)
	}
	g, err := GatherArray(a, sel)
	if err != nil {
		return nil, err
	}
	return foldParentNulls(g, parents, sel), nil
}

// evalThenGather evaluates a field-access path (which cannot fail) on the
// whole batch and gathers the rows sel of the result.
func (c *Calc) evalThenGather(rec arrow.RecordBatch, ev Evaluator, sel []int32) (arrow.Array, error) {
	a, err := ev.Eval(rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return GatherArray(a, sel)
}

// foldParentNulls returns g (row k taken from row sel[k]) with the rows
// that are NULL in any of parents (arrays of the unfiltered batch) made
// NULL too.
func foldParentNulls(g arrow.Array, parents []arrow.Array, sel []int32) arrow.Array {
	first := -1
	for k, r := range sel {
		if g.IsNull(k) {
			continue
		}
		for _, p := range parents {
			if p.IsNull(int(r)) {
				first = k
				break
			}
		}
		if first >= 0 {
			break
		}
	}
	if first < 0 {
		return g
	}
	d := g.Data()
	n, off := d.Len(), d.Offset()
	bits := make([]byte, bitutil.BytesForBits(int64(off+n)))
	nulls := 0
	for k, r := range sel {
		valid := g.IsValid(k)
		if valid && k >= first {
			for _, p := range parents {
				if p.IsNull(int(r)) {
					valid = false
					break
				}
			}
		}
		if valid {
			bitutil.SetBit(bits, off+k)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{memory.NewBufferBytes(bits)}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, off)
	defer nd.Release()
	out := array.MakeFromData(nd)
	g.Release()
	return out
}

// filterRecord gathers the rows sel of the columns the non-early
// projections read; the other columns become NULL-typed placeholders
// (never read).
func (c *Calc) filterRecord(rec arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
	if c.readsAll || len(c.reads) == int(rec.NumCols()) {
		return Gather(rec, sel, nil)
	}
	n := len(sel)
	cols := make([]arrow.Array, rec.NumCols())
	r := 0
	for i := range cols {
		if r < len(c.reads) && c.reads[r] == i {
			r++
			a, err := GatherArray(rec.Column(i), sel)
			if err != nil {
				return nil, err
			}
			cols[i] = a
			continue
		}
		cols[i] = array.NewNull(n)
	}
	return NewRecord(c.maskedSchema(rec.Schema()), cols, int64(n))
}

// maskedSchema returns in with the columns no non-early projection reads
// typed NULL.
func (c *Calc) maskedSchema(in *arrow.Schema) *arrow.Schema {
	if m := c.masked.Load(); m != nil && m.in == in {
		return m.out
	}
	fields := in.Fields()
	r := 0
	for i := range fields {
		if r < len(c.reads) && c.reads[r] == i {
			r++
			continue
		}
		fields[i] = arrow.Field{Name: fields[i].Name, Type: arrow.Null, Nullable: true}
	}
	md := in.Metadata()
	out := arrow.NewSchema(fields, &md)
	c.masked.Store(&calcMasked{in: in, out: out})
	return out
}

// OnMarker implements vectorized.Operator.
func (c *Calc) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (c *Calc) Close() error { return nil }
