package physical

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// ExplainOptions selects what Explain prints besides the nodes.
type ExplainOptions struct {
	// ChangelogMode appends changelogMode=[I] (etc.) to every node, as
	// EXPLAIN CHANGELOG_MODE does.
	ChangelogMode bool
	// EstimatedCost appends ": rowcount = …, cumulative cost = {…}" to
	// every node, as EXPLAIN ESTIMATED_COST does. The estimates are
	// rough: an unknown table has 1.0E8 rows, as in Flink.
	EstimatedCost bool
	// Execution prints the "Optimized Execution Plan" flavour (Values
	// without its row type).
	Execution bool
}

// Explain prints a physical plan as Flink's "Optimized Physical Plan"
// section does: one node per line, children drawn with ":- " (more
// siblings follow) and "+- " (last child), expressions with column names,
// e.g.
//
//	Calc(select=[a, b], where=[>(a, 10)])
//	+- TableSourceScan(table=[[default_catalog, default_database, t]], fields=[a, b])
//
// Every line ends with a newline.
func Explain(n Node) string { return ExplainWith(n, ExplainOptions{}) }

// ExplainWith is Explain with options.
func ExplainWith(n Node, opts ExplainOptions) string {
	var b strings.Builder
	var walk func(n Node, prefix string, last []bool)
	walk = func(n Node, prefix string, last []bool) {
		attrs := n.Explain(opts.Execution)
		if opts.ChangelogMode {
			if attrs != "" {
				attrs += ", "
			}
			attrs += "changelogMode=[" + n.Mode().String() + "]"
		}
		b.WriteString(prefix + n.Name() + "(" + attrs + ")")
		if opts.EstimatedCost {
			rows, cum := estimate(n)
			fmt.Fprintf(&b, ": rowcount = %s, cumulative cost = {%s rows, %s cpu, 0.0 io, 0.0 network, 0.0 memory}",
				javaDouble(rows), javaDouble(cum), javaDouble(cum))
		}
		b.WriteString("\n")
		ch := n.Children()
		for i, c := range ch {
			var p strings.Builder
			for _, l := range last {
				if l {
					p.WriteString("   ")
				} else {
					p.WriteString(":  ")
				}
			}
			isLast := i == len(ch)-1
			if isLast {
				p.WriteString("+- ")
			} else {
				p.WriteString(":- ")
			}
			walk(c, p.String(), append(append([]bool(nil), last...), isLast))
		}
	}
	walk(n, "", nil)
	return b.String()
}

func fetchString(f int64) string {
	if f < 0 {
		return "unlimited"
	}
	return strconv.FormatInt(f, 10)
}

func colName(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return "$" + strconv.Itoa(i)
}

// joinNames returns the names of left ++ right made unique as Flink does:
// a repeated name gets the first free suffix 0, 1, ….
func joinNames(l, r types.Schema) []string {
	all := append(append([]string{}, l.Names()...), r.Names()...)
	return uniquify(all)
}

func uniquify(names []string) []string {
	seen := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		u := n
		for k := 0; seen[u]; k++ {
			u = n + strconv.Itoa(k)
		}
		seen[u] = true
		out[i] = u
	}
	return out
}

func outNames(l, r Node, kind logical.JoinKind, names []string) []string {
	if kind == logical.SemiJoin || kind == logical.AntiJoin {
		return names[:len(l.Schema())]
	}
	return names
}

