package physical

import (
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Streaming physical nodes. A streaming plan reuses the batch nodes whose
// behaviour does not change with the mode (TableSourceScan, Values, Calc —
// a Calc passes row kinds through — and Limit over an insert-only input)
// and adds the nodes below. Every node's Mode is its output changelog mode,
// inferred from its inputs as Flink's FlinkChangelogModeInferenceProgram
// does.

// GroupAggregate is the streaming GROUP BY (Flink's StreamPhysicalGroupAggregate,
// without mini-batch): it emits the change of a group's result for every
// input record. The output is the group columns followed by the
// aggregates. Its mode is I,UB,UA for an insert-only input and
// I,UB,UA,D for an updating one.
type GroupAggregate struct {
	Input     Node
	GroupKeys []int
	Aggs      []logical.AggCall
	Out       types.Schema
	// MiniBatchSize > 0 makes it a mini-batch aggregate (see
	// stream_minibatch.go): it buffers bundles of up to this many rows and
	// emits one net change per group and bundle.
	MiniBatchSize int64
	// Split marks a level of a split DISTINCT aggregate
	// (stream_distinct_split.go); nil for others.
	Split *SplitInfo
}

// NeedRetraction reports whether the input may retract rows, so that the
// aggregates must accept retractions (Flink's *_RETRACT functions).
func (n *GroupAggregate) NeedRetraction() bool {
	return !n.Input.Mode().IsInsertOnly()
}

// Exchange redistributes rows between parallel instances: by the hash of
// Keys, or to a single instance when Keys is nil. Rows and kinds pass
// unchanged.
type Exchange struct {
	Input Node
	Keys  []int // nil: single
}

// StreamUnion is UNION ALL in streaming: the changelogs of the inputs
// interleaved. Flink prints it as "Union".
type StreamUnion struct {
	Inputs []Node
	Out    types.Schema
}

// StreamSink writes a changelog into a table. Flink prints it as "Sink";
// its changelog mode prints as NONE (it has no output).
type StreamSink struct {
	Input     Node
	Table     *catalog.ResolvedTable
	Overwrite bool
}

// Schema implements Node.
func (n *GroupAggregate) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Exchange) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *StreamUnion) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *StreamSink) Schema() types.Schema { return n.Input.Schema() }

// Children implements Node.
func (n *GroupAggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Exchange) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *StreamUnion) Children() []Node { return n.Inputs }

// Children implements Node.
func (n *StreamSink) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *GroupAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Exchange) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *StreamUnion) WithChildren(ch []Node) Node {
	c := *n
	c.Inputs = append([]Node(nil), ch...)
	return &c
}

// WithChildren implements Node.
func (n *StreamSink) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *GroupAggregate) Name() string { return "GroupAggregate" }

// Name implements Node.
func (n *Exchange) Name() string { return "Exchange" }

// Name implements Node.
func (n *StreamUnion) Name() string { return "Union" }

// Name implements Node.
func (n *StreamSink) Name() string { return "Sink" }

// Mode implements Node.
func (n *GroupAggregate) Mode() changelog.Mode {
	m := changelog.ModeInsert | changelog.ModeUpdateBefore | changelog.ModeUpdateAfter
	if !n.Input.Mode().IsInsertOnly() {
		m |= changelog.ModeDelete
	}
	return m
}

// Mode implements Node.
func (n *Exchange) Mode() changelog.Mode { return n.Input.Mode() }

// Mode implements Node.
func (n *StreamUnion) Mode() changelog.Mode {
	var m changelog.Mode
	for _, in := range n.Inputs {
		m |= in.Mode()
	}
	if m == 0 {
		m = changelog.InsertOnly
	}
	return m
}

// Mode implements Node: a sink has no output (EXPLAIN prints NONE).
func (n *StreamSink) Mode() changelog.Mode { return 0 }

var (
	_ Node = (*GroupAggregate)(nil)
	_ Node = (*Exchange)(nil)
	_ Node = (*StreamUnion)(nil)
	_ Node = (*StreamSink)(nil)
)

// StreamJoin is the streaming regular join (Flink's StreamPhysicalJoin,
// printed "Join"): both inputs keep state, and every input row emits its
// joined changes. Extra is the non-equality condition over left ++ right
// (nil: none); no keys means every row shares one key. Its mode is the
// union of the inputs' modes for an inner or semi join and any change for
// an outer or anti join.
type StreamJoin struct {
	Left, Right         Node
	Kind                logical.JoinKind
	LeftKeys, RightKeys []int
	// NullSafe marks keys compared IS NOT DISTINCT FROM (NULL matches
	// NULL), as INTERSECT and EXCEPT join (stream_setop.go); nil: none.
	NullSafe []bool
	Extra    logical.Expr
	Out      types.Schema
}

