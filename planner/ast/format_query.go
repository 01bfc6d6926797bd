package ast

import (
	"strings"
)

// FormatQuery prints a query back as Flink-style SQL on one line, with
// back-quoted identifiers. Comma joins print as CROSS JOIN and FETCH as
// LIMIT. The output parses back to an equivalent tree.
func FormatQuery(q Query) string {
	var b strings.Builder
	writeQuery(&b, q)
	return b.String()
}

// FormatTableRef prints a FROM item back as SQL.
func FormatTableRef(r TableRef) string {
	var b strings.Builder
	writeTableRef(&b, r)
	return b.String()
}

// FormatHints prints hints as one /*+ ... */ comment, or "" for none.
func FormatHints(hs []Hint) string {
	if len(hs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("/*+ ")
	for i, h := range hs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(h.Name)
		if len(h.Options) == 0 && len(h.Args) == 0 {
			continue
		}
		b.WriteByte('(')
		n := 0
		for _, o := range h.Options {
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(QuoteString(o.Key) + " = " + QuoteString(o.Value))
		}
		for _, a := range h.Args {
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			if isDottedName(a) {
				b.WriteString(a)
			} else {
				b.WriteString(QuoteString(a))
			}
		}
		b.WriteByte(')')
	}
	b.WriteString(" */")
	return b.String()
}

func writeParenQuery(b *strings.Builder, q Query) {
	b.WriteByte('(')
	writeQuery(b, q)
	b.WriteByte(')')
}

func setOpPrec(q Query) int {
	if s, ok := q.(*SetOp); ok {
		if s.Op == Intersect {
			return 2
		}
		return 1
	}
	return 3
}

func writeQuery(b *strings.Builder, q Query) {
	switch x := q.(type) {
	case nil:
	case *Select:
		writeSelect(b, x)
	case *Values:
		b.WriteString("VALUES ")
		for i, row := range x.Rows {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			writeList(b, row)
			b.WriteByte(')')
		}
	case *SetOp:
		switch l := x.Left.(type) {
		case *QueryExpr, *With:
			writeParenQuery(b, l)
		default:
			if setOpPrec(l) < setOpPrec(x) {
				writeParenQuery(b, l)
			} else {
				writeQuery(b, l)
			}
		}
		b.WriteByte(' ')
		b.WriteString(string(x.Op))
		if x.All {
			b.WriteString(" ALL")
		}
		b.WriteByte(' ')
		switch x.Right.(type) {
		case *Select, *Values:
			writeQuery(b, x.Right)
		default:
			writeParenQuery(b, x.Right)
		}
	case *With:
		b.WriteString("WITH ")
		for i, c := range x.CTEs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdent(c.Name))
			writeNameList(b, c.Columns)
			b.WriteString(" AS ")
			writeParenQuery(b, c.Query)
		}
		b.WriteByte(' ')
		writeQuery(b, x.Body)
	case *QueryExpr:
		if _, ok := x.Body.(*With); ok {
			writeParenQuery(b, x.Body)
		} else {
			writeQuery(b, x.Body)
		}
		if len(x.OrderBy) > 0 {
			b.WriteString(" ORDER BY ")
			for i, o := range x.OrderBy {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(o.String())
			}
		}
		if x.Limit != nil {
			b.WriteString(" LIMIT ")
			writeExpr(b, x.Limit, precUnary)
		}
		if x.Offset != nil {
			b.WriteString(" OFFSET ")
			writeExpr(b, x.Offset, precUnary)
		}
	default:
		b.WriteString("<?>")
	}
}

// writeNameList writes " (a, b)" or nothing for an empty list.
func writeNameList(b *strings.Builder, names []string) {
	if len(names) == 0 {
		return
	}
	b.WriteString(" (")
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(n))
	}
	b.WriteByte(')')
}

