package parser

import (
	"strings"

	"github.com/tablerun/tablerun/planner/ast"
)

// parseExpr parses a full expression (lowest precedence: OR).
func (p *parser) parseExpr() (ast.Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.parseOr()
}

func (p *parser) parseOr() (ast.Expr, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.isKw("OR") {
		p.p++
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		left = &ast.Binary{Pos: left.Position(), Op: "OR", Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) parseAnd() (ast.Expr, error) {
	left, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.isKw("AND") {
		p.p++
		right, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		left = &ast.Binary{Pos: left.Position(), Op: "AND", Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) parseNot() (ast.Expr, error) {
	if p.isKw("NOT") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		pos := p.advance().pos
		e, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &ast.Unary{Pos: pos, Op: "NOT", Expr: e}, nil
	}
	return p.parsePredicate()
}

var comparisonOps = map[string]string{"=": "=", "==": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

// parsePredicate parses comparisons, IS, BETWEEN, LIKE and IN.
func (p *parser) parsePredicate() (ast.Expr, error) {
	left, err := p.parseAdditive()
	if err != nil {
		return nil, err
	}
	for {
		t := p.tok()
		if t.kind == tOp {
			op, ok := comparisonOps[t.text]
			if !ok {
				return left, nil
			}
			p.p++
			if p.isKw("ANY") || p.isKw("SOME") || (p.isKw("ALL") && p.isOpAt(1, "(")) {
				return nil, unsupported(p.tok().pos, "quantified comparison "+p.tok().upper)
			}
			right, err := p.parseAdditive()
			if err != nil {
				return nil, err
			}
			left = &ast.Binary{Pos: left.Position(), Op: op, Left: left, Right: right}
			continue
		}
		if t.kind != tIdent {
			return left, nil
		}
		pos := left.Position()
		switch t.upper {
		case "IS":
			p.p++
			not := p.acceptKw("NOT")
			switch {
			case p.acceptKw("NULL"):
				left = &ast.Is{Pos: pos, Expr: left, Not: not, Test: "NULL"}
			case p.acceptKw("TRUE"):
				left = &ast.Is{Pos: pos, Expr: left, Not: not, Test: "TRUE"}
			case p.acceptKw("FALSE"):
				left = &ast.Is{Pos: pos, Expr: left, Not: not, Test: "FALSE"}
			case p.acceptKw("UNKNOWN"):
				left = &ast.Is{Pos: pos, Expr: left, Not: not, Test: "UNKNOWN"}
			case p.acceptKws("DISTINCT", "FROM"):
				right, err := p.parseAdditive()
				if err != nil {
					return nil, err
				}
				left = &ast.IsDistinctFrom{Pos: pos, Left: left, Right: right, Not: not}
			case p.acceptKw("JSON"):
				test := "JSON"
				for _, k := range []string{"VALUE", "SCALAR", "ARRAY", "OBJECT"} {
					if p.acceptKw(k) {
						test += " " + k
						break
					}
				}
				left = &ast.Is{Pos: pos, Expr: left, Not: not, Test: test}
			default:
				return nil, p.errUnexpected(`"NULL"`, `"TRUE"`, `"FALSE"`, `"UNKNOWN"`, `"DISTINCT"`)
			}
			continue
		case "NOT":
			n := p.peekAt(1)
			if n.kind != tIdent || (n.upper != "BETWEEN" && n.upper != "LIKE" && n.upper != "ILIKE" && n.upper != "SIMILAR" && n.upper != "IN") {
				return left, nil
			}
		case "OVERLAPS":
			// (t1, t2) OVERLAPS (t3, t4): the validator checks the rows
			p.p++
			right, err := p.parseAdditive()
			if err != nil {
				return nil, err
			}
			left = &ast.Binary{Pos: pos, Op: "OVERLAPS", Left: left, Right: right}
			continue
		case "BETWEEN", "LIKE", "ILIKE", "SIMILAR", "IN":
		default:
			return left, nil
		}
		not := p.acceptKw("NOT")
		kw := p.advance().upper
		switch kw {
		case "BETWEEN":
			b := &ast.Between{Pos: pos, Expr: left, Not: not}
			if p.acceptKw("SYMMETRIC") {
				b.Symmetric = true
			} else {
				p.acceptKw("ASYMMETRIC")
			}
			if b.Low, err = p.parseAdditive(); err != nil {
				return nil, err
			}
			if err := p.expectKw("AND"); err != nil {
				return nil, err
			}
			if b.High, err = p.parseAdditive(); err != nil {
				return nil, err
			}
			left = b
		case "LIKE", "ILIKE", "SIMILAR":
			op := kw
			if kw == "SIMILAR" {
				if err := p.expectKw("TO"); err != nil {
					return nil, err
				}
				op = "SIMILAR TO"
			}
			l := &ast.Like{Pos: pos, Expr: left, Not: not, Op: op}
			if l.Pattern, err = p.parseAdditive(); err != nil {
				return nil, err
			}
			if p.acceptKw("ESCAPE") {
				if l.Escape, err = p.parseAdditive(); err != nil {
					return nil, err
				}
			}
			left = l
		case "IN":
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			if p.startsQuery(0) {
				q, err := p.parseQuery()
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
				left = &ast.InSubquery{Pos: pos, Expr: left, Not: not, Query: q}
			} else {
				list, err := p.exprList(")")
				if err != nil {
					return nil, err
				}
				left = &ast.In{Pos: pos, Expr: left, Not: not, List: list}
			}
		}
	}
}

func (p *parser) parseAdditive() (ast.Expr, error) {
	left, err := p.parseMultiplicative()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") || p.isOp("||") {
		op := p.advance().text
		right, err := p.parseMultiplicative()
		if err != nil {
			return nil, err
		}
		left = &ast.Binary{Pos: left.Position(), Op: op, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) parseMultiplicative() (ast.Expr, error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("%") {
		op := p.advance().text
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		left = &ast.Binary{Pos: left.Position(), Op: op, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) parseUnary() (ast.Expr, error) {
	if p.isOp("-") || p.isOp("+") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		t := p.advance()
		e, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return &ast.Unary{Pos: t.pos, Op: t.text, Expr: e}, nil
	}
	return p.parsePostfix()
}

// parsePostfix parses a primary followed by [index] and .field accesses.
func (p *parser) parsePostfix() (ast.Expr, error) {
	e, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.isOp("["):
			p.p++
			idx, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			e = &ast.Index{Pos: e.Position(), Expr: e, Index: idx}
		case p.isOp(".") && (p.peekAt(1).kind == tIdent || p.peekAt(1).kind == tQIdent):
			p.p++
			t := p.advance()
			p.noteName(t)
			e = &ast.FieldAccess{Pos: e.Position(), Expr: e, Field: t.text}
		default:
			return e, nil
		}
	}
}

// exprList parses expr {, expr} close; an empty list is allowed.
func (p *parser) exprList(close string) ([]ast.Expr, error) {
	var out []ast.Expr
	if p.acceptOp(close) {
		return out, nil
	}
	for {
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if p.acceptOp(close) {
			return out, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// niladic functions callable without parentheses.
var niladic = map[string]bool{
	"CURRENT_TIMESTAMP": true, "CURRENT_DATE": true, "CURRENT_TIME": true,
	"LOCALTIMESTAMP": true, "LOCALTIME": true, "CURRENT_ROW_TIMESTAMP": true,
	"CURRENT_USER": true, "SESSION_USER": true, "USER": true, "CURRENT_CATALOG": true,
	"CURRENT_DATABASE": false,
}

// keywordFuncs are reserved words that may still name a function when
// followed by '('.
var keywordFuncs = map[string]bool{"LEFT": true, "RIGHT": true, "INSERT": true}

func (p *parser) parsePrimary() (ast.Expr, error) {
	t := p.tok()
	switch t.kind {
	case tInt:
		p.p++
		return &ast.Literal{Pos: t.pos, Kind: ast.IntegerLit, Text: t.text}, nil
	case tDecimal:
		p.p++
		return &ast.Literal{Pos: t.pos, Kind: ast.DecimalLit, Text: t.text}, nil
	case tApprox:
		p.p++
		return &ast.Literal{Pos: t.pos, Kind: ast.ApproxLit, Text: t.text}, nil
	case tString:
		p.p++
		text := t.text
		// Adjacent literals ('a' 'b') are concatenated.
		for p.at(tString) {
			text += p.advance().text
		}
		return &ast.Literal{Pos: t.pos, Kind: ast.StringLit, Text: text}, nil
	case tBinary:
		p.p++
		for _, c := range t.text {
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return nil, newError(t.pos, "Binary literal string must contain only characters '0' - '9', 'A' - 'F' (at line %d, column %d)", t.pos.Line, t.pos.Col)
			}
		}
		if len(t.text)%2 != 0 {
			return nil, newError(t.pos, "Binary literal string must contain an even number of hexits (at line %d, column %d)", t.pos.Line, t.pos.Col)
		}
		return &ast.Literal{Pos: t.pos, Kind: ast.BinaryLit, Text: t.text}, nil
	case tQIdent:
		return p.parseNameOrCall()
	case tOp:
		switch t.text {
		case "(":
			if p.startsQuery(1) {
				p.p++
				q, err := p.parseQuery()
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
				return &ast.ScalarSubquery{Pos: t.pos, Query: q}, nil
			}
			p.p++
			list, err := p.exprList(")")
			if err != nil {
				return nil, err
			}
			switch len(list) {
			case 0:
				p.p--
				return nil, p.errUnexpected()
			case 1:
				return list[0], nil
			}
			return &ast.Row{Pos: t.pos, Items: list}, nil
		case "?":
			return nil, unsupported(t.pos, "dynamic parameter ?")
		}
		return nil, p.errUnexpected("<IDENTIFIER>", "<LITERAL>")
	case tIdent:
	default:
		return nil, p.errUnexpected("<IDENTIFIER>", "<LITERAL>")
	}
	next := p.peekAt(1)
	nextOpen := next.kind == tOp && next.text == "("
	switch t.upper {
	case "NULL":
		p.p++
		return &ast.Literal{Pos: t.pos, Kind: ast.NullLit, Text: "NULL"}, nil
	case "TRUE", "FALSE":
		p.p++
		return &ast.Literal{Pos: t.pos, Kind: ast.BoolLit, Text: t.upper}, nil
	case "UNKNOWN":
		p.p++
		return &ast.Literal{Pos: t.pos, Kind: ast.NullLit, Text: "NULL"}, nil
	case "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ":
		if t.upper == "TIMESTAMP" && p.isKwAt(1, "WITH") && p.isKwAt(2, "LOCAL") && p.isKwAt(3, "TIME") && p.isKwAt(4, "ZONE") && p.peekAt(5).kind == tString {
			p.p += 6
			return &ast.Literal{Pos: t.pos, Kind: ast.TimestampLTZLit, Text: p.toks[p.p-1].text}, nil
		}
		if next.kind == tString {
			p.p += 2
			kind := map[string]ast.LiteralKind{"DATE": ast.DateLit, "TIME": ast.TimeLit, "TIMESTAMP": ast.TimestampLit, "TIMESTAMP_LTZ": ast.TimestampLTZLit}[t.upper]
			return &ast.Literal{Pos: t.pos, Kind: kind, Text: next.text}, nil
		}
	case "INTERVAL":
		return p.parseInterval()
	case "CASE":
		return p.parseCase()
	case "CAST", "TRY_CAST":
		if nextOpen {
			return p.parseCast()
		}
	case "EXISTS":
		p.p++
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		q, err := p.parseQuery()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return &ast.Exists{Pos: t.pos, Query: q}, nil
	case "ROW":
		if nextOpen {
			p.p += 2
			list, err := p.exprList(")")
			if err != nil {
				return nil, err
			}
			return &ast.Row{Pos: t.pos, Items: list, Explicit: true}, nil
		}
	case "ARRAY", "MAP":
		if next.kind == tOp && next.text == "[" {
			p.p += 2
			list, err := p.exprList("]")
			if err != nil {
				return nil, err
			}
			if t.upper == "ARRAY" {
				return &ast.Array{Pos: t.pos, Items: list}, nil
			}
			if len(list)%2 != 0 {
				return nil, newError(t.pos, "MAP constructor at line %d, column %d needs an even number of arguments.", t.pos.Line, t.pos.Col)
			}
			return &ast.Map{Pos: t.pos, Items: list}, nil
		}
		if nextOpen && p.startsQuery(2) {
			return nil, unsupported(t.pos, t.upper+" query constructor")
		}
	case "MULTISET":
		if next.kind == tOp && (next.text == "[" || next.text == "(") {
			return nil, unsupported(t.pos, "MULTISET constructor")
		}
	case "EXTRACT", "POSITION", "TRIM", "SUBSTRING", "OVERLAY", "TIMESTAMPADD", "TIMESTAMPDIFF", "CEIL", "CEILING", "FLOOR":
		if nextOpen {
			return p.parseSpecialCall()
		}
	case "DESCRIPTOR":
		if nextOpen {
			p.p += 2
			d := &ast.Descriptor{Pos: t.pos}
			var err error
			if d.Columns, err = p.identList(); err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return d, nil
		}
	case "NOT":
		return p.parseNot()
	case "JSON_EXISTS", "JSON_VALUE", "JSON_QUERY", "JSON_OBJECT", "JSON_ARRAY", "JSON_OBJECTAGG", "JSON_ARRAYAGG":
		if nextOpen {
			return p.parseJSONCall()
		}
	}
	if nextOpen && keywordFuncs[t.upper] {
		p.p++
		return p.parseCallArgs(t.pos, ast.ObjectName{Parts: []string{t.text}})
	}
	if b, ok := niladic[t.upper]; ok && b {
		p.p++
		if p.isOp("(") && p.isOpAt(1, ")") {
			p.p += 2
			return p.callSuffix(&ast.FunctionCall{Pos: t.pos, Name: ast.ObjectName{Parts: []string{t.upper}}})
		}
		return &ast.FunctionCall{Pos: t.pos, Name: ast.ObjectName{Parts: []string{t.upper}}, NoParens: true}, nil
	}
	if reserved[t.upper] {
		return nil, p.errUnexpected("<IDENTIFIER>", "<LITERAL>")
	}
	return p.parseNameOrCall()
}

// parseNameOrCall parses a dotted identifier, optionally followed by a
// call's argument list.
func (p *parser) parseNameOrCall() (ast.Expr, error) {
	pos := p.tok().pos
	toks := []token{p.advance()}
	for p.isOp(".") && isIdentTok(p.peekAt(1)) {
		p.p++
		toks = append(toks, p.advance())
	}
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = t.text
	}
	if p.isOp("(") {
		return p.parseCallArgs(pos, ast.ObjectName{Parts: parts})
	}
	for _, t := range toks { // a column (or table) name, not a function's
		p.noteName(t)
	}
	return &ast.Identifier{Pos: pos, Parts: parts}, nil
}

// parseCallArgs parses ( [DISTINCT|ALL] args | * ) and the call suffix.
func (p *parser) parseCallArgs(pos ast.Pos, name ast.ObjectName) (ast.Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.p++ // (
	f := &ast.FunctionCall{Pos: pos, Name: name}
	if p.isOp("*") && p.isOpAt(1, ")") {
		p.p += 2
		f.Star = true
		return p.callSuffix(f)
	}
	if p.acceptKw("DISTINCT") {
		f.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	if !p.acceptOp(")") {
		for {
			a, err := p.callArg()
			if err != nil {
				return nil, err
			}
			f.Args = append(f.Args, a)
			if p.acceptOp(")") {
				break
			}
			if t := p.tok(); t.kind == tIdent && specialArgWords[t.upper] {
				return nil, unsupported(p.tok().pos, "special function argument syntax "+p.tok().upper)
			}
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
	}
	return p.callSuffix(f)
}

// specialArgWords start keyword-style clauses inside calls (JSON_VALUE's
// RETURNING / DEFAULT ... ON EMPTY, LISTAGG ... ORDER BY, ...), which are
// not supported yet.
var specialArgWords = map[string]bool{
	"ORDER": true, "NULL": true, "ABSENT": true, "RETURNING": true, "ON": true, "SEPARATOR": true,
	"DEFAULT": true, "ERROR": true, "EMPTY": true, "WITH": true, "WITHOUT": true, "FORMAT": true,
	"KEY": true, "VALUE": true, "IGNORE": true, "RESPECT": true, "TRUE": true, "FALSE": true, "UNKNOWN": true,
}

// callArg parses a function argument: TABLE name, name => value or expr.
func (p *parser) callArg() (ast.Expr, error) {
	t := p.tok()
	if p.isKw("TABLE") && !p.isOpAt(1, "(") {
		p.p++
		name, err := p.objectName()
		if err != nil {
			return nil, err
		}
		ta := &ast.TableArg{Pos: t.pos, Name: name}
		// PARTITION BY k | PARTITION BY (k1, k2); ORDER BY c | ORDER BY (c1, c2).
		if p.acceptKws("PARTITION", "BY") {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if r, ok := e.(*ast.Row); ok && !r.Explicit {
				ta.PartitionBy = r.Items
			} else {
				ta.PartitionBy = []ast.Expr{e}
			}
		}
		if p.acceptKws("ORDER", "BY") {
			if p.acceptOp("(") {
				items, err := p.orderItems()
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
				ta.OrderBy = items
			} else {
				it := ast.OrderItem{Pos: p.tok().pos}
				if it.Expr, err = p.parseExpr(); err != nil {
					return nil, err
				}
				if p.acceptKw("DESC") {
					it.Desc = true
				} else {
					p.acceptKw("ASC")
				}
				ta.OrderBy = []ast.OrderItem{it}
			}
		}
		return ta, nil
	}
	if isIdentTok(t) && p.isOpAt(1, "=>") {
		p.p += 2
		v, err := p.callArg()
		if err != nil {
			return nil, err
		}
		return &ast.NamedArg{Pos: t.pos, Name: t.text, Value: v}, nil
	}
	return p.parseExpr()
}

// callSuffix parses [WITHIN GROUP] [FILTER (WHERE e)] [OVER ...].
func (p *parser) callSuffix(f *ast.FunctionCall) (ast.Expr, error) {
	if p.p > 0 && p.toks[p.p-1].kind == tOp && p.toks[p.p-1].text == ")" {
		f.End = p.toks[p.p-1].pos
	}
	if p.isKw("WITHIN") {
		return nil, unsupported(p.tok().pos, "WITHIN GROUP")
	}
	if (p.isKw("IGNORE") || p.isKw("RESPECT")) && p.isKwAt(1, "NULLS") {
		return nil, unsupported(p.tok().pos, p.tok().upper+" NULLS")
	}
	if p.isKw("FILTER") && p.isOpAt(1, "(") {
		p.p += 2
		if err := p.expectKw("WHERE"); err != nil {
			return nil, err
		}
		var err error
		if f.Filter, err = p.parseExpr(); err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("OVER") {
		if p.isOp("(") {
			var err error
			if f.Over, err = p.windowSpec(); err != nil {
				return nil, err
			}
		} else {
			var err error
			if f.OverName, err = p.ident(); err != nil {
				return nil, err
			}
		}
	}
	return f, nil
}

// windowSpec parses ( [base] [PARTITION BY ...] [ORDER BY ...] [frame] ).
func (p *parser) windowSpec() (*ast.WindowSpec, error) {
	w := &ast.WindowSpec{Pos: p.tok().pos}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var err error
	if p.atIdent() && !(p.isKw("PARTITION") && p.isKwAt(1, "BY")) && !p.isKw("ROWS") && !p.isKw("RANGE") {
		w.Base = p.advance().text
	}
	if p.acceptKws("PARTITION", "BY") {
		for {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			w.PartitionBy = append(w.PartitionBy, e)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKws("ORDER", "BY") {
		if w.OrderBy, err = p.orderItems(); err != nil {
			return nil, err
		}
	}
	if p.isKw("ROWS") || p.isKw("RANGE") {
		ut := p.advance()
		fr := &ast.WindowFrame{Pos: ut.pos, Unit: ut.upper}
		if p.acceptKw("BETWEEN") {
			if fr.Start, err = p.frameBound(); err != nil {
				return nil, err
			}
			if err := p.expectKw("AND"); err != nil {
				return nil, err
			}
			end, err := p.frameBound()
			if err != nil {
				return nil, err
			}
			fr.End = &end
		} else if fr.Start, err = p.frameBound(); err != nil {
			return nil, err
		}
		if p.isKw("EXCLUDE") {
			return nil, unsupported(p.tok().pos, "window EXCLUDE")
		}
		w.Frame = fr
	}
	if p.isKw("ALLOW") || p.isKw("DISALLOW") {
		return nil, unsupported(p.tok().pos, "ALLOW/DISALLOW PARTIAL")
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return w, nil
}

func (p *parser) frameBound() (ast.FrameBound, error) {
	pos := p.tok().pos
	switch {
	case p.acceptKws("UNBOUNDED", "PRECEDING"):
		return ast.FrameBound{Pos: pos, Kind: ast.UnboundedPreceding}, nil
	case p.acceptKws("UNBOUNDED", "FOLLOWING"):
		return ast.FrameBound{Pos: pos, Kind: ast.UnboundedFollowing}, nil
	case p.acceptKws("CURRENT", "ROW"):
		return ast.FrameBound{Pos: pos, Kind: ast.CurrentRow}, nil
	}
	e, err := p.parseAdditive()
	if err != nil {
		return ast.FrameBound{}, err
	}
	switch {
	case p.acceptKw("PRECEDING"):
		return ast.FrameBound{Pos: pos, Kind: ast.Preceding, Offset: e}, nil
	case p.acceptKw("FOLLOWING"):
		return ast.FrameBound{Pos: pos, Kind: ast.Following, Offset: e}, nil
	}
	return ast.FrameBound{}, p.errUnexpected(`"PRECEDING"`, `"FOLLOWING"`)
}

func (p *parser) parseCase() (ast.Expr, error) {
	c := &ast.Case{Pos: p.advance().pos}
	var err error
	if !p.isKw("WHEN") {
		if c.Operand, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	for p.isKw("WHEN") {
		w := ast.When{Pos: p.advance().pos}
		if w.Cond, err = p.parseExpr(); err != nil {
			return nil, err
		}
		// CASE v WHEN a, b THEN r: one branch per value, same result
		values := []ast.Expr{w.Cond}
		for c.Operand != nil && p.acceptOp(",") {
			v, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			values = append(values, v)
		}
		if err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		if w.Result, err = p.parseExpr(); err != nil {
			return nil, err
		}
		for _, v := range values {
			w.Cond = v
			c.Whens = append(c.Whens, w)
		}
	}
	if len(c.Whens) == 0 {
		return nil, p.errUnexpected(`"WHEN"`)
	}
	if p.acceptKw("ELSE") {
		if c.Else, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if err := p.expectKw("END"); err != nil {
		return nil, err
	}
	return c, nil
}

func (p *parser) parseCast() (ast.Expr, error) {
	t := p.advance()
	p.p++ // (
	c := &ast.Cast{Pos: t.pos, Try: t.upper == "TRY_CAST"}
	var err error
	if c.Expr, err = p.parseExpr(); err != nil {
		return nil, err
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	if c.Type, err = p.parseDataType(); err != nil {
		return nil, err
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return c, nil
}

// intervalUnits maps accepted interval unit spellings to canonical names.
var intervalUnits = map[string]string{
	"YEAR": "YEAR", "YEARS": "YEAR", "QUARTER": "QUARTER", "QUARTERS": "QUARTER",
	"MONTH": "MONTH", "MONTHS": "MONTH", "WEEK": "WEEK", "WEEKS": "WEEK",
	"DAY": "DAY", "DAYS": "DAY", "HOUR": "HOUR", "HOURS": "HOUR",
	"MINUTE": "MINUTE", "MINUTES": "MINUTE", "SECOND": "SECOND", "SECONDS": "SECOND",
}

// intervalQualifier parses unit[(p[, f])] [TO unit[(f)]].
func (p *parser) intervalQualifier() (ast.IntervalQualifier, error) {
	q := ast.IntervalQualifier{StartPrecision: -1, StartFracPrecision: -1, EndFracPrecision: -1}
	t := p.tok()
	unit, ok := intervalUnits[t.upper]
	if t.kind != tIdent || !ok {
		return q, p.errUnexpected(`"YEAR"`, `"MONTH"`, `"DAY"`, `"HOUR"`, `"MINUTE"`, `"SECOND"`)
	}
	p.p++
	q.Start = unit
	var err error
	if p.acceptOp("(") {
		if q.StartPrecision, err = p.intLit(); err != nil {
			return q, err
		}
		if unit == "SECOND" && p.acceptOp(",") {
			if q.StartFracPrecision, err = p.intLit(); err != nil {
				return q, err
			}
		}
		if err := p.expectOp(")"); err != nil {
			return q, err
		}
	}
	if p.isKw("TO") {
		if unit == "SECOND" || unit == "WEEK" || unit == "QUARTER" {
			return q, p.errUnexpected()
		}
		p.p++
		e := p.tok()
		end, ok := intervalUnits[e.upper]
		if e.kind != tIdent || !ok || end == "WEEK" || end == "QUARTER" || end == "YEAR" {
			return q, p.errUnexpected(`"MONTH"`, `"HOUR"`, `"MINUTE"`, `"SECOND"`)
		}
		p.p++
		q.End = end
		if end == "SECOND" && p.acceptOp("(") {
			if q.EndFracPrecision, err = p.intLit(); err != nil {
				return q, err
			}
			if err := p.expectOp(")"); err != nil {
				return q, err
			}
		}
	}
	return q, nil
}

// parseInterval parses INTERVAL [+|-] 'value' qualifier.
func (p *parser) parseInterval() (ast.Expr, error) {
	iv := &ast.IntervalLit{Pos: p.advance().pos}
	if p.acceptOp("-") {
		iv.Negative = true
	} else {
		p.acceptOp("+")
	}
	t := p.tok()
	switch t.kind {
	case tString:
		iv.Value = t.text
	case tInt, tDecimal:
		iv.Value = t.text
	default:
		return nil, p.errUnexpected("<QUOTED_STRING>")
	}
	p.p++
	var err error
	if iv.Qualifier, err = p.intervalQualifier(); err != nil {
		return nil, err
	}
	return iv, nil
}

// timeUnit parses a time unit keyword used by EXTRACT, TIMESTAMPADD, CEIL.
func (p *parser) timeUnit() (ast.Expr, error) {
	t := p.tok()
	if t.kind != tIdent {
		return nil, p.errUnexpected(`"YEAR"`, `"MONTH"`, `"DAY"`)
	}
	p.p++
	return &ast.Symbol{Pos: t.pos, Name: t.upper}, nil
}

// parseSpecialCall parses functions with keyword-separated arguments.
func (p *parser) parseSpecialCall() (ast.Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.advance()
	p.p++ // (
	f := &ast.FunctionCall{Pos: t.pos, Name: ast.ObjectName{Parts: []string{t.upper}}}
	arg := func() error {
		e, err := p.parseExpr()
		if err == nil {
			f.Args = append(f.Args, e)
		}
		return err
	}
	close := func() (ast.Expr, error) {
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return p.callSuffix(f)
	}
	switch t.upper {
	case "EXTRACT":
		u, err := p.timeUnit()
		if err != nil {
			return nil, err
		}
		f.Args = append(f.Args, u)
		if err := p.expectKw("FROM"); err != nil {
			return nil, err
		}
		if err := arg(); err != nil {
			return nil, err
		}
		return close()
	case "TIMESTAMPADD", "TIMESTAMPDIFF":
		u, err := p.timeUnit()
		if err != nil {
			return nil, err
		}
		f.Args = append(f.Args, u)
		for i := 0; i < 2; i++ {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
			if err := arg(); err != nil {
				return nil, err
			}
		}
		return close()
	case "POSITION":
		e, err := p.parseAdditive()
		if err != nil {
			return nil, err
		}
		f.Args = append(f.Args, e)
		if !p.acceptKw("IN") {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		if err := arg(); err != nil {
			return nil, err
		}
		if p.acceptKw("FROM") || p.acceptOp(",") {
			if err := arg(); err != nil {
				return nil, err
			}
		}
		return close()
	case "TRIM":
		flag := "BOTH"
		hasFlag := false
		if p.isKw("BOTH") || p.isKw("LEADING") || p.isKw("TRAILING") {
			flag = p.advance().upper
			hasFlag = true
		}
		var chars, src ast.Expr
		if p.acceptKw("FROM") {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			src = e
		} else {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if p.acceptKw("FROM") {
				chars = e
				if src, err = p.parseExpr(); err != nil {
					return nil, err
				}
			} else {
				if hasFlag {
					return nil, p.errUnexpected(`"FROM"`)
				}
				src = e
			}
		}
		if chars == nil {
			chars = &ast.Literal{Pos: t.pos, Kind: ast.StringLit, Text: " "}
		}
		f.Args = []ast.Expr{&ast.Symbol{Pos: t.pos, Name: flag}, chars, src}
		return close()
	case "SUBSTRING":
		if err := arg(); err != nil {
			return nil, err
		}
		if p.acceptKw("FROM") {
			if err := arg(); err != nil {
				return nil, err
			}
			if p.acceptKw("FOR") {
				if err := arg(); err != nil {
					return nil, err
				}
			}
			return close()
		}
		for p.acceptOp(",") {
			if err := arg(); err != nil {
				return nil, err
			}
		}
		return close()
	case "OVERLAY":
		if err := arg(); err != nil {
			return nil, err
		}
		if err := p.expectKw("PLACING"); err != nil {
			return nil, err
		}
		if err := arg(); err != nil {
			return nil, err
		}
		if err := p.expectKw("FROM"); err != nil {
			return nil, err
		}
		if err := arg(); err != nil {
			return nil, err
		}
		if p.acceptKw("FOR") {
			if err := arg(); err != nil {
				return nil, err
			}
		}
		return close()
	default: // CEIL, CEILING, FLOOR
		if err := arg(); err != nil {
			return nil, err
		}
		if p.acceptKw("TO") {
			u, err := p.timeUnit()
			if err != nil {
				return nil, err
			}
			f.Args = append(f.Args, u)
		}
		return close()
	}
}
