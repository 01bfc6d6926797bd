package build

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// buildLookupFunction builds a LookupJoin whose table offers a lookup
// function (catalog.Abilities.LookupFunction, connectors.LookupFactory):
// the temporal plan — the table's scan, under at most one Calc — is not
// run; its scan tells the function which columns and pushed filters to
// use, and the Calc runs over the rows each lookup returns. ok is false
// when the table offers none (the in-memory path then reads the table).
// The join may run as parallel instances (parallelSafe), each with its
// own function and cache.
func (b *builder) buildLookupFunction(n *physical.LookupJoin, spec ops.LookupJoinSpec, input runner) (runner, bool, error) {
	if n.Table == nil || !catalog.AbilitiesOf(n.Table).LookupFunction || b.env.Connectors == nil {
		return nil, false, nil
	}
	f, err := b.env.Connectors.Lookup(n.Table)
	if err != nil {
		return nil, true, err
	}
	lf, ok := f.(connectors.LookupFactory)
	if !ok {
		return nil, true, fmt.Errorf("internal: connector '%s' declares a lookup function but its factory offers none", f.Identifier())
	}
	fail := func(what string) (runner, bool, error) {
		return nil, true, fmt.Errorf("%s: not supported yet: a lookup join whose temporal table is %s", n.Name(), what)
	}
	node := n.Temporal
	calc, _ := node.(*physical.Calc)
	if calc != nil {
		node = calc.Input
	}
	scan, ok := node.(*physical.TableSourceScan)
	if !ok {
		return fail(node.Name() + " over the table's scan")
	}
	keys := make([]int, len(n.TemporalKeys))
	for i, k := range n.TemporalKeys {
		col := k
		if calc != nil {
			ref, ok := calc.Projection[k].(*logical.ColumnRef)
			if !ok {
				return fail("keyed by a computed column")
			}
			col = ref.Index
		}
		if scan.Projection != nil {
			col = scan.Projection[col]
		}
		keys[i] = col
	}
	ss, err := b.sourceSpec(scan)
	if err != nil {
		return nil, true, err
	}
	fn, cache, err := lf.CreateLookup(b.conn(), connectors.LookupSpec{Table: n.Table, Projection: scan.Projection,
		Keys: keys, Filters: ss.Filters})
	if err != nil {
		return nil, true, err
	}
	if calc != nil {
		if fn, err = b.lookupCalc(calc, fn); err != nil {
			return nil, true, fmt.Errorf("%s: %w", n.Name(), err)
		}
	}
	return &unaryRunner{name: n.Name(), op: ops.NewLookupFunctionJoin(spec, fn, cache), child: input}, true, nil
}

// lookupCalc runs a Calc over the rows a lookup function returns. Each
// row's key index rides along as an extra last column through the Calc,
// so the rows its condition drops drop their index too.
func (b *builder) lookupCalc(calc *physical.Calc, fn vectorized.LookupFunction) (vectorized.LookupFunction, error) {
	in := append(append(types.Schema{}, calc.Input.Schema()...), types.Field{Name: "$lookup_key", Type: types.IntT.WithNullable(false)})
	var cond ops.Selector
	var err error
	if calc.Condition != nil {
		if cond, err = b.compileFilter(calc.Condition, in); err != nil {
			return nil, err
		}
	}
	projs := make([]ops.Projection, len(calc.Projection)+1)
	for i, e := range calc.Projection {
		if c, ok := e.(*logical.ColumnRef); ok {
			projs[i] = ops.Projection{Column: c.Index}
			continue
		}
		ev, err := b.compile(e, in)
		if err != nil {
			return nil, err
		}
		projs[i] = ops.Projection{Eval: ev}
	}
	projs[len(calc.Projection)] = ops.Projection{Column: len(in) - 1}
	outSchema := append(append(types.Schema{}, calc.Schema()...), in[len(in)-1])
	as, err := types.ArrowSchema(outSchema)
	if err != nil {
		return nil, err
	}
	inAs, err := types.ArrowSchema(in)
	if err != nil {
		return nil, err
	}
	rest, err := types.ArrowSchema(calc.Schema())
	if err != nil {
		return nil, err
	}
	return &calcLookup{fn: fn, calc: ops.NewCalc(cond, projs, as), in: inAs, out: rest}, nil
}

// calcLookup is a lookup function followed by a Calc.
type calcLookup struct {
	fn      vectorized.LookupFunction
	calc    *ops.Calc
	in, out *arrow.Schema
}

func (c *calcLookup) Open(ctx context.Context) error {
	if err := c.calc.Open(ctx); err != nil {
		return err
	}
	return c.fn.Open(ctx)
}

func (c *calcLookup) Lookup(ctx context.Context, keys []arrow.Array) (arrow.RecordBatch, []int32, error) {
	rows, of, err := c.fn.Lookup(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	ordB := array.NewInt32Builder(vectorized.Mem)
	ordB.AppendValues(of, nil)
	ord := ordB.NewArray()
	cols := append(append([]arrow.Array{}, rows.Columns()...), ord)
	rec := array.NewRecordBatch(c.in, cols, rows.NumRows())
	var got batches
	if err := c.calc.Process(ctx, vectorized.Batch{Rec: rec}, &got); err != nil {
		return nil, nil, err
	}
	var outCols [][]arrow.Array
	var outOf []int32
	var total int64
	for _, r := range got {
		last := int(r.NumCols()) - 1
		outOf = append(outOf, r.Column(last).(*array.Int32).Int32Values()...)
		outCols = append(outCols, r.Columns()[:last])
		total += r.NumRows()
	}
	if len(outCols) == 1 {
		return array.NewRecordBatch(c.out, outCols[0], total), outOf, nil
	}
	merged := make([]arrow.Array, c.out.NumFields())
	for i := range merged {
		parts := make([]arrow.Array, len(outCols))
		for p := range outCols {
			parts[p] = outCols[p][i]
		}
		if len(parts) == 0 {
			b := array.NewBuilder(vectorized.Mem, c.out.Field(i).Type)
			merged[i] = b.NewArray()
			continue
		}
		if merged[i], err = array.Concatenate(parts, vectorized.Mem); err != nil {
			return nil, nil, err
		}
	}
	return array.NewRecordBatch(c.out, merged, total), outOf, nil
}

func (c *calcLookup) Close() error {
	c.calc.Close()
	return c.fn.Close()
}

// batches collects the records a Calc emits.
type batches []arrow.RecordBatch

func (bs *batches) Emit(_ context.Context, b vectorized.Batch) error {
	*bs = append(*bs, b.Rec)
	return nil
}
func (bs *batches) EmitMarker(context.Context, vectorized.Marker) error { return nil }
