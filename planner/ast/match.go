package ast

import (
	"strconv"
	"strings"
)

// PatternKind is the kind of a MATCH_RECOGNIZE pattern node.
type PatternKind string

// Pattern node kinds.
const (
	// PatternVar is a pattern variable such as A.
	PatternVar PatternKind = "VAR"
	// PatternConcat is a sequence A B C.
	PatternConcat PatternKind = "CONCAT"
	// PatternAlt is an alternation A | B.
	PatternAlt PatternKind = "ALT"
	// PatternGroup is a parenthesised pattern (A B); () is an empty group.
	PatternGroup PatternKind = "GROUP"
	// PatternPermute is PERMUTE(A, B).
	PatternPermute PatternKind = "PERMUTE"
	// PatternExclude is {- A -}.
	PatternExclude PatternKind = "EXCLUDE"
)

// Pattern is a node of a MATCH_RECOGNIZE row pattern.
type Pattern struct {
	Pos
	Kind PatternKind
	// Var is the variable name of a PatternVar.
	Var string
	// Items are the children of CONCAT, ALT, GROUP, PERMUTE and EXCLUDE.
	Items []*Pattern
	// Quantified is set when a quantifier follows: *, +, ?, {n}, {n,},
	// {,m} or {n,m}. Min is the lower bound; Max is -1 when unbounded.
	Quantified bool
	Min, Max   int
	// Reluctant is set for a trailing ? after the quantifier (A*?).
	Reluctant bool
}

// String prints the pattern in SQL syntax with back-quoted variables.
func (p *Pattern) String() string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	switch p.Kind {
	case PatternVar:
		b.WriteString(QuoteIdent(p.Var))
	case PatternConcat, PatternAlt:
		sep := " "
		if p.Kind == PatternAlt {
			sep = " | "
		}
		for i, it := range p.Items {
			if i > 0 {
				b.WriteString(sep)
			}
			if it.Kind == PatternAlt || (it.Kind == PatternConcat && p.Kind == PatternConcat) {
				b.WriteString("(" + it.String() + ")")
			} else {
				b.WriteString(it.String())
			}
		}
	case PatternGroup:
		b.WriteByte('(')
		for _, it := range p.Items {
			b.WriteString(it.String())
		}
		b.WriteByte(')')
	case PatternPermute:
		b.WriteString("PERMUTE(")
		for i, it := range p.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(it.String())
		}
		b.WriteByte(')')
	case PatternExclude:
		b.WriteString("{- ")
		for _, it := range p.Items {
			b.WriteString(it.String())
		}
		b.WriteString(" -}")
	}
	if p.Quantified {
		switch {
		case p.Min == 0 && p.Max == -1:
			b.WriteByte('*')
		case p.Min == 1 && p.Max == -1:
			b.WriteByte('+')
		case p.Min == 0 && p.Max == 1:
			b.WriteByte('?')
		case p.Min == p.Max:
			b.WriteString("{" + strconv.Itoa(p.Min) + "}")
		case p.Max == -1:
			b.WriteString("{" + strconv.Itoa(p.Min) + ",}")
		default:
			b.WriteString("{" + strconv.Itoa(p.Min) + ", " + strconv.Itoa(p.Max) + "}")
		}
		if p.Reluctant {
			b.WriteByte('?')
		}
	}
	return b.String()
}

// PatternSubset is one `name = (var, ...)` of a SUBSET clause.
type PatternSubset struct {
	Pos
	Name string
	Vars []string
}

// PatternDefine is one `var AS condition` of a DEFINE clause.
type PatternDefine struct {
	Pos
	Var  string
	Cond Expr
}

// MatchRecognize is `input MATCH_RECOGNIZE (...) [AS] alias [(cols)]`.
type MatchRecognize struct {
	Pos
	Input       TableRef
	PartitionBy []Expr
	OrderBy     []OrderItem
	// Measures are `expr AS name` items (Expr and Alias of SelectItem).
	Measures []SelectItem
	// AllRows is set for ALL ROWS PER MATCH (default ONE ROW PER MATCH).
	AllRows bool
	// AfterMatch is the AFTER MATCH SKIP mode: "TO NEXT ROW", "PAST LAST
	// ROW", "TO FIRST", "TO LAST" or "TO" (the last three with AfterMatchVar);
	// "" when not written.
	AfterMatch    string
	AfterMatchVar string
	// StartAnchor and EndAnchor are the ^ and $ of the pattern.
	StartAnchor bool
	EndAnchor   bool
	Pattern     *Pattern
	// Within is the interval of WITHIN interval, or nil.
	Within        Expr
	Subsets       []PatternSubset
	Defines       []PatternDefine
	Alias         string
	ColumnAliases []string
}

func (*MatchRecognize) tableRefNode() {}

func writeMatchRecognize(b *strings.Builder, m *MatchRecognize) {
	writeTableRef(b, m.Input)
	b.WriteString(" MATCH_RECOGNIZE (")
	if len(m.PartitionBy) > 0 {
		b.WriteString("PARTITION BY ")
		writeList(b, m.PartitionBy)
		b.WriteByte(' ')
	}
	if len(m.OrderBy) > 0 {
		b.WriteString("ORDER BY ")
		for i, o := range m.OrderBy {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(o.String())
		}
		b.WriteByte(' ')
	}
	if len(m.Measures) > 0 {
		b.WriteString("MEASURES ")
		for i, it := range m.Measures {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, it.Expr, 0)
			b.WriteString(" AS " + QuoteIdent(it.Alias))
		}
		b.WriteByte(' ')
	}
	if m.AllRows {
		b.WriteString("ALL ROWS PER MATCH ")
	}
	if m.AfterMatch != "" {
		b.WriteString("AFTER MATCH SKIP " + m.AfterMatch)
		if m.AfterMatchVar != "" {
			b.WriteString(" " + QuoteIdent(m.AfterMatchVar))
		}
		b.WriteByte(' ')
	}
	b.WriteString("PATTERN (")
	if m.StartAnchor {
		b.WriteString("^ ")
	}
	b.WriteString(m.Pattern.String())
	if m.EndAnchor {
		b.WriteString(" $")
	}
	b.WriteByte(')')
	if m.Within != nil {
		b.WriteString(" WITHIN ")
		writeExpr(b, m.Within, 0)
	}
	for i, s := range m.Subsets {
		if i == 0 {
			b.WriteString(" SUBSET ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(s.Name) + " =")
		writeNameList(b, s.Vars)
	}
	b.WriteString(" DEFINE ")
	for i, d := range m.Defines {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(d.Var) + " AS ")
		writeExpr(b, d.Cond, 0)
	}
	b.WriteByte(')')
	writeAlias(b, m.Alias, m.ColumnAliases)
}
