package ops

import (
	"context"
	"fmt"

	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// NestedLoopJoin joins without equality keys: the build (right) side is
// materialised, and every probe (left) row is paired with every build row
// and checked against the condition (none: a cross join).
type NestedLoopJoin struct {
	core joinCore
}

var _ BinaryOperator = (*NestedLoopJoin)(nil)

// NewNestedLoopJoin returns a nested-loop join; spec's key lists are
// ignored.
func NewNestedLoopJoin(spec JoinSpec) *NestedLoopJoin {
	return &NestedLoopJoin{core: joinCore{spec: spec}}
}

// Open implements BinaryOperator.
func (j *NestedLoopJoin) Open(context.Context) error {
	if j.core.spec.NullAwareAnti {
		return fmt.Errorf("not supported yet: null-aware anti join (NOT IN) without an equality key")
	}
	return j.core.init(j.core.spec)
}

// ProcessBuild implements BinaryOperator.
func (j *NestedLoopJoin) ProcessBuild(_ context.Context, b vectorized.Batch) error {
	return j.core.addBuild(b)
}

// FinishBuild implements BinaryOperator.
func (j *NestedLoopJoin) FinishBuild(context.Context) error { return j.core.finishBuild() }

// Process implements BinaryOperator.
func (j *NestedLoopJoin) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	c := &j.core
	if err := c.startProbe(b.Rec); err != nil {
		return err
	}
	nb := c.buildRows()
	if c.spec.Cond == nil && (c.spec.Kind == logical.SemiJoin || c.spec.Kind == logical.AntiJoin) {
		for i := range c.probeMatched {
			c.probeMatched[i] = nb > 0
		}
		return c.finishProbe(ctx, out)
	}
	for i := 0; i < n; i++ {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for r := 0; r < nb; r++ {
			if err := c.addPair(ctx, int32(i), int32(r), out); err != nil {
				return err
			}
		}
	}
	return c.finishProbe(ctx, out)
}

// OnMarker implements BinaryOperator.
func (j *NestedLoopJoin) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if m.Kind == vectorized.EndOfInput {
		if err := j.core.finish(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements BinaryOperator.
func (j *NestedLoopJoin) Close() error {
	j.core.close()
	return nil
}
