package physical

import (
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// LookupJoin is the processing-time temporal table join (JOIN t FOR
// SYSTEM_TIME AS OF <left proctime>), Flink's StreamPhysicalLookupJoin:
// every input row is joined with the rows of the temporal table that
// match its keys at the time it arrives.
//
// Flink plans a LookupJoin for tables whose connector is a lookup source
// (LookupTableSource) and fails with "Processing-time temporal join is not
// supported yet." for others. Here a connector says so through
// catalog.Abilities.Lookup; the built-in ones declare it for their bounded
// tables, and the join runs as Flink's lookup sources with a full cache
// do: the temporal table is read once, completely, before the first input
// row is joined, and kept in memory.
//
// Temporal is the plan of the temporal table. It is not a child: as in
// Flink's plans, EXPLAIN shows the LookupJoin over its input only; the
// runtime builds and runs Temporal itself.
type LookupJoin struct {
	Input    Node
	Temporal Node
	// Table is the temporal table (nil when Temporal reads no table).
	Table *catalog.ResolvedTable
	// Kind is InnerJoin or LeftJoin.
	Kind logical.JoinKind
	// InputKeys and TemporalKeys are the equality keys.
	InputKeys, TemporalKeys []int
	// Extra is the rest of the join condition over Input ++ Temporal
	// (nil: none).
	Extra logical.Expr
	Out   types.Schema
}

// Schema implements Node.
func (n *LookupJoin) Schema() types.Schema { return n.Out }

// Children implements Node: the input only (see LookupJoin).
func (n *LookupJoin) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *LookupJoin) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *LookupJoin) Name() string { return "LookupJoin" }

// Mode implements Node: the input's row kinds pass through.
func (n *LookupJoin) Mode() changelog.Mode { return n.Input.Mode() }

var _ Node = (*LookupJoin)(nil)

// lookupJoin turns a temporal HashJoin or NestedLoopJoin (conv: its
// streaming inputs) into a LookupJoin.
func lookupJoin(n Node, conv []Node) (Node, error) {
	var lk, rk []int
	var kind logical.JoinKind
	var extra logical.Expr
	var out types.Schema
	switch x := n.(type) {
	case *HashJoin:
		lk, rk, kind, extra, out = x.LeftKeys, x.RightKeys, x.Kind, x.Extra, x.Out
	case *NestedLoopJoin:
		return nil, &TableError{Msg: "Temporal table join requires an equality condition on fields of table [" + temporalName(conv[1]) + "]."}
	}
	table := scannedTable(conv[1])
	// A table whose connector cannot look keys up (Flink's
	// LookupTableSource) cannot serve a processing-time temporal join.
	if table != nil && !catalog.AbilitiesOf(table).Lookup {
		return nil, &TableError{Msg: "Processing-time temporal join is not supported yet."}
	}
	return &LookupJoin{Input: conv[0], Temporal: conv[1], Table: table, Kind: kind,
		InputKeys: lk, TemporalKeys: rk, Extra: extra, Out: out}, nil
}

// scannedTable returns the table a plan reads, through Calcs and
// watermark assigners; nil for anything else.
func scannedTable(n Node) *catalog.ResolvedTable {
	switch x := n.(type) {
	case *TableSourceScan:
		return x.Table
	case *Calc, *WatermarkAssigner, *Exchange, *WatermarkCalc:
		return scannedTable(n.Children()[0])
	}
	return nil
}

func temporalName(n Node) string {
	if t := scannedTable(n); t != nil {
		return t.ID.Summary()
	}
	return ""
}

// Explain implements Node: it prints Flink's attributes of a LookupJoin:
//
//	table=[default_catalog.default_database.side_input],
//	joinType=[InnerJoin], lookup=[key=$f5], where=[…],
//	joinCondition=[…], select=[…]
func (x *LookupJoin) Explain(execution bool) string {
	exprStr := ExprString
	if execution {
		exprStr = ExecExprString
	}
	in := x.Input.Schema().Names()
	tn := x.Temporal.Schema().Names()
	var b strings.Builder
	b.WriteString("table=[")
	if x.Table != nil {
		b.WriteString(x.Table.ID.Summary())
	}
	b.WriteString("], joinType=[" + x.Kind.String() + "], lookup=[")
	for i := range x.InputKeys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(colName(tn, x.TemporalKeys[i]) + "=" + colName(in, x.InputKeys[i]))
	}
	b.WriteString("]")
	if c, ok := x.Temporal.(*Calc); ok && c.Condition != nil {
		b.WriteString(", where=[" + exprStr(c.Condition, c.Input.Schema().Names()) + "]")
	}
	names := joinNames(x.Input.Schema(), x.Temporal.Schema())
	if x.Extra != nil {
		b.WriteString(", joinCondition=[" + exprStr(x.Extra, names) + "]")
	}
	b.WriteString(", select=[" + strings.Join(names, ", ") + "]")
	return b.String()
}

// ParallelSafe implements ParallelSafe: through a lookup function each
// instance looks up its own rows' keys (with a cache of its own, as
// Flink's subtasks); the in-memory path reads the whole temporal table in
// one instance.
func (n *LookupJoin) ParallelSafe() bool {
	return n.Table != nil && catalog.AbilitiesOf(n.Table).LookupFunction
}
