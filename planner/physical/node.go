// Package physical holds the executable plan: Flink-named physical nodes,
// each with its changelog mode. The planner translates an optimized logical
// plan into it; vectorized/build turns it into operators. Nodes are
// immutable data with no execution logic.
package physical

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
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
	// Explain returns the attributes EXPLAIN prints between the
	// parentheses after Name, as Flink does (e.g. "select=[a, b]");
	// execution selects the "Optimized Execution Plan" flavour.
	Explain(execution bool) string
}

// Capabilities: a node declares what the executor may do with it by
// implementing these optional interfaces in its own file; a node without
// one gets the safe default (keeps state, runs as one instance).

// Stateless is a node whose operator keeps nothing across a checkpoint
// barrier (row-at-a-time nodes, a local pre-aggregation that flushes on
// the barrier, exchanges): checkpoints neither snapshot nor spill it.
type Stateless interface{ Stateless() bool }

// ParallelSafe is a node whose instances may each process a part of its
// input: a row-at-a-time node, or a keyed node whose input the planner
// partitioned by its keys (an Exchange below it).
type ParallelSafe interface{ ParallelSafe() bool }

// StreamOnly is a node that only streaming plans contain.
type StreamOnly interface{ StreamOnly() bool }

// Estimator is a node with its own row estimate for EXPLAIN
// ESTIMATED_COST, given its inputs' estimates (in the order of Children;
// none for a leaf). The default is the first input's rows (0 for a leaf).
type Estimator interface {
	EstimateRows(inputs []float64) float64
}

// Coster is a node with its own cost in Flink's model (cost.go) for the
// rows it outputs; the default is Calcite's: rows CPU, no I/O.
type Coster interface {
	Cost(rows float64) (cpu, io float64)
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
// A scan produces what its connector declared (catalog.Abilities.ScanMode).
func (n *TableSourceScan) Mode() changelog.Mode {
	return catalog.AbilitiesOf(n.Table).ScanChangelogMode()
}

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

// Explain implementations: the attributes EXPLAIN prints between the
// parentheses after the node name.

// Explain implements Node.
func (x *TableSourceScan) Explain(execution bool) string {
	id := x.Table.ID
	s := "table=[[" + id.Catalog + ", " + id.Database + ", " + id.Object
	// The table digest prints pushed filters in Flink's prefix form in
	// both plan flavours.
	filters := make([]string, len(x.Filters))
	for i, f := range x.Filters {
		filters[i] = ExprString(f, x.Out.Names())
	}
	project, metadata := logical.ScanColumns(x.Table, x.Projection, x.Out, true)
	s += logical.ScanDigestMetadata(filters, project, metadata, x.Limit)
	return s + "]], fields=[" + strings.Join(x.Out.Names(), ", ") + "]"
}

// Explain implements Node.
func (x *Values) Explain(execution bool) string {
	rows := make([]string, len(x.Rows))
	for i, r := range x.Rows {
		vals := make([]string, len(r))
		for j, v := range r {
			var t types.Type
			if j < len(x.Out) {
				t = x.Out[j].Type
			}
			vals[j] = logical.FormatLiteral(v, t)
		}
		rows[i] = "{ " + strings.Join(vals, ", ") + " }"
	}
	s := "tuples=[[" + strings.Join(rows, ", ") + "]]"
	if !execution {
		s = "type=[" + recordType(x.Out) + "], " + s
	}
	return s
}

// Explain implements Node.
func (x *Calc) Explain(execution bool) string {
	exprStr := exprStrFor(execution)
	in := uniquify(x.Input.Schema().Names())
	sel := make([]string, len(x.Projection))
	for i, e := range x.Projection {
		sel[i] = exprStr(e, in)
		name := ""
		if i < len(x.Out) {
			name = x.Out[i].Name
		}
		if c, ok := e.(*logical.ColumnRef); !ok || c.Index >= len(in) || in[c.Index] != name {
			sel[i] += " AS " + name
		}
	}
	s := "select=[" + strings.Join(sel, ", ") + "]"
	if x.Condition != nil {
		s += ", where=[" + exprStr(x.Condition, in) + "]"
	}
	return s
}

// Explain implements Node.
func (x *HashAggregate) Explain(execution bool) string {
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
	for _, a := range x.Aggs {
		sel = append(sel, AggString(a, in)+" AS "+a.Alias)
	}
	s := "isMerge=[false], "
	if len(keys) > 0 {
		s += "groupBy=[" + strings.Join(keys, ", ") + "], "
	}
	return s + "select=[" + strings.Join(sel, ", ") + "]"
}

// Explain implements Node.
func (x *HashJoin) Explain(execution bool) string {
	exprStr := exprStrFor(execution)
	names := joinNames(x.Left.Schema(), x.Right.Schema())
	nLeft := len(x.Left.Schema())
	var conds []logical.Expr
	for i := range x.LeftKeys {
		conds = append(conds, logical.NewCall(function.OpEquals, types.BooleanT,
			&logical.ColumnRef{Index: x.LeftKeys[i]}, &logical.ColumnRef{Index: nLeft + x.RightKeys[i]}))
	}
	if x.Extra != nil {
		conds = append(conds, logical.Conjuncts(x.Extra)...)
	}
	var cond logical.Expr = &logical.Literal{Value: true, T: types.BooleanT}
	if len(conds) == 1 {
		cond = conds[0]
	} else if len(conds) > 1 {
		cond = logical.NewCall(function.OpAnd, types.BooleanT, conds...)
	}
	where := exprStr(cond, names)
	return "joinType=[" + x.Kind.String() + "], where=[" + where + "], select=[" + strings.Join(outNames(x.Left, x.Right, x.Kind, names), ", ") + "], build=[right]"
}

// Explain implements Node.
func (x *NestedLoopJoin) Explain(execution bool) string {
	exprStr := exprStrFor(execution)
	names := joinNames(x.Left.Schema(), x.Right.Schema())
	where := "true"
	if x.Cond != nil {
		where = exprStr(x.Cond, names)
	}
	return "joinType=[" + x.Kind.String() + "], where=[" + where + "], select=[" + strings.Join(outNames(x.Left, x.Right, x.Kind, names), ", ") + "], build=[right]"
}

// Explain implements Node.
func (x *Sort) Explain(execution bool) string {
	return "orderBy=[" + orderBy(x.Keys, uniquify(x.Input.Schema().Names())) + "]"
}

// Explain implements Node.
func (x *SortLimit) Explain(execution bool) string {
	return "orderBy=[" + orderBy(x.Keys, uniquify(x.Input.Schema().Names())) + "], offset=[" + strconv.FormatInt(x.Offset, 10) + "], fetch=[" + fetchString(x.Fetch) + "]"
}

// Explain implements Node.
func (x *Limit) Explain(execution bool) string {
	return "offset=[" + strconv.FormatInt(x.Offset, 10) + "], fetch=[" + fetchString(x.Fetch) + "]"
}

// Explain implements Node.
func (x *Union) Explain(execution bool) string {
	return "all=[true], union=[" + strings.Join(x.Out.Names(), ", ") + "]"
}

// Explain implements Node.
func (x *SetOp) Explain(execution bool) string {
	return fmt.Sprintf("all=[%t], select=[%s]", x.All, strings.Join(x.Schema().Names(), ", "))
}

// Explain implements Node.
func (x *Sink) Explain(execution bool) string {
	return "table=[" + x.Table.ID.Summary() + "], fields=[" + strings.Join(x.Input.Schema().Names(), ", ") + "]"
}

// Capabilities (node.go).

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *Calc) Stateless() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *Calc) ParallelSafe() bool { return true }

