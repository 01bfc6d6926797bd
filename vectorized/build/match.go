package build

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() { register(buildMatch) }

// buildMatch builds a Match (MATCH_RECOGNIZE).
func buildMatch(b *builder, x *physical.Match, ch []runner, out *arrow.Schema) (runner, error) {
	var err error
	elems := x.Elems
	if elems == nil {
		if elems, err = physical.CompileMatchPattern(x.Spec); err != nil {
			return nil, err
		}
	}
	m := x.Spec
	spec := ops.MatchSpec{In: x.Input.Schema(), Out: x.Out, Arrow: out, Partition: m.PartitionKeys, Order: m.OrderKeys,
		Rowtime: x.Streaming && x.Rowtime, Batch: !x.Streaming, Accesses: m.Accesses, Measures: m.Measures,
		SkipVar: m.AfterVar, Funcs: b.env.Functions, Eval: b.env.Eval}
	if m.HasWithin {
		spec.Within = m.Within
	}
	switch m.After {
	case "SKIP PAST LAST ROW":
		spec.Skip = ops.SkipPastLastRow
	case "SKIP TO FIRST":
		spec.Skip = ops.SkipToFirst
	case "SKIP TO LAST":
		spec.Skip = ops.SkipToLast
	}
	conds := map[string]int{}
	for i, d := range m.Defines {
		conds[d.Var] = i
	}
	for _, e := range elems {
		el := ops.MatchElem{Var: e.Var, Min: e.Min, Max: e.Max, Greedy: e.Greedy}
		if i, ok := conds[e.Var]; ok {
			el.Cond = m.Defines[i].Cond
		}
		spec.Elems = append(spec.Elems, el)
	}
	op, err := ops.NewMatch(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.Name(), err)
	}
	return &unaryRunner{name: x.Name(), op: op, child: ch[0]}, nil
}
