package build

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() {
	register(buildWatermarkCalc)
	register(buildWatermarkAssigner)
	register(buildWindowTableFunction)
	register(buildWindowAggregate)
}

// buildWatermarkCalc builds a WatermarkCalc.
func buildWatermarkCalc(b *builder, n *physical.WatermarkCalc, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	op, err := b.watermarkCalc(n, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildWatermarkAssigner builds a WatermarkAssigner.
func buildWatermarkAssigner(b *builder, n *physical.WatermarkAssigner, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	pushed, err := b.pushWatermark(n, ch[0]) // watermark_pushdown.go
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if pushed != nil {
		return &unaryRunner{name: name, op: pushed, child: ch[0]}, nil
	}
	ev, err := b.compile(n.Expr, n.Input.Schema())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &unaryRunner{name: name, op: ops.NewWatermarkAssigner(ev), child: ch[0]}, nil
}

// buildWindowTableFunction builds a WindowTableFunction.
func buildWindowTableFunction(b *builder, n *physical.WindowTableFunction, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	if n.Window.Kind == logical.Session {
		op, err := ops.NewSessionWindowTableFunction(n.Window, n.Input.Schema(), out)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		op.SetTimeZone(b.loc())
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	op := ops.NewWindowTableFunction(n.Window, out)
	op.SetTimeZone(b.loc())
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildWindowAggregate builds a WindowAggregate.
func buildWindowAggregate(b *builder, n *physical.WindowAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	if n.Window.Kind == logical.Session {
		op, err := ops.NewSessionWindowAggregate(n.GroupKeys, n.Aggs, n.Window, n.Input.Schema(), out)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		op.SetTimeZone(b.loc())
		op.SetFunctions(b.env.Eval) // script aggregates
		return &unaryRunner{name: name, op: op, child: ch[0]}, nil
	}
	op, err := ops.NewWindowAggregate(n.GroupKeys, n.Aggs, n.Window, n.Input.Schema(), out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	op.SetTimeZone(b.loc())
	op.SetFunctions(b.env.Eval) // script aggregates
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// loc returns the session time zone (table.local-time-zone), or nil.
func (b *builder) loc() *time.Location {
	if b.env == nil || b.env.Eval == nil {
		return nil
	}
	return b.env.Eval.Loc
}

// watermarkCalc builds a Calc that calls CURRENT_WATERMARK: the calls
// read an extra last input column the operator fills with the current
// watermark.
func (b *builder) watermarkCalc(n *physical.WatermarkCalc, out *arrow.Schema) (vectorized.Operator, error) {
	in := n.Input.Schema()
	wmIdx := len(in)
	var wmType types.Type
	repl := func(e logical.Expr) logical.Expr {
		if e == nil {
			return nil
		}
		return logical.Rewrite(e, func(x logical.Expr) logical.Expr {
			if c, ok := x.(*logical.Call); ok && c.Name == "CURRENT_WATERMARK" {
				wmType = c.T
				return &logical.ColumnRef{Index: wmIdx, Name: "$watermark", T: c.T}
			}
			return x
		})
	}
	cond := repl(n.Condition)
	proj := make([]logical.Expr, len(n.Projection))
	for i, e := range n.Projection {
		proj[i] = repl(e)
	}
	if wmType.Kind == 0 {
		return nil, fmt.Errorf("internal: no CURRENT_WATERMARK call")
	}
	ext := append(append(types.Schema{}, in...), types.Field{Name: "$watermark", Type: wmType})
	extArrow, err := types.ArrowSchema(ext)
	if err != nil {
		return nil, err
	}
	dt, ok := extArrow.Field(wmIdx).Type.(*arrow.TimestampType)
	if !ok {
		return nil, fmt.Errorf("internal: CURRENT_WATERMARK of type %s", wmType)
	}
	var sel ops.Selector
	if cond != nil {
		if sel, err = b.compileFilter(cond, ext); err != nil {
			return nil, err
		}
	}
	projs := make([]ops.Projection, len(proj))
	for i, e := range proj {
		if c, ok := e.(*logical.ColumnRef); ok && c.Index >= 0 && c.Index < len(ext) {
			projs[i] = ops.Projection{Column: c.Index}
			continue
		}
		ev, err := b.compile(e, ext)
		if err != nil {
			return nil, err
		}
		projs[i] = ops.Projection{Eval: ev}
	}
	return ops.NewWatermarkCalc(ops.NewCalc(sel, projs, out), extArrow, dt), nil
}
