package logical

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// Correlate joins every row of Left with the rows a table function
// produces for it: FROM t, LATERAL TABLE(f(t.x)) (inner) or
// t LEFT JOIN LATERAL TABLE(f(t.x)) ON TRUE (left: a row for which the
// function produces nothing is kept once, with NULL function columns).
// Calcite models it as LogicalCorrelate over the input and a
// LogicalTableFunctionScan; so does this node: its second child is the
// function scan, whose call arguments read the columns of Left
// (Calcite's $cor0.x).
type Correlate struct {
	Left  Node
	Right *TableFunctionScan
	// Kind is InnerJoin or LeftJoin.
	Kind JoinKind
	// Out is Left's schema followed by the function's columns (nullable
	// for a left correlate).
	Out types.Schema
	// Cond is the ON condition of a LEFT JOIN LATERAL other than TRUE,
	// over Out: a function row joins only where it holds, and a left row
	// none of whose function rows passes is padded with NULLs. nil for
	// ON TRUE (an inner correlate's condition is a Filter above it).
	Cond Expr
}

// UnnestRowsFunc and UnnestRowsWithOrdinalityFunc are the registry keys
// of Flink's internal table functions for UNNEST (planner/validate/
// unnest.go): the Call's only argument is the array or map, T the ROW of
// the produced columns. They are built into the executor, not registered.
const (
	UnnestRowsFunc               = "$UNNEST_ROWS$1"
	UnnestRowsWithOrdinalityFunc = "$UNNEST_ROWS_WITH_ORDINALITY$1"
)

// The internal definitions the UNNEST calls carry.
var (
	UnnestRowsDef               = function.Internal(UnnestRowsFunc, function.Table)
	UnnestRowsWithOrdinalityDef = function.Internal(UnnestRowsWithOrdinalityFunc, function.Table)
)

// TableFunctionScan is the invocation of a table function inside a
// Correlate. It is not a relation on its own: Call's column references
// index the Correlate's left input.
type TableFunctionScan struct {
	// Call is the function call: Name is the registry key of the
	// function, Args its (coerced) arguments over the left input, T the
	// ROW type of the produced rows.
	Call *Call
	// Display names the function in plans (its SQL name).
	Display string
	// Out is the schema of the produced rows (the column aliases).
	Out types.Schema
	// Correlated names the left input's columns in plans ($cor0.name).
	Correlated []string
}

// Schema implements Node.
func (n *Correlate) Schema() types.Schema { return n.Out }

// Children implements Node: the left input and the function scan.
func (n *Correlate) Children() []Node { return []Node{n.Left, n.Right} }

// WithChildren implements Node. The function scan cannot be replaced by
// another kind of node: a second child that is not a *TableFunctionScan
// keeps the current one.
func (n *Correlate) WithChildren(ch []Node) Node {
	c := *n
	c.Left = ch[0]
	if len(ch) > 1 {
		if r, ok := ch[1].(*TableFunctionScan); ok {
			c.Right = r
		}
	}
	return &c
}

// RequiredColumns returns the left columns the function's arguments read,
// ascending.
func (n *Correlate) RequiredColumns() []int {
	var out []int
	for i := range InputRefs(n.Right.Call) {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// Describe implements Node as Calcite's LogicalCorrelate.
func (n *Correlate) Describe() (string, string) {
	cols := n.RequiredColumns()
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprint(c)
	}
	kind := "inner"
	if n.Kind == LeftJoin {
		kind = "left"
	}
	return "LogicalCorrelate", "correlation=[$cor0], joinType=[" + kind + "], requiredColumns=[{" + strings.Join(parts, ", ") + "}]"
}

// Schema implements Node.
func (n *TableFunctionScan) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *TableFunctionScan) Children() []Node { return nil }

// WithChildren implements Node.
func (n *TableFunctionScan) WithChildren([]Node) Node { return n }

// Describe implements Node as Calcite's LogicalTableFunctionScan.
func (n *TableFunctionScan) Describe() (string, string) {
	return "LogicalTableFunctionScan", "invocation=[" + n.Invocation(n.Correlated) + "], rowType=[" + RecordType(n.Out) + "]"
}

// Invocation prints the call as Calcite does, the arguments' column
// references as $cor0.name (names are the left input's column names; nil
// prints $cor0.$i).
func (n *TableFunctionScan) Invocation(names []string) string {
	args := make([]string, len(n.Call.Args))
	for i, a := range n.Call.Args {
		args[i] = Rewrite(a, func(x Expr) Expr {
			if c, ok := x.(*ColumnRef); ok {
				name := fmt.Sprintf("$%d", c.Index)
				if c.Index < len(names) {
					name = names[c.Index]
				}
				return &corRef{name: name, t: c.T}
			}
			return x
		}).String()
	}
	name := n.Display
	if name == "" {
		name = n.Call.Name
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// corRef prints a correlated column reference.
type corRef struct {
	name string
	t    types.Type
}

func (c *corRef) Type() types.Type         { return c.t }
func (c *corRef) Children() []Expr         { return nil }
func (c *corRef) WithChildren([]Expr) Expr { return c }
func (c *corRef) String() string           { return "$cor0." + c.name }

// RecordType prints a schema as Calcite's RecordType(INTEGER a,
// VARCHAR(2147483647) s, …).
func RecordType(s types.Schema) string {
	parts := make([]string, len(s))
	for i, f := range s {
		t := f.Type
		name := t.SummaryString()
		switch t.Kind {
		case types.Int:
			name = "INTEGER"
		case types.VarChar:
			name = fmt.Sprintf("VARCHAR(%d)", t.Precision)
		case types.VarBinary:
			name = fmt.Sprintf("VARBINARY(%d)", t.Precision)
		}
		parts[i] = name + " " + f.Name
	}
	return "RecordType(" + strings.Join(parts, ", ") + ")"
}

var (
	_ Node = (*Correlate)(nil)
	_ Node = (*TableFunctionScan)(nil)
)
