package ast

import (
	"strconv"
	"strings"
)

// Format prints an expression back as Flink-style SQL: identifiers are
// back-quoted, keywords and single-part function names are upper case,
// interval literals print as INTERVAL '5' SECOND, and parentheses are added
// only where operator precedence needs them. A nil expression prints as "".
func Format(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e, 0)
	return b.String()
}

// QuoteIdent back-quotes an identifier, doubling embedded back quotes.
func QuoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// QuoteString single-quotes a string literal, doubling embedded quotes.
func QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// String returns the name with every part back-quoted, joined by '.'.
func (n ObjectName) String() string {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		parts[i] = QuoteIdent(p)
	}
	return strings.Join(parts, ".")
}

// String returns Format(i).
func (i *Identifier) String() string { return Format(i) }

// String returns Format(l).
func (l *Literal) String() string { return Format(l) }

// String returns Format(l).
func (l *IntervalLit) String() string { return Format(l) }

// String returns Format(f).
func (f *FunctionCall) String() string { return Format(f) }

// String returns Format(b).
func (b *Binary) String() string { return Format(b) }

// Operator precedence levels used for printing; higher binds tighter.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCmp
	precAdd
	precMul
	precUnary
	precPostfix
	precAtom
)

func binaryPrec(op string) int {
	switch op {
	case "OR":
		return precOr
	case "AND":
		return precAnd
	case "=", "<>", "<", "<=", ">", ">=":
		return precCmp
	case "+", "-", "||":
		return precAdd
	case "*", "/", "%":
		return precMul
	}
	return precCmp
}

func exprPrec(e Expr) int {
	switch x := e.(type) {
	case *Binary:
		return binaryPrec(x.Op)
	case *Unary:
		if x.Op == "NOT" {
			return precNot
		}
		return precUnary
	case *Is, *IsDistinctFrom, *Between, *Like, *In, *InSubquery:
		return precCmp
	case *Index, *FieldAccess:
		return precPostfix
	}
	return precAtom
}

func writeIdentParts(b *strings.Builder, parts []string) {
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(QuoteIdent(p))
	}
}

func writeList(b *strings.Builder, es []Expr) {
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, e, 0)
	}
}