// orderBy prints sort keys as Flink's physical plans do: "a ASC, b DESC"
// (Flink does not print the NULLS order there).
func orderBy(keys []logical.SortKey, names []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		s := colName(names, k.Index)
		if k.Desc {
			s += " DESC"
		} else {
			s += " ASC"
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

// AggString prints an aggregate call with input column names, e.g.
// "SUM(amount)", "COUNT(*)", "COUNT(DISTINCT user)", "SUM(a) FILTER $f3".
func AggString(a logical.AggCall, names []string) string {
	args := make([]string, len(a.Args))
	for i, x := range a.Args {
		args[i] = colName(names, x)
	}
	s := a.Name + "("
	if a.Distinct {
		s += "DISTINCT "
	}
	if len(args) == 0 && strings.EqualFold(a.Name, "COUNT") {
		s += "*"
	}
	s += strings.Join(args, ", ") + ")"
	if a.Filter >= 0 {
		s += " FILTER " + colName(names, a.Filter)
	}
	return s
}

// ExprString prints an expression as Flink's plans do, with input column
// names instead of $i: ">(a, 10)", "CAST(b AS BIGINT)".
func ExprString(e logical.Expr, names []string) string { return exprString(e, names, false) }

// exprStrFor returns ExecExprString with execution, else ExprString.
func exprStrFor(execution bool) func(logical.Expr, []string) string {
	if execution {
		return ExecExprString
	}
	return ExprString
}

// ExecExprString prints an expression as Flink's "Optimized Execution
// Plan" does: operators infix, "(a > 10)", "b IS NULL", functions as calls
// "UPPER(c)".
func ExecExprString(e logical.Expr, names []string) string { return exprString(e, names, true) }

// infixOps are the operators Flink's execution plan prints between their
// operands: "(a > 10)", "((a > 1) AND (b < 2))".
var infixOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "=": true, "<>": true, "<": true, "<=": true,
	">": true, ">=": true, "AND": true, "OR": true, "||": true,
	"IS DISTINCT FROM": true, "IS NOT DISTINCT FROM": true,
}

// postfixOps are printed after their single operand: "a IS NULL".
var postfixOps = map[string]bool{
	"IS NULL": true, "IS NOT NULL": true, "IS TRUE": true, "IS NOT TRUE": true,
	"IS FALSE": true, "IS NOT FALSE": true,
}

func exprString(e logical.Expr, names []string, exec bool) string {
	switch x := e.(type) {
	case *logical.ColumnRef:
		return colName(names, x.Index)
	case *logical.Literal:
		if exec && !x.T.IsInterval() { // intervals keep their type: (ts - 5000:INTERVAL SECOND)
			return x.String()
		}
		return physicalLiteral(x)
	case *logical.Call:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = exprString(a, names, exec)
		}
		if s, ok := searchString(x, args); ok {
			return s
		}
		if exec {
			switch {
			case infixOps[x.Name] && len(args) >= 2:
				return "(" + strings.Join(args, " "+x.Name+" ") + ")"
			case postfixOps[x.Name] && len(args) == 1:
				return args[0] + " " + x.Name
			case x.Name == "NEGATE" && len(args) == 1:
				return "-(" + args[0] + ")"
			}
		}
		return x.Name + "(" + strings.Join(args, ", ") + ")"
	case *logical.Cast:
		name := "CAST"
		if x.Try {
			name = "TRY_CAST"
		}
		return name + "(" + exprString(x.Arg, names, exec) + " AS " + x.T.String() + ")"
	case *logical.Case:
		var parts []string
		for _, w := range x.Whens {
			parts = append(parts, exprString(w.Cond, names, exec), exprString(w.Then, names, exec))
		}
		if x.Else != nil {
			parts = append(parts, exprString(x.Else, names, exec))
		} else {
			parts = append(parts, "null:"+x.T.String())
		}
		return "CASE(" + strings.Join(parts, ", ") + ")"
	}
	return e.String()
}

// searchString prints IN over two or more integer literals as Calcite's
// SEARCH with a Sarg of points does: "SEARCH($e, Sarg[0, 1])".
func searchString(x *logical.Call, args []string) (string, bool) {
	if x.Name != "IN" || len(x.Args) < 3 {
		return "", false
	}
	for _, a := range x.Args[1:] {
		l, ok := a.(*logical.Literal)
		if !ok || l.Value == nil || !l.T.IsInteger() {
			return "", false
		}
	}
	return "SEARCH(" + args[0] + ", Sarg[" + strings.Join(args[1:], ", ") + "])", true
}

// physicalLiteral prints a literal as Calcite's digest in Flink's
// optimized physical plan does: integers other than INT carry their type
// ("123:BIGINT"), character strings the charset prefix and, unless CHAR,
// their type ("_UTF-16LE'a':VARCHAR(2147483647) CHARACTER SET "UTF-16LE"").
func physicalLiteral(l *logical.Literal) string {
	s := l.String()
	if l.Value == nil {
		return s
	}
	switch l.T.Kind {
	case types.TinyInt, types.SmallInt, types.BigInt:
		return s + ":" + l.T.SummaryString()
	case types.Char:
		return "_UTF-16LE" + s
	case types.IntervalDayTime, types.IntervalYearMonth:
		if l.T.Unit != "" {
			return s + ":INTERVAL " + l.T.Unit // Calcite: 5000:INTERVAL SECOND
		}
	case types.VarChar:
		return "_UTF-16LE" + s + ":" + calciteType(l.T) + ` CHARACTER SET "UTF-16LE"`
	}
	return s
}

// recordType prints a row type as Calcite does in Values(type=[…]):
// "RecordType(INTEGER a, VARCHAR(2147483647) b)".
func recordType(s types.Schema) string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = calciteType(f.Type) + " " + f.Name
	}
	return "RecordType(" + strings.Join(parts, ", ") + ")"
}

func calciteType(t types.Type) string {
	switch t.Kind {
	case types.Int:
		return "INTEGER"
	case types.VarChar:
		return fmt.Sprintf("VARCHAR(%d)", t.Precision)
	case types.VarBinary:
		return fmt.Sprintf("VARBINARY(%d)", t.Precision)
	}
	return t.SummaryString()
}

// estimate returns a rough row count of n's output and the cumulative
// number of rows processed by its subtree.
func estimate(n Node) (rows, cumulative float64) {
	var childRows []float64
	for _, c := range n.Children() {
		r, cum := estimate(c)
		childRows = append(childRows, r)
		cumulative += cum
	}
	first := 0.0
	if len(childRows) > 0 {
		first = childRows[0]
	}
	rows = first
	if x, ok := n.(Estimator); ok {
		rows = x.EstimateRows(childRows)
	}
	return rows, cumulative + rows
}

// javaDouble formats a float64 as Java's Double.toString does: "100.0",
// "1.0E8", "2.5E-4".
func javaDouble(f float64) string {
	if f == 0 {
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, 64) // e.g. 1E+08, 2.5E-04
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