// Estimates for EXPLAIN ESTIMATED_COST (Estimator, Coster; rough, as
// Flink's: an unknown table has 1.0E8 rows).

// EstimateRows implements Estimator.
func (n *TableSourceScan) EstimateRows([]float64) float64 { return 1e8 }

// Cost implements Coster: a scan costs its rows in CPU and rows × the
// average row size in I/O.
func (n *TableSourceScan) Cost(rows float64) (cpu, io float64) {
	return rows, rows * averageRowSize(n.Out)
}

// EstimateRows implements Estimator.
func (n *Values) EstimateRows([]float64) float64 { return float64(len(n.Rows)) }

// EstimateRows implements Estimator: a quarter of the input passes a
// condition.
func (n *Calc) EstimateRows(in []float64) float64 {
	if n.Condition != nil {
		return in[0] * 0.25
	}
	return in[0]
}

// Cost implements Coster: rows × the number of computed expressions
// (references, literals and CASTs are free).
func (n *Calc) Cost(rows float64) (cpu, io float64) {
	exprs := append([]logical.Expr(nil), n.Projection...)
	if n.Condition != nil {
		exprs = append(exprs, n.Condition)
	}
	return rows * float64(computedExprs(exprs)), 0
}

// EstimateRows implements Estimator: one row without grouping, else a
// tenth of the input.
func (n *HashAggregate) EstimateRows(in []float64) float64 {
	if len(n.GroupKeys) > 0 {
		return math.Max(1, in[0]*0.1)
	}
	return 1
}

// EstimateRows implements Estimator.
func (n *HashJoin) EstimateRows(in []float64) float64 { return math.Max(in[0], in[1]) }

// EstimateRows implements Estimator.
func (n *NestedLoopJoin) EstimateRows(in []float64) float64 { return math.Max(in[0], in[1]) }

// EstimateRows implements Estimator.
func (n *SortLimit) EstimateRows(in []float64) float64 { return math.Min(in[0], float64(n.Fetch)) }

// EstimateRows implements Estimator.
func (n *Limit) EstimateRows(in []float64) float64 {
	if n.Fetch >= 0 {
		return math.Min(in[0], float64(n.Fetch))
	}
	return in[0]
}

// EstimateRows implements Estimator: the sum of the inputs.
func (n *Union) EstimateRows(in []float64) float64 {
	rows := 0.0
	for _, r := range in {
		rows += r
	}
	return rows
}