func writeExpr(b *strings.Builder, e Expr, minPrec int) {
	if e == nil {
		return
	}
	p := exprPrec(e)
	if p < minPrec {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch x := e.(type) {
	case *Identifier:
		writeIdentParts(b, x.Parts)
	case *Literal:
		writeLiteral(b, x)
	case *IntervalLit:
		b.WriteString("INTERVAL ")
		if x.Negative {
			b.WriteByte('-')
		}
		b.WriteString(QuoteString(x.Value))
		b.WriteByte(' ')
		b.WriteString(x.Qualifier.String())
	case *Symbol:
		b.WriteString(x.Name)
	case *Unary:
		if x.Op == "NOT" {
			b.WriteString("NOT ")
			writeExpr(b, x.Expr, precNot)
		} else {
			b.WriteString(x.Op)
			if u, ok := x.Expr.(*Unary); ok && u.Op != "NOT" {
				// Avoid "--x", which would read back as a comment.
				b.WriteByte('(')
				writeExpr(b, x.Expr, 0)
				b.WriteByte(')')
			} else {
				writeExpr(b, x.Expr, precUnary)
			}
		}
	case *Binary:
		writeExpr(b, x.Left, p)
		b.WriteByte(' ')
		b.WriteString(x.Op)
		b.WriteByte(' ')
		writeExpr(b, x.Right, p+1)
	case *Is:
		writeExpr(b, x.Expr, precCmp+1)
		b.WriteString(" IS ")
		if x.Not {
			b.WriteString("NOT ")
		}
		b.WriteString(x.Test)
	case *IsDistinctFrom:
		writeExpr(b, x.Left, precCmp+1)
		b.WriteString(" IS ")
		if x.Not {
			b.WriteString("NOT ")
		}
		b.WriteString("DISTINCT FROM ")
		writeExpr(b, x.Right, precCmp+1)
	case *Between:
		writeExpr(b, x.Expr, precCmp+1)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		if x.Symmetric {
			b.WriteString("SYMMETRIC ")
		}
		writeExpr(b, x.Low, precCmp+1)
		b.WriteString(" AND ")
		writeExpr(b, x.High, precCmp+1)
	case *Like:
		writeExpr(b, x.Expr, precCmp+1)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteByte(' ')
		b.WriteString(x.Op)
		b.WriteByte(' ')
		writeExpr(b, x.Pattern, precCmp+1)
		if x.Escape != nil {
			b.WriteString(" ESCAPE ")
			writeExpr(b, x.Escape, precCmp+1)
		}
	case *In:
		writeExpr(b, x.Expr, precCmp+1)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		writeList(b, x.List)
		b.WriteByte(')')
	case *InSubquery:
		writeExpr(b, x.Expr, precCmp+1)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN ")
		writeParenQuery(b, x.Query)
	case *Exists:
		b.WriteString("EXISTS ")
		writeParenQuery(b, x.Query)
	case *ScalarSubquery:
		writeParenQuery(b, x.Query)
	case *Case:
		b.WriteString("CASE")
		if x.Operand != nil {
			b.WriteByte(' ')
			writeExpr(b, x.Operand, 0)
		}
		for _, w := range x.Whens {
			b.WriteString(" WHEN ")
			writeExpr(b, w.Cond, 0)
			b.WriteString(" THEN ")
			writeExpr(b, w.Result, 0)
		}
		if x.Else != nil {
			b.WriteString(" ELSE ")
			writeExpr(b, x.Else, 0)
		}
		b.WriteString(" END")
	case *Cast:
		if x.Try {
			b.WriteString("TRY_CAST(")
		} else {
			b.WriteString("CAST(")
		}
		writeExpr(b, x.Expr, 0)
		b.WriteString(" AS ")
		b.WriteString(x.Type.String())
		b.WriteByte(')')
	case *FunctionCall:
		if j := jsonAggCall(x); j != nil {
			writeJSONCall(b, j)
			break
		}
		writeCall(b, x)
	case *JSONCall:
		writeJSONCall(b, x)
	case *TableArg:
		b.WriteString("TABLE ")
		b.WriteString(x.Name.String())
		if len(x.PartitionBy) > 0 {
			b.WriteString(" PARTITION BY (")
			writeList(b, x.PartitionBy)
			b.WriteByte(')')
		}
		if len(x.OrderBy) > 0 {
			b.WriteString(" ORDER BY (")
			for i, o := range x.OrderBy {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(o.String())
			}
			b.WriteByte(')')
		}
	case *Descriptor:
		b.WriteString("DESCRIPTOR(")
		for i, c := range x.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdent(c))
		}
		b.WriteByte(')')
	case *NamedArg:
		b.WriteString(QuoteIdent(x.Name))
		b.WriteString(" => ")
		writeExpr(b, x.Value, 0)
	case *Row:
		if x.Explicit {
			b.WriteString("ROW")
		}
		b.WriteByte('(')
		writeList(b, x.Items)
		b.WriteByte(')')
	case *Array:
		b.WriteString("ARRAY[")
		writeList(b, x.Items)
		b.WriteByte(']')
	case *Map:
		b.WriteString("MAP[")
		writeList(b, x.Items)
		b.WriteByte(']')
	case *Index:
		writePostfixBase(b, x.Expr)
		b.WriteByte('[')
		writeExpr(b, x.Index, 0)
		b.WriteByte(']')
	case *FieldAccess:
		writePostfixBase(b, x.Expr)
		b.WriteByte('.')
		b.WriteString(QuoteIdent(x.Field))
	case *GroupingSets:
		b.WriteString(string(x.Kind))
		b.WriteByte('(')
		for i, s := range x.Sets {
			if i > 0 {
				b.WriteString(", ")
			}
			if len(s) == 1 && x.Kind != GroupingSetsKindSets {
				writeExpr(b, s[0], 0)
				continue
			}
			b.WriteByte('(')
			writeList(b, s)
			b.WriteByte(')')
		}
		b.WriteByte(')')
	default:
		b.WriteString("<?>")
	}
}

func writeLiteral(b *strings.Builder, l *Literal) {
	switch l.Kind {
	case StringLit:
		b.WriteString(QuoteString(l.Text))
	case BinaryLit:
		b.WriteString("X'")
		b.WriteString(l.Text)
		b.WriteByte('\'')
	case DateLit:
		b.WriteString("DATE ")
		b.WriteString(QuoteString(l.Text))
	case TimeLit:
		b.WriteString("TIME ")
		b.WriteString(QuoteString(l.Text))
	case TimestampLit:
		b.WriteString("TIMESTAMP ")
		b.WriteString(QuoteString(l.Text))
	case TimestampLTZLit:
		b.WriteString("TIMESTAMP_LTZ ")
		b.WriteString(QuoteString(l.Text))
	default:
		b.WriteString(l.Text)
	}
}

