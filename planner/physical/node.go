// Package physical holds the executable plan: Flink-named physical nodes,
// each with its changelog mode. The planner translates an optimized logical
// plan into it; vectorized/build turns it into operators. Nodes are
// immutable data with no execution logic.
package physical

import (
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Node is a physical plan node.
type Node interface {
	Schema() types.Schema
	Children() []Node
	WithChildren(ch []Node) Node
	// Name is the Flink node name printed by EXPLAIN, e.g. "Calc",
	// "HashAggregate", "TableSourceScan".
	Name() string
	// Mode is the changelog mode of the node's output.
	Mode() changelog.Mode
}

// TableSourceScan reads a table through its connector.
type TableSourceScan struct {
	Table      *catalog.ResolvedTable
	Projection []int // physical column indexes; nil = all
	// Filters are the predicates the source accepted, over Out
	// (logical.Scan.Filters); Limit the rows it may stop after (0: none).
	Filters []logical.Expr
	Limit   int64
	Out     types.Schema
}

// Values emits constant rows (canonical Go values, see core/types).
type Values struct {
	Rows [][]any
	Out  types.Schema
}

// Calc is a fused filter and projection: rows where Condition is TRUE (nil
// keeps all) are projected through Projection.
type Calc struct {
	Input      Node
	Projection []logical.Expr
	Condition  logical.Expr
	Out        types.Schema
}

// HashAggregate groups with a hash table (batch mode). The output is the
// group columns followed by the aggregates.
type HashAggregate struct {
	Input     Node
	GroupKeys []int
	Aggs      []logical.AggCall
	Out       types.Schema
}

// HashJoin joins on equality keys with a hash table on the right (build)
// side. Extra is a non-equi condition over left ++ right columns (nil if
// none). Keys compare with '=' semantics: NULL never matches.
type HashJoin struct {
	Left, Right         Node
	Kind                logical.JoinKind
	LeftKeys, RightKeys []int
	Extra               logical.Expr
	NullAwareAnti       bool
	// Temporal: a temporal table join (see logical.Join); the streaming
	// translation makes it a LookupJoin or, as of event time, a
	// TemporalJoin.
	Temporal bool
	Out      types.Schema
}

// NestedLoopJoin joins without equality keys; Cond over left ++ right (nil:
// cross join).
type NestedLoopJoin struct {
	Left, Right   Node
	Kind          logical.JoinKind
	Cond          logical.Expr
	NullAwareAnti bool
	// Temporal: as HashJoin.Temporal.
	Temporal bool
	Out      types.Schema
}

// Sort orders all rows.
type Sort struct {
	Input Node
	Keys  []logical.SortKey
}

// SortLimit is ORDER BY with LIMIT/OFFSET: keeps only Offset+Fetch rows.
type SortLimit struct {
	Input  Node
	Keys   []logical.SortKey
	Offset int64
	Fetch  int64
}

// Limit skips Offset rows and passes at most Fetch (Fetch < 0: all).
type Limit struct {
	Input  Node
	Offset int64
	Fetch  int64
}

// Union concatenates its inputs (UNION ALL).
type Union struct {
	Inputs []Node
	Out    types.Schema
}

// SetOp is INTERSECT [ALL] / EXCEPT [ALL] by hashing whole rows.
type SetOp struct {
	Left, Right Node
	Kind        logical.SetOpKind
	All         bool
}

// Sink writes to a table's connector and outputs nothing.
type Sink struct {
	Input     Node
	Table     *catalog.ResolvedTable
	Overwrite bool
}

// Schema implementations.

// Schema implements Node.
func (n *TableSourceScan) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Values) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Calc) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *HashAggregate) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *HashJoin) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *NestedLoopJoin) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Sort) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *SortLimit) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *Limit) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *Union) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *SetOp) Schema() types.Schema { return n.Left.Schema() }

// Schema implements Node.
func (n *Sink) Schema() types.Schema { return n.Input.Schema() }

