package build

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
)

// Watermark push-down into sources that generate watermarks per split
// (connectors.WatermarkPushDownSource: kafka's partitions), as Flink
// pushes a WatermarkAssigner into such a scan. The assigner must read
// the scan directly or through a Calc without a condition (a computed
// rowtime column): the expression is then rewritten over the Calc's
// projections and evaluated on the scan's rows. The assigner's operator
// becomes passWatermarks, which forwards the source's watermarks and
// keeps them monotonic across a restore.

// pushWatermark hands n's expression to the source below it and returns
// the operator that replaces the assigner; nil when the source cannot
// take it.
func (b *builder) pushWatermark(n *physical.WatermarkAssigner, child runner) (vectorized.Operator, error) {
	e, in := n.Expr, n.Input
	if ur, ok := child.(*unaryRunner); ok && ur.sink == nil {
		calc, ok := in.(*physical.Calc)
		if !ok || calc.Condition != nil {
			return nil, nil
		}
		if _, ok := calc.Input.(*physical.TableSourceScan); !ok {
			return nil, nil
		}
		e = logical.Rewrite(e, func(x logical.Expr) logical.Expr {
			if c, ok := x.(*logical.ColumnRef); ok && c.Index >= 0 && c.Index < len(calc.Projection) {
				return calc.Projection[c.Index]
			}
			return x
		})
		in, child = calc.Input, ur.child
	}
	sr, ok := child.(*sourceRunner)
	if !ok {
		return nil, nil
	}
	if _, ok := in.(*physical.TableSourceScan); !ok {
		return nil, nil
	}
	src, ok := sr.src.(connectors.WatermarkPushDownSource)
	if !ok {
		return nil, nil
	}
	ev, err := b.compile(e, in.Schema())
	if err != nil {
		return nil, err
	}
	if err := src.PushWatermark(ev.Eval, b.env.SourceIdleTimeout); err != nil {
		return nil, err
	}
	return &passWatermarks{wm: math.MinInt64}, nil
}

// passWatermarks is the WatermarkAssigner over a source that generates
// the watermarks: it forwards them when they advance and, at the end of
// the input, the final one. Its state is the assigner's (part
// "watermark", column "wm").
type passWatermarks struct {
	wm int64
}

var _ vectorized.Stateful = (*passWatermarks)(nil)

func (p *passWatermarks) Open(context.Context) error { return nil }

func (p *passWatermarks) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	return out.Emit(ctx, b)
}

func (p *passWatermarks) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	switch m.Kind {
	case vectorized.Watermark:
		if m.Watermark <= p.wm {
			return nil
		}
		p.wm = m.Watermark
	case vectorized.EndOfInput:
		if p.wm < math.MaxInt64 {
			p.wm = math.MaxInt64
			if err := out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: math.MaxInt64}); err != nil {
				return err
			}
		}
	}
	return out.EmitMarker(ctx, m)
}

func (p *passWatermarks) Close() error { return nil }

var wmStateSchema = arrow.NewSchema([]arrow.Field{{Name: "wm", Type: arrow.PrimitiveTypes.Int64}}, nil)

// SnapshotState implements vectorized.Stateful.
func (p *passWatermarks) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	bld := array.NewInt64Builder(vectorized.Mem)
	defer bld.Release()
	bld.Append(p.wm)
	col := bld.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(wmStateSchema, []arrow.Array{col}, 1)
	defer rec.Release()
	if err := w.Write("watermark", rec); err != nil {
		return fmt.Errorf("snapshot watermark: %w", err)
	}
	return nil
}

// RestoreState implements vectorized.Stateful: the minimum of the
// restored instances' watermarks.
func (p *passWatermarks) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	lo, found := int64(math.MaxInt64), false
	err := r.Read("watermark", func(rec arrow.RecordBatch) error {
		a, ok := rec.Column(0).(*array.Int64)
		if rec.NumCols() != 1 || !ok {
			return fmt.Errorf("restoring watermark: unexpected state schema %s", rec.Schema())
		}
		for i := 0; i < a.Len(); i++ {
			lo, found = min(lo, a.Value(i)), true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if found {
		p.wm = lo
	}
	return nil
}