// isPlainName reports whether s is a simple identifier that needs no quoting
// as a function name.
func isPlainName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func writeCall(b *strings.Builder, f *FunctionCall) {
	if len(f.Name.Parts) == 1 && isPlainName(f.Name.Parts[0]) {
		b.WriteString(strings.ToUpper(f.Name.Parts[0]))
	} else {
		b.WriteString(f.Name.String())
	}
	if f.NoParens {
		return
	}
	name := ""
	if len(f.Name.Parts) == 1 {
		name = strings.ToUpper(f.Name.Parts[0])
	}
	_, firstIsSymbol := firstArg(f).(*Symbol)
	b.WriteByte('(')
	switch {
	case f.Star:
		b.WriteByte('*')
	case name == "EXTRACT" && len(f.Args) == 2:
		writeExpr(b, f.Args[0], 0)
		b.WriteString(" FROM ")
		writeExpr(b, f.Args[1], 0)
	case name == "POSITION" && len(f.Args) >= 2:
		writeExpr(b, f.Args[0], precAdd)
		b.WriteString(" IN ")
		writeExpr(b, f.Args[1], 0)
		if len(f.Args) == 3 {
			b.WriteString(" FROM ")
			writeExpr(b, f.Args[2], 0)
		}
	case name == "TRIM" && len(f.Args) == 3 && firstIsSymbol:
		writeExpr(b, f.Args[0], 0)
		b.WriteByte(' ')
		writeExpr(b, f.Args[1], 0)
		b.WriteString(" FROM ")
		writeExpr(b, f.Args[2], 0)
	case name == "OVERLAY" && len(f.Args) >= 3:
		writeExpr(b, f.Args[0], 0)
		b.WriteString(" PLACING ")
		writeExpr(b, f.Args[1], 0)
		b.WriteString(" FROM ")
		writeExpr(b, f.Args[2], 0)
		if len(f.Args) == 4 {
			b.WriteString(" FOR ")
			writeExpr(b, f.Args[3], 0)
		}
	case (name == "CEIL" || name == "CEILING" || name == "FLOOR") && len(f.Args) == 2:
		writeExpr(b, f.Args[0], 0)
		b.WriteString(" TO ")
		writeExpr(b, f.Args[1], 0)
	default:
		if f.Distinct {
			b.WriteString("DISTINCT ")
		}
		writeList(b, f.Args)
	}
	b.WriteByte(')')
	if f.Filter != nil {
		b.WriteString(" FILTER (WHERE ")
		writeExpr(b, f.Filter, 0)
		b.WriteByte(')')
	}
	if f.OverName != "" {
		b.WriteString(" OVER ")
		b.WriteString(QuoteIdent(f.OverName))
	} else if f.Over != nil {
		b.WriteString(" OVER (")
		b.WriteString(f.Over.String())
		b.WriteByte(')')
	}
}

// String prints the body of a window specification (without OVER and the
// surrounding parentheses).
func (w *WindowSpec) String() string {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
	}
	if w.Base != "" {
		b.WriteString(QuoteIdent(w.Base))
	}
	if len(w.PartitionBy) > 0 {
		sep()
		b.WriteString("PARTITION BY ")
		writeList(&b, w.PartitionBy)
	}
	if len(w.OrderBy) > 0 {
		sep()
		b.WriteString("ORDER BY ")
		for i, o := range w.OrderBy {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(o.String())
		}
	}
	if w.Frame != nil {
		sep()
		b.WriteString(w.Frame.Unit)
		if w.Frame.End != nil {
			b.WriteString(" BETWEEN ")
			b.WriteString(w.Frame.Start.String())
			b.WriteString(" AND ")
			b.WriteString(w.Frame.End.String())
		} else {
			b.WriteByte(' ')
			b.WriteString(w.Frame.Start.String())
		}
	}
	return b.String()
}

// String prints the frame bound, e.g. INTERVAL '1' HOUR PRECEDING.
func (f FrameBound) String() string {
	if f.Offset != nil {
		return Format(f.Offset) + " " + string(f.Kind)
	}
	return string(f.Kind)
}

// String prints the order item, e.g. `a` DESC NULLS LAST.
func (o OrderItem) String() string {
	s := Format(o.Expr)
	if o.Desc {
		s += " DESC"
	}
	if o.NullsFirst != nil {
		if *o.NullsFirst {
			s += " NULLS FIRST"
		} else {
			s += " NULLS LAST"
		}
	}
	return s
}

// String prints the qualifier, e.g. SECOND(3) or DAY(2) TO SECOND(3).
func (q IntervalQualifier) String() string {
	s := q.Start
	switch {
	case q.StartPrecision >= 0 && q.StartFracPrecision >= 0:
		s += "(" + strconv.Itoa(q.StartPrecision) + ", " + strconv.Itoa(q.StartFracPrecision) + ")"
	case q.StartPrecision >= 0:
		s += "(" + strconv.Itoa(q.StartPrecision) + ")"
	}
	if q.End != "" {
		s += " TO " + q.End
		if q.EndFracPrecision >= 0 {
			s += "(" + strconv.Itoa(q.EndFracPrecision) + ")"
		}
	}
	return s
}

