package physical

import (
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Correlate calls a table function for every input row and emits the row
// followed by each row the function produces (Flink's Correlate, from
// FROM t, LATERAL TABLE(f(t.x)) and t LEFT JOIN LATERAL TABLE(f(t.x)) ON
// TRUE). For a LEFT correlate a row the function produces nothing for is
// emitted once with NULL function columns.
type Correlate struct {
	Input Node
	// Call is the function call: Name is the function's registry key,
	// Args read the input's columns, T is the ROW type of the function's
	// rows.
	Call *logical.Call
	// Display names the function in plans (its SQL name).
	Display string
	// Kind is logical.InnerJoin or logical.LeftJoin.
	Kind logical.JoinKind
	// Out is the input's schema followed by the function's columns.
	Out types.Schema
	// Cond is a left correlate's ON condition over Out (nil: ON TRUE).
	Cond logical.Expr
}

// Schema implements Node.
func (n *Correlate) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *Correlate) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *Correlate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *Correlate) Name() string { return "Correlate" }

// Mode implements Node: one output row per input row and function row,
// of the input row's kind.
func (n *Correlate) Mode() changelog.Mode { return n.Input.Mode() }

// Explain implements Node; Flink's attributes:
// invocation=[f($cor0.x)], correlate=[table(f($cor0.x))], select=[a,x,w],
// rowType=[RecordType(…)], joinType=[INNER].
func (n *Correlate) Explain(execution bool) string {
	nIn := len(n.Input.Schema())
	cor := make([]string, nIn)
	for i, f := range n.Out[:min(nIn, len(n.Out))] {
		cor[i] = "$cor0." + f.Name
	}
	exprStr := ExprString
	if execution {
		exprStr = ExecExprString
	}
	args := make([]string, len(n.Call.Args))
	for i, a := range n.Call.Args {
		args[i] = exprStr(a, cor)
	}
	name := n.Display
	if name == "" {
		name = n.Call.Name
	}
	inv := name + "(" + strings.Join(args, ", ") + ")"
	kind := "INNER"
	if n.Kind == logical.LeftJoin {
		kind = "LEFT"
	}
	s := "invocation=[" + inv + "], correlate=[table(" + inv + ")], select=[" + strings.Join(n.Out.Names(), ",") +
		"], rowType=[" + recordType(n.Out) + "], joinType=[" + kind + "]"
	if n.Cond != nil {
		s += ", condition=[" + exprStr(n.Cond, n.Out.Names()) + "]"
	}
	return s
}

// correlate translates a logical Correlate.
func (t *translator) correlate(x *logical.Correlate) (Node, error) {
	in, err := t.node(x.Left)
	if err != nil {
		return nil, err
	}
	return &Correlate{Input: in, Call: x.Right.Call, Display: x.Right.Display, Kind: x.Kind, Out: x.Out, Cond: x.Cond}, nil
}

var _ Node = (*Correlate)(nil)

// Capabilities (node.go).

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *Correlate) Stateless() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *Correlate) ParallelSafe() bool { return true }
