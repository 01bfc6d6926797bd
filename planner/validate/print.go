package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/planner/ast"
)

// ExpandQuery prints q back as SQL with every catalog table reference fully
// qualified and back-quoted (`cat`.`db`.`t`), as Flink stores a view's
// expanded query. CTE names stay unqualified.
func (v *Validator) ExpandQuery(q ast.Query) (string, error) {
	p := &printer{v: v}
	return p.query(q)
}

type printer struct {
	v    *Validator
	ctes []map[string]bool
}

func (p *printer) isCTE(name string) bool {
	for i := len(p.ctes) - 1; i >= 0; i-- {
		if p.ctes[i][name] {
			return true
		}
	}
	return false
}

func (p *printer) query(q ast.Query) (string, error) {
	switch x := q.(type) {
	case *ast.Select:
		return p.sel(x)
	case *ast.Values:
		rows := make([]string, len(x.Rows))
		for i, r := range x.Rows {
			items, err := p.exprs(r)
			if err != nil {
				return "", err
			}
			rows[i] = "(" + items + ")"
		}
		return "VALUES " + strings.Join(rows, ",\n"), nil
	case *ast.SetOp:
		l, err := p.operand(x.Left)
		if err != nil {
			return "", err
		}
		r, err := p.operand(x.Right)
		if err != nil {
			return "", err
		}
		op := string(x.Op)
		if x.All {
			op += " ALL"
		}
		return l + "\n" + op + "\n" + r, nil
	case *ast.With:
		names := map[string]bool{}
		p.ctes = append(p.ctes, names)
		defer func() { p.ctes = p.ctes[:len(p.ctes)-1] }()
		parts := make([]string, len(x.CTEs))
		for i, c := range x.CTEs {
			body, err := p.query(c.Query)
			if err != nil {
				return "", err
			}
			s := ast.QuoteIdent(c.Name)
			if len(c.Columns) > 0 {
				s += " (" + quoteList(c.Columns) + ")"
			}
			parts[i] = s + " AS (" + body + ")"
			names[c.Name] = true
		}
		body, err := p.query(x.Body)
		if err != nil {
			return "", err
		}
		return "WITH " + strings.Join(parts, ", ") + "\n" + body, nil
	case *ast.QueryExpr:
		body, err := p.query(x.Body)
		if err != nil {
			return "", err
		}
		if _, ok := x.Body.(*ast.SetOp); ok && len(x.OrderBy) > 0 {
			body = "(" + body + ")"
		}
		if len(x.OrderBy) > 0 {
			items := make([]string, len(x.OrderBy))
			for i, o := range x.OrderBy {
				e, err := p.expr(o.Expr)
				if err != nil {
					return "", err
				}
				if o.Desc {
					e += " DESC"
				}
				if o.NullsFirst != nil {
					if *o.NullsFirst {
						e += " NULLS FIRST"
					} else {
						e += " NULLS LAST"
					}
				}
				items[i] = e
			}
			body += "\nORDER BY " + strings.Join(items, ", ")
		}
		if x.Limit != nil {
			body += "\nLIMIT " + ast.Format(x.Limit)
		}
		if x.Offset != nil {
			body += "\nOFFSET " + ast.Format(x.Offset)
		}
		return body, nil
	}
	return "", fmt.Errorf("cannot print query %T", q)
}

func (p *printer) operand(q ast.Query) (string, error) {
	s, err := p.query(q)
	if err != nil {
		return "", err
	}
	switch q.(type) {
	case *ast.Select, *ast.Values:
		return s, nil
	}
	return "(" + s + ")", nil
}

func quoteList(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = ast.QuoteIdent(n)
	}
	return strings.Join(parts, ", ")
}

func (p *printer) sel(s *ast.Select) (string, error) {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.Distinct {
		b.WriteString("DISTINCT ")
	}
	for i, it := range s.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		if it.Star {
			if len(it.Qualifier) > 0 {
				b.WriteString(quoteParts(it.Qualifier) + ".")
			}
			b.WriteString("*")
			continue
		}
		e, err := p.expr(it.Expr)
		if err != nil {
			return "", err
		}
		b.WriteString(e)
		if it.Alias != "" {
			b.WriteString(" AS " + ast.QuoteIdent(it.Alias))
		}
	}
	if s.From != nil {
		f, err := p.from(s.From)
		if err != nil {
			return "", err
		}
		b.WriteString("\nFROM " + f)
	}
	if s.Where != nil {
		e, err := p.expr(s.Where)
		if err != nil {
			return "", err
		}
		b.WriteString("\nWHERE " + e)
	}
	if len(s.GroupBy) > 0 {
		e, err := p.exprs(s.GroupBy)
		if err != nil {
			return "", err
		}
		b.WriteString("\nGROUP BY " + e)
	}
	if s.Having != nil {
		e, err := p.expr(s.Having)
		if err != nil {
			return "", err
		}
		b.WriteString("\nHAVING " + e)
	}
	if len(s.Windows) > 0 {
		return "", unsupported("WINDOW clause")
	}
	return b.String(), nil
}

func quoteParts(parts []string) string {
	q := make([]string, len(parts))
	for i, s := range parts {
		q[i] = ast.QuoteIdent(s)
	}
	return strings.Join(q, ".")
}

func aliasText(alias string, cols []string) string {
	s := ""
	if alias != "" {
		s = " AS " + ast.QuoteIdent(alias)
	}
	if len(cols) > 0 {
		s += " (" + quoteList(cols) + ")"
	}
	return s
}