// String prints the type in Flink's style, e.g. DECIMAL(10, 2) NOT NULL,
// ARRAY<INT>, ROW<`a` INT, `b` STRING>, TIMESTAMP_LTZ(3).
func (t *DataType) String() string {
	if t == nil {
		return ""
	}
	var b strings.Builder
	switch {
	case t.Name == "ARRAY" || t.Name == "MULTISET":
		b.WriteString(t.Name + "<" + t.Elem.String() + ">")
	case t.Name == "MAP":
		b.WriteString("MAP<" + t.Key.String() + ", " + t.Value.String() + ">")
	case t.Name == "ROW":
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdent(f.Name) + " " + f.Type.String())
			if f.Description != "" {
				b.WriteString(" " + QuoteString(f.Description))
			}
		}
		b.WriteByte('>')
	case t.Name == "INTERVAL" && t.Interval != nil:
		b.WriteString("INTERVAL " + t.Interval.String())
	case t.Name == "RAW" && len(t.RawArgs) > 0:
		b.WriteString("RAW(")
		for i, a := range t.RawArgs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteString(a))
		}
		b.WriteByte(')')
	default:
		b.WriteString(t.Name)
		if len(t.Params) > 0 {
			b.WriteByte('(')
			for i, p := range t.Params {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Itoa(p))
			}
			b.WriteByte(')')
		}
	}
	if t.NotNull {
		b.WriteString(" NOT NULL")
	}
	return b.String()
}

func writeJSONCall(b *strings.Builder, j *JSONCall) {
	b.WriteString(j.Name)
	b.WriteByte('(')
	switch j.Name {
	case "JSON_OBJECT", "JSON_OBJECTAGG":
		for i := 0; i+1 < len(j.Args); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("KEY ")
			writeExpr(b, j.Args[i], precAdd)
			b.WriteString(" VALUE ")
			writeExpr(b, j.Args[i+1], precAdd)
		}
	default:
		writeList(b, j.Args)
	}
	if j.Returning != nil {
		b.WriteString(" RETURNING " + j.Returning.String())
	}
	if j.Wrapper != "" {
		b.WriteString(" " + j.Wrapper + " WRAPPER")
	}
	for _, c := range []struct {
		on string
		b  *JSONBehavior
	}{{"EMPTY", j.OnEmpty}, {"ERROR", j.OnError}} {
		if c.b == nil {
			continue
		}
		b.WriteString(" " + c.b.Kind)
		if c.b.Kind == "DEFAULT" {
			b.WriteByte(' ')
			writeExpr(b, c.b.Default, precAdd)
		}
		b.WriteString(" ON " + c.on)
	}
	if j.OnNull != "" {
		b.WriteString(" " + j.OnNull + " ON NULL")
	}
	b.WriteByte(')')
}

func firstArg(f *FunctionCall) Expr {
	if len(f.Args) == 0 {
		return nil
	}
	return f.Args[0]
}

// writePostfixBase writes the operand of [] or .field, parenthesised when
// it is not a name, call, constructor or another postfix expression (so
// that e.g. a numeric literal does not absorb the dot).
func writePostfixBase(b *strings.Builder, e Expr) {
	switch e.(type) {
	case *Identifier, *FunctionCall, *Index, *FieldAccess, *Array, *Map, *Row, *Cast, *Case, *ScalarSubquery:
		writeExpr(b, e, precPostfix)
	default:
		b.WriteByte('(')
		writeExpr(b, e, 0)
		b.WriteByte(')')
	}
}

// jsonAggCall returns the JSON_OBJECTAGG / JSON_ARRAYAGG syntax of the
// plain aggregate calls the parser makes of them (so that they print as
// they are written), or nil.
func jsonAggCall(x *FunctionCall) *JSONCall {
	if len(x.Name.Parts) != 1 || x.Distinct || x.Filter != nil || x.Over != nil || x.OverName != "" {
		return nil
	}
	j := &JSONCall{Pos: x.Pos, Args: x.Args}
	switch strings.ToUpper(x.Name.Parts[0]) {
	case "JSON_OBJECTAGG":
		j.Name = "JSON_OBJECTAGG"
	case "JSON_OBJECTAGG_ABSENT_ON_NULL":
		j.Name, j.OnNull = "JSON_OBJECTAGG", "ABSENT"
	case "JSON_ARRAYAGG_NULL_ON_NULL":
		j.Name, j.OnNull = "JSON_ARRAYAGG", "NULL"
	default:
		return nil
	}
	if j.Name == "JSON_OBJECTAGG" && len(x.Args) != 2 {
		return nil
	}
	return j
}
