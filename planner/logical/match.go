package logical

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/core/types"
)

// MatchAccessKind says how a MatchAccess reads the rows of a match.
type MatchAccessKind uint8

// The accesses of MATCH_RECOGNIZE expressions.
const (
	// MatchLast reads Arg on the Offset-th last row of the variable's
	// rows (A.price is LAST(A.price, 0); PREV(A.price, 0) too).
	MatchLast MatchAccessKind = iota
	// MatchFirst reads Arg on the Offset-th row of the variable's rows.
	MatchFirst
	// MatchAgg aggregates Arg (Agg) over the variable's rows.
	MatchAgg
	// MatchRowtime is MATCH_ROWTIME(): the event time of the match.
	MatchRowtime
	// MatchProctime is MATCH_PROCTIME().
	MatchProctime
)

// MatchAccess is one value a MEASURES or DEFINE expression reads from the
// rows of a (partial) match. The rows of a variable are those mapped to
// it, in order; in DEFINE the current row is added when Var is the
// variable being defined or the default variable. Var "" is the default
// variable `*` (all rows).
type MatchAccess struct {
	Kind   MatchAccessKind
	Var    string
	Offset int
	// Arg is an expression over the input row (nil for COUNT(*) and the
	// time functions).
	Arg Expr
	// Agg is the aggregate function of MatchAgg (COUNT, SUM, AVG, MIN,
	// MAX).
	Agg string
	// Func is the navigation function as written (FIRST, LAST, PREV,
	// NEXT; "" for a plain reference), for EXPLAIN.
	Func string
	T    types.Type
}

// Text prints the access as Flink's plans do: with input column names
// (measures, names != nil) or as pattern field references A.$2 (define).
func (a MatchAccess) Text(names []string, define bool) string {
	v := a.Var
	if v == "" {
		v = "*"
	}
	arg := ""
	if a.Arg != nil {
		arg = matchArgText(a.Arg, v, names, define)
	}
	switch a.Kind {
	case MatchLast:
		switch {
		case a.Func == "LAST" || a.Offset != 0:
			return "LAST(" + arg + ", " + strconv.Itoa(a.Offset) + ")"
		case define || a.Func != "":
			return "PREV(" + arg + ", 0)"
		}
		return arg
	case MatchFirst:
		return "FIRST(" + arg + ", " + strconv.Itoa(a.Offset) + ")"
	case MatchAgg:
		if a.Arg == nil {
			return a.Agg + "()"
		}
		return a.Agg + "(" + arg + ")"
	case MatchRowtime:
		if a.Arg != nil {
			return "MATCH_ROWTIME(" + arg + ")"
		}
		return "MATCH_ROWTIME()"
	case MatchProctime:
		return "MATCH_PROCTIME()"
	}
	return "?"
}

func matchArgText(e Expr, v string, names []string, define bool) string {
	switch x := e.(type) {
	case *ColumnRef:
		if define {
			return v + ".$" + strconv.Itoa(x.Index)
		}
		n := x.Name
		if x.Index < len(names) {
			n = names[x.Index]
		}
		return v + "." + n
	case *Call:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = matchArgText(a, v, names, define)
		}
		return x.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return e.String()
}

// MatchPatternKind is the kind of a row pattern node.
type MatchPatternKind uint8

// Row pattern node kinds.
const (
	PatternVariable MatchPatternKind = iota
	PatternConcatenation
	PatternAlternation
	PatternGroup
	PatternPermute
	PatternExclusion
)

// MatchPattern is a node of a MATCH_RECOGNIZE row pattern as written.
type MatchPattern struct {
	Kind  MatchPatternKind
	Var   string
	Items []*MatchPattern
	// Quantified: Min..Max (Max -1: unbounded), Reluctant for a trailing ?.
	Quantified bool
	Min, Max   int
	Reluctant  bool
}

