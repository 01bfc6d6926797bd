package build

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() {
	register((*builder).buildWindowJoin)
	register(buildTemporalJoin)
	register(buildIntervalJoin)
	register(buildLookupJoin)
}

// buildTemporalJoin builds a TemporalJoin.
func buildTemporalJoin(b *builder, n *physical.TemporalJoin, ch []runner, out *arrow.Schema) (runner, error) {
	var err error
	name := n.Name()
	spec := ops.TemporalJoinSpec{Kind: n.Kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys,
		Left: n.Left.Schema(), Right: n.Right.Schema(), Out: n.Out, LeftTime: n.LeftTimeIndex, RightTime: n.RightTimeIndex}
	if n.Extra != nil {
		both := append(append(types.Schema{}, n.Left.Schema()...), n.Right.Schema()...)
		if spec.Cond, err = b.compileFilter(n.Extra, both); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return &multiRunner{name: name, op: ops.NewTemporalJoin(spec), children: ch}, nil
}

// buildIntervalJoin builds a IntervalJoin.
func buildIntervalJoin(b *builder, n *physical.IntervalJoin, ch []runner, out *arrow.Schema) (runner, error) {
	var err error
	name := n.Name()
	spec := ops.IntervalJoinSpec{Kind: n.Kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys,
		Left: n.Left.Schema(), Right: n.Right.Schema(), Out: n.Out, RowTime: n.IsRowTime,
		LowerBound: n.LeftLowerBound, UpperBound: n.LeftUpperBound,
		LeftTime: n.LeftTimeIndex, RightTime: n.RightTimeIndex}
	if n.Cond != nil {
		both := append(append(types.Schema{}, n.Left.Schema()...), n.Right.Schema()...)
		if spec.Cond, err = b.compileFilter(n.Cond, both); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return &multiRunner{name: name, op: ops.NewIntervalJoin(spec), children: ch}, nil
}

// buildLookupJoin builds a LookupJoin.
func buildLookupJoin(b *builder, n *physical.LookupJoin, ch []runner, out *arrow.Schema) (runner, error) {
	var err error
	name := n.Name()
	spec := ops.LookupJoinSpec{Kind: n.Kind, InputKeys: n.InputKeys, TemporalKeys: n.TemporalKeys,
		Input: n.Input.Schema(), Temporal: n.Temporal.Schema(), Out: n.Out}
	if n.Extra != nil {
		both := append(append(types.Schema{}, n.Input.Schema()...), n.Temporal.Schema()...)
		if spec.Cond, err = b.compileFilter(n.Extra, both); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if r, ok, err := b.buildLookupFunction(n, spec, ch[0]); ok { // lookup.go
		return r, err
	}
	// The temporal table is no child of the plan node (Flink's
	// plans show the lookup join over its input only): build it here.
	// It is read in full again when a job restores: no checkpoint
	// takes part in it (see ops.LookupJoin's state).
	ck := b.ck
	b.ck = nil
	tr, err := b.buildNode(n.Temporal)
	b.ck = ck
	if err != nil {
		return nil, err
	}
	return &multiRunner{name: name, op: ops.NewLookupJoin(spec), children: []runner{ch[0], tr}}, nil
}

// buildWindowJoin builds a WindowJoin.
func (b *builder) buildWindowJoin(n *physical.WindowJoin, ch []runner, out *arrow.Schema) (runner, error) {
	spec, err := b.joinSpec(n.Left, n.Right, n.Kind, n.Extra, false, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.Name(), err)
	}
	spec.LeftKeys, spec.RightKeys = n.LeftKeys, n.RightKeys
	ws := ops.WindowJoinSpec{Join: spec, LeftEnd: n.LeftEnd, RightEnd: n.RightEnd,
		LeftTypes: n.Left.Schema(), RightTypes: n.Right.Schema()}
	for side, in := range []physical.Node{n.Left, n.Right} {
		if ex, ok := in.(*physical.Exchange); ok {
			ws.HashKeys[side] = ex.Keys
		}
	}
	op := ops.NewWindowJoin(ws)
	if n.LocalTime {
		op.SetTimeZone(b.loc())
	}
	return &multiRunner{name: n.Name(), op: op, children: ch}, nil
}