// Children implementations.

// Children implements Node.
func (n *TableSourceScan) Children() []Node { return nil }

// Children implements Node.
func (n *Values) Children() []Node { return nil }

// Children implements Node.
func (n *Calc) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *HashAggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *HashJoin) Children() []Node { return []Node{n.Left, n.Right} }

// Children implements Node.
func (n *NestedLoopJoin) Children() []Node { return []Node{n.Left, n.Right} }

// Children implements Node.
func (n *Sort) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *SortLimit) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Limit) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Union) Children() []Node { return n.Inputs }

// Children implements Node.
func (n *SetOp) Children() []Node { return []Node{n.Left, n.Right} }

// Children implements Node.
func (n *Sink) Children() []Node { return []Node{n.Input} }

// WithChildren implementations.

// WithChildren implements Node.
func (n *TableSourceScan) WithChildren([]Node) Node { return n }

// WithChildren implements Node.
func (n *Values) WithChildren([]Node) Node { return n }

// WithChildren implements Node.
func (n *Calc) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *HashAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *HashJoin) WithChildren(ch []Node) Node { c := *n; c.Left, c.Right = ch[0], ch[1]; return &c }

// WithChildren implements Node.
func (n *NestedLoopJoin) WithChildren(ch []Node) Node {
	c := *n
	c.Left, c.Right = ch[0], ch[1]
	return &c
}

// WithChildren implements Node.
func (n *Sort) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *SortLimit) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Limit) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Union) WithChildren(ch []Node) Node {
	c := *n
	c.Inputs = append([]Node(nil), ch...)
	return &c
}

// WithChildren implements Node.
func (n *SetOp) WithChildren(ch []Node) Node { c := *n; c.Left, c.Right = ch[0], ch[1]; return &c }

// WithChildren implements Node.
func (n *Sink) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Names, as Flink prints them.

// Name implements Node.
func (n *TableSourceScan) Name() string { return "TableSourceScan" }

// Name implements Node.
func (n *Values) Name() string { return "Values" }

// Name implements Node.
func (n *Calc) Name() string { return "Calc" }

// Name implements Node.
func (n *HashAggregate) Name() string { return "HashAggregate" }

// Name implements Node.
func (n *HashJoin) Name() string { return "HashJoin" }

// Name implements Node.
func (n *NestedLoopJoin) Name() string { return "NestedLoopJoin" }

// Name implements Node.
func (n *Sort) Name() string { return "Sort" }

// Name implements Node.
func (n *SortLimit) Name() string { return "SortLimit" }

// Name implements Node.
func (n *Limit) Name() string { return "Limit" }

// Name implements Node.
func (n *Union) Name() string { return "Union" }

// Name implements Node.
func (n *SetOp) Name() string {
	if n.Kind == logical.Except {
		return "HashMinus"
	}
	return "HashIntersect"
}

// Name implements Node.
func (n *Sink) Name() string { return "Sink" }

// Modes: batch plans are insert-only.

// Mode implements Node.
func (n *TableSourceScan) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *Values) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *Calc) Mode() changelog.Mode { return n.Input.Mode() }

// Mode implements Node.
func (n *HashAggregate) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *HashJoin) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *NestedLoopJoin) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *Sort) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *SortLimit) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *Limit) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *Union) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *SetOp) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node.
func (n *Sink) Mode() changelog.Mode { return changelog.InsertOnly }

var (
	_ Node = (*TableSourceScan)(nil)
	_ Node = (*Values)(nil)
	_ Node = (*Calc)(nil)
	_ Node = (*HashAggregate)(nil)
	_ Node = (*HashJoin)(nil)
	_ Node = (*NestedLoopJoin)(nil)
	_ Node = (*Sort)(nil)
	_ Node = (*SortLimit)(nil)
	_ Node = (*Limit)(nil)
	_ Node = (*Union)(nil)
	_ Node = (*SetOp)(nil)
	_ Node = (*Sink)(nil)
)
