package parser

import (
	"strings"

	"github.com/tablerun/tablerun/planner/ast"
)

// parseQuery parses [WITH ...] body [ORDER BY ...] [LIMIT|OFFSET|FETCH ...].
func (p *parser) parseQuery() (ast.Query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	pos := p.tok().pos
	if p.isKw("WITH") {
		w := &ast.With{Pos: p.advance().pos}
		if p.isKw("RECURSIVE") {
			return nil, unsupported(p.tok().pos, "WITH RECURSIVE")
		}
		for {
			cte := ast.CTE{Pos: p.tok().pos}
			var err error
			if cte.Name, err = p.ident(); err != nil {
				return nil, err
			}
			if p.isOp("(") {
				if cte.Columns, err = p.parenIdentList(); err != nil {
					return nil, err
				}
			}
			if err := p.expectKw("AS"); err != nil {
				return nil, err
			}
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			if cte.Query, err = p.parseQuery(); err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			w.CTEs = append(w.CTEs, cte)
			if !p.acceptOp(",") {
				break
			}
		}
		var err error
		if w.Body, err = p.parseQuery(); err != nil {
			return nil, err
		}
		return w, nil
	}
	body, err := p.parseSetOps()
	if err != nil {
		return nil, err
	}
	qe := &ast.QueryExpr{Pos: pos, Body: body}
	if p.acceptKw("ORDER") {
		if err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		if qe.OrderBy, err = p.orderItems(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("LIMIT") {
		if p.acceptKw("ALL") {
			qe.Limit = nil
		} else if qe.Limit, err = p.parseUnary(); err != nil {
			return nil, err
		}
		if p.acceptOp(",") {
			return nil, unsupported(p.toks[p.p-1].pos, "LIMIT start, count")
		}
	}
	if p.acceptKw("OFFSET") {
		if qe.Offset, err = p.parseUnary(); err != nil {
			return nil, err
		}
		if !p.acceptKw("ROWS") {
			p.acceptKw("ROW")
		}
	}
	if qe.Limit == nil && p.isKw("FETCH") {
		p.p++
		if !p.acceptKw("FIRST") && !p.acceptKw("NEXT") {
			return nil, p.errUnexpected(`"FIRST"`, `"NEXT"`)
		}
		if p.isKw("ROW") || p.isKw("ROWS") {
			qe.Limit = &ast.Literal{Pos: p.tok().pos, Kind: ast.IntegerLit, Text: "1"}
		} else if qe.Limit, err = p.parseUnary(); err != nil {
			return nil, err
		}
		if !p.acceptKw("ROWS") && !p.acceptKw("ROW") {
			return nil, p.errUnexpected(`"ROW"`, `"ROWS"`)
		}
		if err := p.expectKw("ONLY"); err != nil {
			return nil, err
		}
	}
	if qe.OrderBy == nil && qe.Limit == nil && qe.Offset == nil {
		return body, nil
	}
	return qe, nil
}

// orderItems parses expr [ASC|DESC] [NULLS FIRST|LAST] {, ...}.
func (p *parser) orderItems() ([]ast.OrderItem, error) {
	var out []ast.OrderItem
	for {
		it := ast.OrderItem{Pos: p.tok().pos}
		var err error
		if it.Expr, err = p.parseExpr(); err != nil {
			return nil, err
		}
		if p.acceptKw("DESC") {
			it.Desc = true
		} else {
			p.acceptKw("ASC")
		}
		if p.acceptKws("NULLS", "FIRST") {
			b := true
			it.NullsFirst = &b
		} else if p.acceptKws("NULLS", "LAST") {
			b := false
			it.NullsFirst = &b
		}
		out = append(out, it)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

// parseSetOps parses terms joined by UNION / EXCEPT (lowest) and INTERSECT.
func (p *parser) parseSetOps() (ast.Query, error) {
	left, err := p.parseIntersect()
	if err != nil {
		return nil, err
	}
	for p.isKw("UNION") || p.isKw("EXCEPT") || p.isKw("MINUS") {
		t := p.advance()
		op := ast.Union
		if t.upper != "UNION" {
			op = ast.Except
		}
		all := p.acceptKw("ALL")
		if !all {
			p.acceptKw("DISTINCT")
		}
		right, err := p.parseIntersect()
		if err != nil {
			return nil, err
		}
		left = &ast.SetOp{Pos: left.Position(), Op: op, All: all, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) parseIntersect() (ast.Query, error) {
	left, err := p.parseQueryPrimary()
	if err != nil {
		return nil, err
	}
	for p.acceptKw("INTERSECT") {
		all := p.acceptKw("ALL")
		if !all {
			p.acceptKw("DISTINCT")
		}
		right, err := p.parseQueryPrimary()
		if err != nil {
			return nil, err
		}
		left = &ast.SetOp{Pos: left.Position(), Op: ast.Intersect, All: all, Left: left, Right: right}
	}
	return left, nil
}

// parseQueryPrimary parses SELECT ..., VALUES ... or ( query ).
func (p *parser) parseQueryPrimary() (ast.Query, error) {
	switch {
	case p.isKw("SELECT"):
		return p.parseSelect()
	case p.isKw("VALUES"):
		return p.parseValues()
	case p.isOp("("):
		p.p++
		q, err := p.parseQuery()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return q, nil
	case p.isKw("TABLE"):
		return nil, unsupported(p.tok().pos, "explicit TABLE query")
	}
	return nil, p.errUnexpected(`"SELECT"`, `"VALUES"`, `"WITH"`, `"("`)
}

func (p *parser) parseValues() (*ast.Values, error) {
	v := &ast.Values{Pos: p.advance().pos}
	for {
		if p.isOp("(") {
			p.p++
			row, err := p.exprList(")")
			if err != nil {
				return nil, err
			}
			v.Rows = append(v.Rows, row)
		} else {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if r, ok := e.(*ast.Row); ok {
				v.Rows = append(v.Rows, r.Items)
			} else {
				v.Rows = append(v.Rows, []ast.Expr{e})
			}
		}
		if !p.acceptOp(",") {
			return v, nil
		}
	}
}

// aliasStop are non-reserved words that end a select item or table
// reference instead of being taken as an alias.
var aliasStop = map[string]bool{"TABLESAMPLE": true, "QUALIFY": true}

// canAlias reports whether the current token may be an alias without AS.
func (p *parser) canAlias() bool {
	t := p.tok()
	return isIdentTok(t) && !aliasStop[t.upper]
}

func (p *parser) parseSelect() (*ast.Select, error) {
	s := &ast.Select{Pos: p.advance().pos}
	var err error
	if p.at(tHint) {
		if s.Hints, err = p.parseHints(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("DISTINCT") {
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	if p.isKw("STREAM") && (p.isOpAt(1, "*") || (isIdentTok(p.peekAt(1)) && !p.isKwAt(1, "AS"))) {
		return nil, unsupported(p.tok().pos, "SELECT STREAM")
	}
	for {
		it, err := p.selectItem()
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, it)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("FROM") {
		if s.From, err = p.parseFrom(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WHERE") {
		if s.Where, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("GROUP") {
		if err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		if !p.acceptKw("ALL") {
			if p.isKw("DISTINCT") {
				return nil, unsupported(p.tok().pos, "GROUP BY DISTINCT")
			}
		}
		for {
			e, err := p.groupItem()
			if err != nil {
				return nil, err
			}
			// GROUP BY (a, b) groups by a and b.
			if r, ok := e.(*ast.Row); ok && !r.Explicit {
				s.GroupBy = append(s.GroupBy, r.Items...)
			} else {
				s.GroupBy = append(s.GroupBy, e)
			}
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKw("HAVING") {
		if s.Having, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WINDOW") {
		for {
			nw := ast.NamedWindow{Pos: p.tok().pos}
			if nw.Name, err = p.ident(); err != nil {
				return nil, err
			}
			if err := p.expectKw("AS"); err != nil {
				return nil, err
			}
			if nw.Spec, err = p.windowSpec(); err != nil {
				return nil, err
			}
			s.Windows = append(s.Windows, nw)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.isKw("QUALIFY") {
		return nil, unsupported(p.tok().pos, "QUALIFY")
	}
	return s, nil
}

// groupItem parses a GROUP BY element, including GROUPING SETS, ROLLUP
// and CUBE.
func (p *parser) groupItem() (ast.Expr, error) {
	pos := p.tok().pos
	var kind ast.GroupingSetsKind
	switch {
	case p.isKw("GROUPING") && p.isKwAt(1, "SETS"):
		p.p += 2
		kind = ast.GroupingSetsKindSets
	case p.isKw("ROLLUP") && p.isOpAt(1, "("):
		p.p++
		kind = ast.GroupingSetsKindRoll
	case p.isKw("CUBE") && p.isOpAt(1, "("):
		p.p++
		kind = ast.GroupingSetsKindCube
	case p.isOp("(") && p.isOpAt(1, ")"):
		p.p += 2
		return &ast.GroupingSets{Pos: pos, Kind: ast.GroupingSetsKindSets, Sets: [][]ast.Expr{{}}}, nil
	default:
		return p.parseExpr()
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	g := &ast.GroupingSets{Pos: pos, Kind: kind}
	for {
		if kind == ast.GroupingSetsKindSets && (p.isKw("ROLLUP") || p.isKw("CUBE") || p.isKw("GROUPING")) {
			return nil, unsupported(p.tok().pos, "nested grouping sets")
		}
		e, err := p.groupItem()
		if err != nil {
			return nil, err
		}
		switch x := e.(type) {
		case *ast.Row:
			g.Sets = append(g.Sets, x.Items)
		case *ast.GroupingSets:
			g.Sets = append(g.Sets, x.Sets...)
		default:
			g.Sets = append(g.Sets, []ast.Expr{e})
		}
		if p.acceptOp(")") {
			return g, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// selectItem parses *, t.*, or expr [[AS] alias].
func (p *parser) selectItem() (ast.SelectItem, error) {
	it := ast.SelectItem{Pos: p.tok().pos}
	if p.acceptOp("*") {
		it.Star = true
		return it, nil
	}
	// qualifier.* lookahead
	k := 0
	for isIdentTok(p.peekAt(k)) && p.isOpAt(k+1, ".") {
		k += 2
		if p.isOpAt(k, "*") {
			for i := 0; i < k; i += 2 {
				it.Qualifier = append(it.Qualifier, p.peekAt(i).text)
			}
			p.p += k + 1
			it.Star = true
			return it, nil
		}
	}
	var err error
	if it.Expr, err = p.parseExpr(); err != nil {
		return it, err
	}
	if p.acceptKw("AS") {
		if p.at(tString) {
			it.Alias = p.advance().text
			return it, nil
		}
		it.Alias, err = p.ident()
	} else if p.canAlias() {
		t := p.advance()
		p.noteName(t)
		it.Alias = t.text
	}
	return it, err
}

// alias parses [AS] alias [(cols)].
func (p *parser) alias() (string, []string, error) {
	var name string
	var err error
	if p.acceptKw("AS") {
		if name, err = p.ident(); err != nil {
			return "", nil, err
		}
	} else if p.canAlias() {
		t := p.advance()
		p.noteName(t)
		name = t.text
	} else {
		return "", nil, nil
	}
	if p.isOp("(") {
		cols, err := p.parenIdentList()
		return name, cols, err
	}
	return name, nil, nil
}

// parseFrom parses table references separated by commas (cross joins).
func (p *parser) parseFrom() (ast.TableRef, error) {
	left, err := p.parseJoined()
	if err != nil {
		return nil, err
	}
	for p.isOp(",") {
		pos := p.advance().pos
		right, err := p.parseJoined()
		if err != nil {
			return nil, err
		}
		left = &ast.Join{Pos: pos, Kind: ast.CrossJoin, Left: left, Right: right}
	}
	return left, nil
}

// parseJoined parses a table primary followed by JOIN clauses.
func (p *parser) parseJoined() (ast.TableRef, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	left, err := p.parseTablePrimary()
	if err != nil {
		return nil, err
	}
	for {
		pos := p.tok().pos
		j := &ast.Join{Pos: pos, Left: left}
		j.Natural = p.acceptKw("NATURAL")
		switch {
		case p.acceptKw("JOIN"):
			j.Kind = ast.InnerJoin
		case p.acceptKws("INNER", "JOIN"):
			j.Kind = ast.InnerJoin
		case p.acceptKw("LEFT"):
			j.Kind = ast.LeftJoin
		case p.acceptKw("RIGHT"):
			j.Kind = ast.RightJoin
		case p.acceptKw("FULL"):
			j.Kind = ast.FullJoin
		case p.acceptKws("CROSS", "JOIN"):
			j.Kind = ast.CrossJoin
		case p.isKw("CROSS") || p.isKw("OUTER") && p.isKwAt(1, "APPLY"):
			return nil, unsupported(pos, "APPLY")
		default:
			if j.Natural {
				return nil, p.errUnexpected(`"JOIN"`)
			}
			return left, nil
		}
		if j.Kind == ast.LeftJoin || j.Kind == ast.RightJoin || j.Kind == ast.FullJoin {
			if p.isKw("SEMI") || p.isKw("ANTI") {
				return nil, unsupported(p.tok().pos, "SEMI/ANTI JOIN")
			}
			p.acceptKw("OUTER")
			if err := p.expectKw("JOIN"); err != nil {
				return nil, err
			}
		}
		if j.Right, err = p.parseTablePrimary(); err != nil {
			return nil, err
		}
		switch {
		case p.acceptKw("ON"):
			if j.Natural || j.Kind == ast.CrossJoin {
				return nil, p.errUnexpected()
			}
			if j.On, err = p.parseExpr(); err != nil {
				return nil, err
			}
		case p.acceptKw("USING"):
			if j.Natural || j.Kind == ast.CrossJoin {
				return nil, p.errUnexpected()
			}
			if j.Using, err = p.parenIdentList(); err != nil {
				return nil, err
			}
		default:
			if j.Kind != ast.CrossJoin && !j.Natural {
				return nil, p.errUnexpected(`"ON"`, `"USING"`)
			}
		}
		left = j
	}
}

// parseTablePrimary parses one FROM item without joins, including a
// trailing MATCH_RECOGNIZE clause.
func (p *parser) parseTablePrimary() (ast.TableRef, error) {
	r, err := p.parseTableItem()
	if err != nil {
		return nil, err
	}
	if p.isKw("MATCH_RECOGNIZE") {
		return p.parseMatchRecognize(r)
	}
	return r, nil
}

// parseTableItem parses a table name, subquery, table function or UNNEST.
func (p *parser) parseTableItem() (ast.TableRef, error) {
	pos := p.tok().pos
	lateral := p.acceptKw("LATERAL")
	switch {
	case p.isKw("TABLE") && p.isOpAt(1, "("):
		p.p += 2
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		call, ok := e.(*ast.FunctionCall)
		if !ok || call.NoParens {
			return nil, newError(e.Position(), "Encountered \"TABLE\" at line %d, column %d. TABLE(...) expects a function call.", pos.Line, pos.Col)
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		r := &ast.TableFunctionRef{Pos: pos, Lateral: lateral, Call: call}
		r.Alias, r.ColumnAliases, err = p.alias()
		return r, err
	case p.isKw("UNNEST"):
		if lateral {
			return nil, p.errUnexpected(`"TABLE"`, `"("`)
		}
		p.p++
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		exprs, err := p.exprList(")")
		if err != nil {
			return nil, err
		}
		r := &ast.UnnestRef{Pos: pos, Exprs: exprs}
		r.WithOrdinality = p.acceptKws("WITH", "ORDINALITY")
		r.Alias, r.ColumnAliases, err = p.alias()
		return r, err
	case p.isOp("("):
		if p.startsQuery(1) {
			p.p++
			q, err := p.parseQuery()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			alias, cols, err := p.alias()
			if err != nil {
				return nil, err
			}
			if v, ok := q.(*ast.Values); ok && !lateral {
				return &ast.ValuesRef{Pos: pos, Values: v, Alias: alias, ColumnAliases: cols}, nil
			}
			return &ast.SubqueryRef{Pos: pos, Lateral: lateral, Query: q, Alias: alias, ColumnAliases: cols}, nil
		}
		if lateral {
			return nil, p.errUnexpected(`"SELECT"`)
		}
		p.p++
		r, err := p.parseJoinedFrom()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return r, nil
	}
	if lateral {
		return nil, p.errUnexpected(`"TABLE"`, `"("`)
	}
	t := &ast.TableName{Pos: pos}
	var err error
	if t.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.at(tHint) {
		if t.Hints, err = p.parseHints(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("FOR") {
		if err := p.expectKw("SYSTEM_TIME", "AS", "OF"); err != nil {
			return nil, err
		}
		if t.ForSystemTimeAsOf, err = p.parseAdditive(); err != nil {
			return nil, err
		}
	}
	if t.Alias, t.ColumnAliases, err = p.alias(); err != nil {
		return nil, err
	}
	if p.isKw("TABLESAMPLE") {
		return nil, unsupported(p.tok().pos, "TABLESAMPLE")
	}
	return t, nil
}

// parseJoinedFrom parses a parenthesised join tree.
func (p *parser) parseJoinedFrom() (ast.TableRef, error) {
	return p.parseFrom()
}

// parseHints parses one or more /*+ ... */ hint tokens.
func (p *parser) parseHints() ([]ast.Hint, error) {
	var out []ast.Hint
	for p.at(tHint) {
		t := p.advance()
		hs, err := parseHintBody(t)
		if err != nil {
			return nil, err
		}
		out = append(out, hs...)
	}
	return out, nil
}

// parseHintBody parses NAME [( args )] {[,] NAME [( args )]} of a hint
// comment; positions are mapped back to the enclosing text.
func parseHintBody(t token) ([]ast.Hint, error) {
	// Pad the body so that positions line up with the original text:
	// the body starts 3 characters after the hint token.
	pad := strings.Repeat("\n", t.pos.Line-1) + strings.Repeat(" ", t.pos.Col-1+3)
	sub, err := newParser(pad + t.text)
	if err != nil {
		return nil, err
	}
	var out []ast.Hint
	for !sub.at(tEOF) {
		nt := sub.tok()
		if nt.kind != tIdent && nt.kind != tQIdent {
			return nil, sub.errUnexpected("<IDENTIFIER>")
		}
		sub.p++
		h := ast.Hint{Pos: nt.pos, Name: strings.ToUpper(nt.text)}
		if sub.acceptOp("(") {
			for !sub.acceptOp(")") {
				a := sub.tok()
				switch {
				case a.kind == tString && sub.isOpAt(1, "="):
					sub.p += 2
					v := sub.tok()
					if v.kind != tString {
						return nil, sub.errUnexpected("<QUOTED_STRING>")
					}
					sub.p++
					h.Options = append(h.Options, ast.Option{Pos: a.pos, Key: a.text, Value: v.text})
				case a.kind == tString || a.kind == tIdent || a.kind == tQIdent || a.kind == tInt:
					sub.p++
					name := a.text
					for sub.isOp(".") && (sub.peekAt(1).kind == tIdent || sub.peekAt(1).kind == tQIdent) {
						sub.p++
						name += "." + sub.advance().text
					}
					if sub.isOp("=") {
						sub.p++
						v := sub.tok()
						if v.kind != tString && v.kind != tIdent && v.kind != tQIdent && v.kind != tInt {
							return nil, sub.errUnexpected("<QUOTED_STRING>")
						}
						sub.p++
						h.Options = append(h.Options, ast.Option{Pos: a.pos, Key: name, Value: v.text})
					} else {
						h.Args = append(h.Args, name)
					}
				default:
					return nil, sub.errUnexpected("<QUOTED_STRING>", "<IDENTIFIER>")
				}
				if !sub.acceptOp(",") && !sub.isOp(")") {
					return nil, sub.errUnexpected(`","`, `")"`)
				}
			}
		}
		out = append(out, h)
		sub.acceptOp(",")
	}
	return out, nil
}