// String prints the pattern as Calcite's RexCall digest does:
// _UTF-16LE'A', (a, b) for concatenation, PATTERN_QUANTIFIER(v, min, max,
// reluctant).
func (p *MatchPattern) String() string {
	var s string
	switch p.Kind {
	case PatternVariable:
		s = "_UTF-16LE'" + p.Var + "'"
	case PatternConcatenation, PatternAlternation, PatternPermute:
		op := ""
		switch p.Kind {
		case PatternAlternation:
			op = "|"
		case PatternPermute:
			op = "PATTERN_PERMUTE"
		}
		s = p.Items[0].String()
		if p.Kind == PatternPermute || len(p.Items) == 1 {
			parts := make([]string, len(p.Items))
			for i, it := range p.Items {
				parts[i] = it.String()
			}
			s = op + "(" + strings.Join(parts, ", ") + ")"
		} else {
			for _, it := range p.Items[1:] {
				s = op + "(" + s + ", " + it.String() + ")"
			}
		}
	case PatternGroup:
		if len(p.Items) == 1 {
			s = p.Items[0].String()
		} else {
			s = (&MatchPattern{Kind: PatternConcatenation, Items: p.Items}).String()
		}
	case PatternExclusion:
		s = "PATTERN_EXCLUDE(" + (&MatchPattern{Kind: PatternConcatenation, Items: p.Items}).String() + ")"
	}
	if p.Quantified {
		s = fmt.Sprintf("PATTERN_QUANTIFIER(%s, %d, %d, %t)", s, p.Min, p.Max, p.Reluctant)
	}
	return s
}

// MatchDefine is the condition of one pattern variable (DEFINE).
type MatchDefine struct {
	Var  string
	Cond Expr // over the accesses (ColumnRef i reads Accesses[i])
}

// Match is MATCH_RECOGNIZE (Calcite's LogicalMatch) in ONE ROW PER MATCH
// mode: the output is the partition columns followed by the measures.
// Measures and DEFINE conditions are expressions over Accesses: a
// ColumnRef with Index i reads Accesses[i] of the (partial) match.
type Match struct {
	Input         Node
	PartitionKeys []int
	OrderKeys     []SortKey
	Accesses      []MatchAccess
	Measures      []Expr
	MeasureNames  []string
	AllRows       bool
	// After is "SKIP TO NEXT ROW" (the default), "SKIP PAST LAST ROW",
	// "SKIP TO FIRST" or "SKIP TO LAST" (with AfterVar).
	After    string
	AfterVar string
	// StartAnchor and EndAnchor are ^ and $.
	StartAnchor, EndAnchor bool
	Pattern                *MatchPattern
	// Within is the WITHIN interval in milliseconds (0: none); WithinMonths
	// is set for a YEAR TO MONTH interval.
	Within       int64
	WithinMonths bool
	HasWithin    bool
	Subsets      bool
	Defines      []MatchDefine
	Out          types.Schema
}

// Schema implements Node.
func (n *Match) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *Match) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *Match) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Describe implements Node.
func (n *Match) Describe() (string, string) {
	in := n.Input.Schema().Names()
	keys := make([]string, len(n.PartitionKeys))
	for i, k := range n.PartitionKeys {
		keys[i] = strconv.Itoa(k)
	}
	order := make([]string, len(n.OrderKeys))
	for i, k := range n.OrderKeys {
		order[i] = k.String()
	}
	defs := make([]string, len(n.Defines))
	names := make([]string, len(n.Accesses))
	for i, a := range n.Accesses {
		names[i] = a.Text(in, true)
	}
	for i, d := range n.Defines {
		defs[i] = exprWithNames(d.Cond, names)
	}
	return "LogicalMatch", fmt.Sprintf("partition=[[%s]], order=[[%s]], outputFields=[[%s]], allRows=[%t], after=[FLAG(%s)], pattern=[%s], subsets=[[]], patternDefinitions=[[%s]], inputFields=[[%s]]",
		strings.Join(keys, ", "), strings.Join(order, ", "), strings.Join(n.Out.Names(), ", "), n.AllRows, n.After, n.Pattern,
		strings.Join(defs, ", "), strings.Join(in, ", "))
}

// exprWithNames prints e with column i printed as names[i].
func exprWithNames(e Expr, names []string) string {
	switch x := e.(type) {
	case *ColumnRef:
		if x.Index < len(names) {
			return names[x.Index]
		}
	case *Call:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = exprWithNames(a, names)
		}
		return x.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return e.String()
}

var _ Node = (*Match)(nil)