func writeSelect(b *strings.Builder, s *Select) {
	b.WriteString("SELECT ")
	if h := FormatHints(s.Hints); h != "" {
		b.WriteString(h + " ")
	}
	if s.Distinct {
		b.WriteString("DISTINCT ")
	}
	for i, it := range s.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		if it.Star {
			for _, q := range it.Qualifier {
				b.WriteString(QuoteIdent(q) + ".")
			}
			b.WriteByte('*')
			continue
		}
		writeExpr(b, it.Expr, 0)
		if it.Alias != "" {
			b.WriteString(" AS " + QuoteIdent(it.Alias))
		}
	}
	if s.From != nil {
		b.WriteString(" FROM ")
		writeTableRef(b, s.From)
	}
	if s.Where != nil {
		b.WriteString(" WHERE ")
		writeExpr(b, s.Where, 0)
	}
	if len(s.GroupBy) > 0 {
		b.WriteString(" GROUP BY ")
		writeList(b, s.GroupBy)
	}
	if s.Having != nil {
		b.WriteString(" HAVING ")
		writeExpr(b, s.Having, 0)
	}
	for i, w := range s.Windows {
		if i == 0 {
			b.WriteString(" WINDOW ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(w.Name) + " AS (" + w.Spec.String() + ")")
	}
}

func writeAlias(b *strings.Builder, alias string, cols []string) {
	if alias == "" {
		return
	}
	b.WriteString(" AS " + QuoteIdent(alias))
	writeNameList(b, cols)
}

func writeTableRef(b *strings.Builder, r TableRef) {
	switch x := r.(type) {
	case nil:
	case *TableName:
		b.WriteString(x.Name.String())
		if h := FormatHints(x.Hints); h != "" {
			b.WriteString(" " + h)
		}
		if x.ForSystemTimeAsOf != nil {
			b.WriteString(" FOR SYSTEM_TIME AS OF ")
			writeExpr(b, x.ForSystemTimeAsOf, precAdd)
		}
		writeAlias(b, x.Alias, x.ColumnAliases)
	case *SubqueryRef:
		if x.Lateral {
			b.WriteString("LATERAL ")
		}
		writeParenQuery(b, x.Query)
		writeAlias(b, x.Alias, x.ColumnAliases)
	case *ValuesRef:
		writeParenQuery(b, x.Values)
		writeAlias(b, x.Alias, x.ColumnAliases)
	case *TableFunctionRef:
		if x.Lateral {
			b.WriteString("LATERAL ")
		}
		b.WriteString("TABLE(")
		if x.Call != nil {
			writeCall(b, x.Call)
		}
		b.WriteByte(')')
		writeAlias(b, x.Alias, x.ColumnAliases)
	case *UnnestRef:
		b.WriteString("UNNEST(")
		writeList(b, x.Exprs)
		b.WriteByte(')')
		if x.WithOrdinality {
			b.WriteString(" WITH ORDINALITY")
		}
		writeAlias(b, x.Alias, x.ColumnAliases)
	case *MatchRecognize:
		writeMatchRecognize(b, x)
	case *Join:
		writeTableRef(b, x.Left)
		b.WriteByte(' ')
		if x.Natural {
			b.WriteString("NATURAL ")
		}
		b.WriteString(string(x.Kind))
		b.WriteString(" JOIN ")
		if _, ok := x.Right.(*Join); ok {
			b.WriteByte('(')
			writeTableRef(b, x.Right)
			b.WriteByte(')')
		} else {
			writeTableRef(b, x.Right)
		}
		if x.On != nil {
			b.WriteString(" ON ")
			writeExpr(b, x.On, 0)
		}
		if len(x.Using) > 0 {
			b.WriteString(" USING")
			writeNameList(b, x.Using)
		}
	default:
		b.WriteString("<?>")
	}
}

// isDottedName reports whether s is plain names joined by single dots.
func isDottedName(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if !isPlainName(part) {
			return false
		}
	}
	return true
}
