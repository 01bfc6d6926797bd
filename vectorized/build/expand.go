package build

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() { register(buildExpand) }

// buildExpand builds an Expand (the split of DISTINCT aggregates,
// planner/physical/stream_distinct_split.go).
func buildExpand(b *builder, x *physical.Expand, ch []runner, out *arrow.Schema) (runner, error) {
	in := x.Input.Schema()
	op := &expandOp{}
	for _, p := range x.Projects {
		projs := make([]ops.Projection, len(p))
		for i, e := range p {
			if c, ok := e.(*logical.ColumnRef); ok && c.Index >= 0 && c.Index < len(in) {
				projs[i] = ops.Projection{Column: c.Index}
				continue
			}
			ev, err := b.compile(e, in)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", x.Name(), err)
			}
			projs[i] = ops.Projection{Eval: ev}
		}
		op.copies = append(op.copies, ops.NewCalc(nil, projs, out))
	}
	return &unaryRunner{name: x.Name(), op: op, child: ch[0]}, nil
}

// expandOp emits every batch once per projection list, in order; markers
// pass once.
type expandOp struct {
	copies []*ops.Calc
}

// Open implements vectorized.Operator.
func (e *expandOp) Open(ctx context.Context) error {
	for _, c := range e.copies {
		if err := c.Open(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Process implements vectorized.Operator.
func (e *expandOp) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	for _, c := range e.copies {
		if err := c.Process(ctx, b, out); err != nil {
			return err
		}
	}
	return nil
}

// OnMarker implements vectorized.Operator.
func (e *expandOp) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (e *expandOp) Close() error {
	var first error
	for _, c := range e.copies {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
