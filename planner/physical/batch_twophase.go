package physical

import (
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Two-phase aggregation in batch mode (Flink's
// BatchPhysicalLocalHashAggregate and BatchPhysicalHashAggregate with
// isMerge=[true]).

// LocalHashAggregate is the local half of a two-phase batch aggregation:
// it pre-aggregates its input into partial accumulator state per group
// and emits one row per group (the group columns, then the state columns
// of every call), as LocalGroupAggregate does.
type LocalHashAggregate struct {
	Input     Node
	GroupKeys []int
	Aggs      []logical.AggCall
	Out       types.Schema
}

// MergeHashAggregate is the global half of a two-phase batch aggregation
// (Flink's HashAggregate with isMerge=[true]): it merges the partial
// states of its input (a LocalHashAggregate's rows after an Exchange) per
// group and emits the results. Fields as GlobalGroupAggregate's.
type MergeHashAggregate struct {
	Input     Node
	GroupKeys []int
	Aggs      []logical.AggCall
	StateCols [][]int
	LocalIn   types.Schema
	Out       types.Schema
}

// Schema implements Node.
func (n *LocalHashAggregate) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *MergeHashAggregate) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *LocalHashAggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *MergeHashAggregate) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *LocalHashAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *MergeHashAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *LocalHashAggregate) Name() string { return "LocalHashAggregate" }

// Name implements Node: Flink prints the merging aggregate as
// HashAggregate(isMerge=[true], …).
func (n *MergeHashAggregate) Name() string { return "HashAggregate" }

// Mode implements Node.
func (n *LocalHashAggregate) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *MergeHashAggregate) Mode() changelog.Mode { return changelog.InsertOnly }

var (
	_ Node = (*LocalHashAggregate)(nil)
	_ Node = (*MergeHashAggregate)(nil)
)

// ApplyBatchAggPhase splits the grouped HashAggregates of a batch plan
// into LocalHashAggregate → Exchange → HashAggregate(isMerge=[true]) when
// phase (table.optimizer.agg-phase-strategy) is TWO_PHASE and every call
// can split (COUNT, SUM, AVG, MIN, MAX, user-defined with merge; not
// DISTINCT). AUTO and ONE_PHASE
// keep one phase (Flink's AUTO decides by cost; tablerun has no cost model
// for it), and so do aggregates without GROUP BY (their empty-input row).
func ApplyBatchAggPhase(n Node, phase string) Node {
	if !strings.EqualFold(phase, "TWO_PHASE") {
		return n
	}
	return batchSplit(n)
}

func batchSplit(n Node) Node {
	ch := n.Children()
	if len(ch) == 0 {
		return n
	}
	conv := make([]Node, len(ch))
	for i, c := range ch {
		conv[i] = batchSplit(c)
	}
	n = n.WithChildren(conv)
	h, ok := n.(*HashAggregate)
	if !ok || len(h.GroupKeys) == 0 {
		return n
	}
	for _, a := range h.Aggs {
		if a.Distinct {
			// Flink expands batch DISTINCT aggregates instead
			// (AggregateExpandDistinctAggregatesRule): one phase here
			return n
		}
	}
	g := &GroupAggregate{Input: h.Input, GroupKeys: h.GroupKeys, Aggs: h.Aggs, Out: h.Out}
	local, global, ok := SplitGroupAggregate(g, h.Input)
	if !ok {
		return n
	}
	ex := global.Input.(*Exchange)
	ex.Input = &LocalHashAggregate{Input: local.Input, GroupKeys: local.GroupKeys, Aggs: local.Aggs, Out: local.Out}
	return &MergeHashAggregate{Input: ex, GroupKeys: global.GroupKeys, Aggs: global.Aggs, StateCols: global.StateCols,
		LocalIn: global.LocalIn, Out: global.Out}
}

// Explain implements Node.
func (x *LocalHashAggregate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	sel, keys := groupItems(in, x.GroupKeys, x.Out)
	col := len(x.GroupKeys)
	for _, a := range x.Aggs {
		names := x.Out[col : col+len(stateKinds(a))].Names()
		col += len(names)
		target := names[0]
		if len(names) > 1 {
			target = "(" + strings.Join(names, ", ") + ")"
		}
		sel = append(sel, "Partial_"+AggString(a, in)+" AS "+target)
	}
	return aggAttrs(keys, sel)
}

// Explain implements Node.
func (x *MergeHashAggregate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	sel, keys := groupItems(in, x.GroupKeys, x.Out)
	for i, a := range x.Aggs {
		names := make([]string, len(x.StateCols[i]))
		for j, c := range x.StateCols[i] {
			names[j] = colName(in, c)
		}
		sel = append(sel, "Final_"+strings.ToUpper(a.Name)+"("+strings.Join(names, ", ")+") AS "+a.Alias)
	}
	return "isMerge=[true], " + aggAttrs(keys, sel)
}
