package build

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// Builders of the batch plan nodes (planner/physical/node.go); streaming
// plans reuse several of them (TableSourceScan, Values, Calc, Limit, …).

func init() {
	register(buildTableSourceScan)
	register(buildValues)
	register(buildCalc)
	register(buildHashAggregate)
	register(buildHashJoin)
	register(buildNestedLoopJoin)
	register(buildSort)
	register(buildSortLimit)
	register(buildLimit)
	register(buildUnion)
	register(buildSetOp)
	register(buildSink)
}

// buildTableSourceScan builds a TableSourceScan.
func buildTableSourceScan(b *builder, n *physical.TableSourceScan, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	fail := func(err error) (runner, error) { return nil, fmt.Errorf("%s: %w", name, err) }
	if b.env.Connectors == nil {
		return fail(fmt.Errorf("internal: no connector registry"))
	}
	f, err := b.env.Connectors.Lookup(n.Table)
	if err != nil {
		return nil, err
	}
	spec, err := b.sourceSpec(n)
	if err != nil {
		return fail(err)
	}
	src, err := f.CreateSource(b.conn(), spec)
	if err != nil {
		return nil, err
	}
	if err := b.setSplit(src); err != nil { // parallel.go
		return nil, err
	}
	return &sourceRunner{name: name, src: src, idle: b.env.SourceIdleTimeout, drain: b.env.Drain}, nil
}

// buildValues builds a Values.
func buildValues(b *builder, n *physical.Values, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	return &sourceRunner{name: name, src: ops.NewValues(n.Out, n.Rows)}, nil
}

// buildCalc builds a Calc.
func buildCalc(b *builder, n *physical.Calc, ch []runner, out *arrow.Schema) (runner, error) {
	var err error
	name := n.Name()
	fail := func(err error) (runner, error) { return nil, fmt.Errorf("%s: %w", name, err) }
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	in := n.Input.Schema()
	var cond ops.Selector
	if n.Condition != nil {
		if cond, err = b.compileFilter(n.Condition, in); err != nil {
			return fail(err)
		}
	}
	projs := make([]ops.Projection, len(n.Projection))
	for i, e := range n.Projection {
		if c, ok := e.(*logical.ColumnRef); ok && c.Index >= 0 && c.Index < len(in) {
			projs[i] = ops.Projection{Column: c.Index}
			continue
		}
		ev, err := b.compile(e, in)
		if err != nil {
			return fail(err)
		}
		projs[i] = ops.Projection{Eval: ev}
	}
	return unary(ops.NewCalc(cond, projs, out))
}

// buildHashAggregate builds a HashAggregate.
func buildHashAggregate(b *builder, n *physical.HashAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	ha := ops.NewHashAggregate(n.GroupKeys, n.Aggs, n.Input.Schema(), out)
	ha.SetFunctions(b.env.Eval) // script aggregates (ops/script_agg.go)
	return unary(ha)
}

// buildHashJoin builds a HashJoin.
func buildHashJoin(b *builder, n *physical.HashJoin, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	fail := func(err error) (runner, error) { return nil, fmt.Errorf("%s: %w", name, err) }
	spec, err := b.joinSpec(n.Left, n.Right, n.Kind, n.Extra, n.NullAwareAnti, out)
	if err != nil {
		return fail(err)
	}
	spec.LeftKeys, spec.RightKeys = n.LeftKeys, n.RightKeys
	if b.reads != nil {
		spec.Unread = b.reads.unreadColumns(n)
	}
	return &binaryRunner{name: name, op: ops.NewHashJoin(spec), left: ch[0], right: ch[1]}, nil
}

// buildNestedLoopJoin builds a NestedLoopJoin.
func buildNestedLoopJoin(b *builder, n *physical.NestedLoopJoin, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	fail := func(err error) (runner, error) { return nil, fmt.Errorf("%s: %w", name, err) }
	spec, err := b.joinSpec(n.Left, n.Right, n.Kind, nullAwareCond(n.Cond, n.NullAwareAnti), false, out)
	if err != nil {
		return fail(err)
	}
	return &binaryRunner{name: name, op: ops.NewNestedLoopJoin(spec), left: ch[0], right: ch[1]}, nil
}

// buildSort builds a Sort.
func buildSort(b *builder, n *physical.Sort, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	return unary(ops.NewSort(n.Keys, out))
}

// buildSortLimit builds a SortLimit.
func buildSortLimit(b *builder, n *physical.SortLimit, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	return unary(ops.NewSortLimit(n.Keys, out, n.Offset, n.Fetch))
}

// buildLimit builds a Limit.
func buildLimit(b *builder, n *physical.Limit, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	return unary(ops.NewLimit(n.Offset, n.Fetch))
}

// buildUnion builds a Union.
func buildUnion(b *builder, n *physical.Union, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	return &unionRunner{name: name, op: ops.NewUnion(len(ch), out), children: ch}, nil
}

// buildSetOp builds a SetOp.
func buildSetOp(b *builder, n *physical.SetOp, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	return &binaryRunner{name: name, op: ops.NewSetOp(n.Kind, n.All, out), left: ch[0], right: ch[1]}, nil
}

// buildSink builds a Sink.
func buildSink(b *builder, n *physical.Sink, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	fail := func(err error) (runner, error) { return nil, fmt.Errorf("%s: %w", name, err) }
	unary := func(op vectorized.Operator) (runner, error) {
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	if b.env.Connectors == nil {
		return fail(fmt.Errorf("internal: no connector registry"))
	}
	f, err := b.env.Connectors.Lookup(n.Table)
	if err != nil {
		return nil, err
	}
	s, err := f.CreateSink(b.conn(), connectors.SinkSpec{Table: n.Table, Overwrite: n.Overwrite})
	if err != nil {
		return nil, err
	}
	if enf := b.notNullEnforcer(n); enf != nil {
		return &unaryRunner{name: name, op: ops.NewSink(s), child: &unaryRunner{name: name, op: enf, child: ch[0]}}, nil
	}
	return unary(ops.NewSink(s))
}