func (p *printer) from(r ast.TableRef) (string, error) {
	switch x := r.(type) {
	case *ast.TableName:
		var name string
		if len(x.Name.Parts) == 1 && p.isCTE(x.Name.Parts[0]) {
			name = ast.QuoteIdent(x.Name.Parts[0])
		} else {
			id, err := p.v.cat.Qualify(x.Name.Parts)
			if err != nil {
				return "", err
			}
			name = id.String()
		}
		if x.ForSystemTimeAsOf != nil {
			return "", unsupported("FOR SYSTEM_TIME AS OF")
		}
		alias := x.Alias
		if alias == "" && len(x.ColumnAliases) > 0 {
			alias = x.Name.Last()
		}
		return name + aliasText(alias, x.ColumnAliases), nil
	case *ast.SubqueryRef:
		if x.Lateral {
			return "", unsupported("LATERAL subqueries")
		}
		q, err := p.query(x.Query)
		if err != nil {
			return "", err
		}
		return "(" + q + ")" + aliasText(x.Alias, x.ColumnAliases), nil
	case *ast.ValuesRef:
		q, err := p.query(x.Values)
		if err != nil {
			return "", err
		}
		return "(" + q + ")" + aliasText(x.Alias, x.ColumnAliases), nil
	case *ast.Join:
		l, err := p.from(x.Left)
		if err != nil {
			return "", err
		}
		r, err := p.from(x.Right)
		if err != nil {
			return "", err
		}
		if _, ok := x.Right.(*ast.Join); ok {
			r = "(" + r + ")"
		}
		kw := string(x.Kind) + " JOIN"
		if x.Kind == ast.LeftJoin || x.Kind == ast.RightJoin || x.Kind == ast.FullJoin {
			kw = string(x.Kind) + " JOIN"
		}
		if x.Natural {
			kw = "NATURAL " + kw
		}
		s := l + "\n" + kw + " " + r
		if x.On != nil {
			e, err := p.expr(x.On)
			if err != nil {
				return "", err
			}
			s += " ON " + e
		} else if len(x.Using) > 0 {
			s += " USING (" + quoteList(x.Using) + ")"
		}
		return s, nil
	case *ast.MatchRecognize:
		in, err := p.from(x.Input)
		if err != nil {
			return "", err
		}
		c := *x
		c.Input = nil // the clause as written after the expanded input
		return in + ast.FormatTableRef(&c), nil
	}
	return "", unsupported("printing FROM item %T", r)
}

func (p *printer) exprs(es []ast.Expr) (string, error) {
	parts := make([]string, len(es))
	for i, e := range es {
		s, err := p.expr(e)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return strings.Join(parts, ", "), nil
}

// expr prints an expression; expressions holding subqueries are printed
// structurally (fully parenthesised), others with ast.Format.
func (p *printer) expr(e ast.Expr) (string, error) {
	if e == nil {
		return "", nil
	}
	if !containsSubquery(e) {
		return ast.Format(e), nil
	}
	sub := func(q ast.Query) (string, error) {
		s, err := p.query(q)
		if err != nil {
			return "", err
		}
		return "(" + s + ")", nil
	}
	switch x := e.(type) {
	case *ast.ScalarSubquery:
		return sub(x.Query)
	case *ast.Exists:
		s, err := sub(x.Query)
		return "EXISTS " + s, err
	case *ast.InSubquery:
		l, err := p.expr(x.Expr)
		if err != nil {
			return "", err
		}
		s, err := sub(x.Query)
		if err != nil {
			return "", err
		}
		not := ""
		if x.Not {
			not = "NOT "
		}
		return "(" + l + ") " + not + "IN " + s, nil
	case *ast.Unary:
		s, err := p.expr(x.Expr)
		if err != nil {
			return "", err
		}
		if x.Op == "NOT" {
			return "NOT (" + s + ")", nil
		}
		return x.Op + "(" + s + ")", nil
	case *ast.Binary:
		l, err := p.expr(x.Left)
		if err != nil {
			return "", err
		}
		r, err := p.expr(x.Right)
		if err != nil {
			return "", err
		}
		return "(" + l + ") " + x.Op + " (" + r + ")", nil
	case *ast.Is:
		s, err := p.expr(x.Expr)
		if err != nil {
			return "", err
		}
		not := ""
		if x.Not {
			not = "NOT "
		}
		return "(" + s + ") IS " + not + x.Test, nil
	case *ast.Cast:
		s, err := p.expr(x.Expr)
		if err != nil {
			return "", err
		}
		fn := "CAST"
		if x.Try {
			fn = "TRY_CAST"
		}
		return fn + "(" + s + " AS " + x.Type.String() + ")", nil
	case *ast.FunctionCall:
		if x.Star || x.Filter != nil || x.Over != nil || x.OverName != "" {
			break
		}
		args, err := p.exprs(x.Args)
		if err != nil {
			return "", err
		}
		d := ""
		if x.Distinct {
			d = "DISTINCT "
		}
		name := strings.ToUpper(x.Name.Last())
		if len(x.Name.Parts) > 1 {
			name = x.Name.String()
		}
		return name + "(" + d + args + ")", nil
	case *ast.Case:
		var b strings.Builder
		b.WriteString("CASE")
		if x.Operand != nil {
			s, err := p.expr(x.Operand)
			if err != nil {
				return "", err
			}
			b.WriteString(" " + s)
		}
		for _, w := range x.Whens {
			c, err := p.expr(w.Cond)
			if err != nil {
				return "", err
			}
			r, err := p.expr(w.Result)
			if err != nil {
				return "", err
			}
			b.WriteString(" WHEN " + c + " THEN " + r)
		}
		if x.Else != nil {
			s, err := p.expr(x.Else)
			if err != nil {
				return "", err
			}
			b.WriteString(" ELSE " + s)
		}
		b.WriteString(" END")
		return b.String(), nil
	}
	return "", unsupported("a subquery inside %s in a view", ast.Format(e))
}