// Schema implements Node.
func (n *StreamJoin) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *StreamJoin) Children() []Node { return []Node{n.Left, n.Right} }

// WithChildren implements Node.
func (n *StreamJoin) WithChildren(ch []Node) Node {
	c := *n
	c.Left, c.Right = ch[0], ch[1]
	return &c
}

// Name implements Node.
func (n *StreamJoin) Name() string { return "Join" }

// Mode implements Node.
func (n *StreamJoin) Mode() changelog.Mode {
	if n.Kind == logical.InnerJoin || n.Kind == logical.SemiJoin {
		return n.Left.Mode() | n.Right.Mode()
	}
	return changelog.All
}

var _ Node = (*StreamJoin)(nil)

// Explain implements Node.
func (x *GroupAggregate) Explain(execution bool) string {
	if x.Split != nil {
		return x.explainSplit(execution) // stream_distinct_split.go
	}
	in := uniquify(x.Input.Schema().Names())
	var sel []string
	keys := make([]string, len(x.GroupKeys))
	for i, k := range x.GroupKeys {
		keys[i] = colName(in, k)
		item := keys[i]
		if i < len(x.Out) && x.Out[i].Name != keys[i] {
			item += " AS " + x.Out[i].Name
		}
		sel = append(sel, item)
	}
	retract := x.NeedRetraction()
	for _, a := range x.Aggs {
		item := AggString(a, in)
		if retract {
			// Flink's retracting aggregate functions: COUNT_RETRACT(*)…
			item = strings.ToUpper(a.Name) + "_RETRACT" + item[len(a.Name):]
		}
		sel = append(sel, item+" AS "+a.Alias)
	}
	s := ""
	if len(keys) > 0 {
		s = "groupBy=[" + strings.Join(keys, ", ") + "], "
	}
	return s + "select=[" + strings.Join(sel, ", ") + "]"
}

// Explain implements Node.
func (x *Exchange) Explain(execution bool) string {
	if len(x.Keys) == 0 {
		return "distribution=[single]"
	}
	in := uniquify(x.Input.Schema().Names())
	keys := make([]string, len(x.Keys))
	for i, k := range x.Keys {
		keys[i] = colName(in, k)
	}
	return "distribution=[hash[" + strings.Join(keys, ", ") + "]]"
}

// Explain implements Node.
func (x *StreamUnion) Explain(execution bool) string {
	return "all=[true], union=[" + strings.Join(x.Out.Names(), ", ") + "]"
}

// Explain implements Node.
func (x *StreamJoin) Explain(execution bool) string {
	left, right := x.Left, x.Right
	if e, ok := left.(*Exchange); ok {
		left = e.Input
	}
	if e, ok := right.(*Exchange); ok {
		right = e.Input
	}
	hj := &HashJoin{Left: left, Right: right, Kind: x.Kind, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys, Extra: x.Extra, Out: x.Out}
	if len(x.NullSafe) > 0 {
		return nullSafeJoinDescribe(x, left, right, execution) // stream_setop.go
	}
	s := strings.TrimSuffix(hj.Explain(execution), ", build=[right]")
	return s + ", leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey]"
}

// Explain implements Node.
func (x *StreamSink) Explain(execution bool) string {
	return "table=[" + x.Table.ID.Summary() + "], fields=[" + strings.Join(x.Input.Schema().Names(), ", ") + "]"
}

// Capabilities (node.go).

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *Exchange) Stateless() bool { return true }

// StreamOnly implements StreamOnly.
func (n *Exchange) StreamOnly() bool { return true }

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *StreamUnion) Stateless() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *StreamUnion) ParallelSafe() bool { return true }

// StreamOnly implements StreamOnly.
func (n *StreamUnion) StreamOnly() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *StreamSink) ParallelSafe() bool { return true }

// StreamOnly implements StreamOnly.
func (n *StreamSink) StreamOnly() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *GroupAggregate) ParallelSafe() bool { return true }

// StreamOnly implements StreamOnly.
func (n *GroupAggregate) StreamOnly() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *StreamJoin) ParallelSafe() bool { return true }

// StreamOnly implements StreamOnly.
func (n *StreamJoin) StreamOnly() bool { return true }
