package parser

import (
	"github.com/tablerun/tablerun/planner/ast"
)

// parseJSONCall parses the JSON functions with keyword clauses. A call
// without any clause becomes a plain FunctionCall.
func (p *parser) parseJSONCall() (ast.Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.advance()
	p.p++ // (
	j := &ast.JSONCall{Pos: t.pos, Name: t.upper}
	var err error
	switch j.Name {
	case "JSON_OBJECT", "JSON_OBJECTAGG":
		for !p.isOp(")") && !p.atOnNull() {
			if len(j.Args) > 0 {
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
			if p.isKw("KEY") && !p.isKwAt(1, "VALUE") {
				p.p++
			}
			k, err := p.parseAdditive()
			if err != nil {
				return nil, err
			}
			if err := p.expectKw("VALUE"); err != nil {
				return nil, err
			}
			v, err := p.parseAdditive()
			if err != nil {
				return nil, err
			}
			j.Args = append(j.Args, k, v)
		}
	default:
		for !p.isOp(")") && !p.atOnNull() {
			if len(j.Args) > 0 {
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			j.Args = append(j.Args, e)
			if p.isKw("ORDER") {
				return nil, unsupported(p.tok().pos, j.Name+" with ORDER BY")
			}
			if j.Name != "JSON_ARRAY" && j.Name != "JSON_ARRAYAGG" && len(j.Args) == 2 {
				break
			}
		}
	}
	if (j.Name == "JSON_VALUE" || j.Name == "JSON_QUERY") && p.acceptKw("RETURNING") {
		if j.Returning, err = p.parseDataType(); err != nil {
			return nil, err
		}
	}
	if j.Name == "JSON_QUERY" {
		switch {
		case p.acceptKw("WITHOUT"):
			j.Wrapper = "WITHOUT ARRAY"
		case p.acceptKws("WITH", "CONDITIONAL"):
			j.Wrapper = "WITH CONDITIONAL ARRAY"
		case p.acceptKw("WITH"):
			p.acceptKw("UNCONDITIONAL")
			j.Wrapper = "WITH UNCONDITIONAL ARRAY"
		}
		if j.Wrapper != "" {
			p.acceptKw("ARRAY")
			if err := p.expectKw("WRAPPER"); err != nil {
				return nil, err
			}
		}
	}
	switch j.Name {
	case "JSON_EXISTS", "JSON_VALUE", "JSON_QUERY":
		for i := 0; i < 2 && !p.isOp(")"); i++ {
			b, on, err := p.jsonBehavior(j.Name)
			if err != nil {
				return nil, err
			}
			switch {
			case on == "EMPTY" && j.OnEmpty == nil && j.OnError == nil && j.Name != "JSON_EXISTS":
				j.OnEmpty = b
			case on == "ERROR" && j.OnError == nil:
				j.OnError = b
			default:
				p.p--
				return nil, p.errUnexpected(`")"`)
			}
		}
	default:
		if p.atOnNull() {
			j.OnNull = p.advance().upper
			p.p += 2
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if j.Returning == nil && j.Wrapper == "" && j.OnEmpty == nil && j.OnError == nil && j.OnNull == "" &&
		j.Name != "JSON_OBJECT" && j.Name != "JSON_OBJECTAGG" && j.Name != "JSON_ARRAY" {
		return p.callSuffix(&ast.FunctionCall{Pos: t.pos, Name: ast.ObjectName{Parts: []string{t.text}}, Args: j.Args})
	}
	if (j.Name == "JSON_OBJECTAGG" || j.Name == "JSON_ARRAYAGG") && j.Returning == nil && j.Wrapper == "" && j.OnEmpty == nil && j.OnError == nil {
		// The aggregates are plain calls; the non-default ON NULL
		// behaviour is its own aggregate (vectorized/agg collect.go).
		name := j.Name
		switch {
		case j.Name == "JSON_OBJECTAGG" && j.OnNull == "ABSENT":
			name = "JSON_OBJECTAGG_ABSENT_ON_NULL"
		case j.Name == "JSON_ARRAYAGG" && j.OnNull == "NULL":
			name = "JSON_ARRAYAGG_NULL_ON_NULL"
		}
		return p.callSuffix(&ast.FunctionCall{Pos: t.pos, Name: ast.ObjectName{Parts: []string{name}}, Args: j.Args})
	}
	if p.isKw("OVER") || p.isKw("FILTER") {
		return nil, unsupported(p.tok().pos, j.Name+" with "+p.tok().upper)
	}
	return j, nil
}

// atOnNull reports whether the parser is at NULL|ABSENT ON NULL.
func (p *parser) atOnNull() bool {
	return (p.isKw("NULL") || p.isKw("ABSENT")) && p.isKwAt(1, "ON") && p.isKwAt(2, "NULL")
}

// jsonBehavior parses one `behaviour ON EMPTY|ERROR` clause and returns
// the behaviour and EMPTY or ERROR.
func (p *parser) jsonBehavior(fn string) (*ast.JSONBehavior, string, error) {
	b := &ast.JSONBehavior{}
	switch {
	case fn == "JSON_EXISTS" && (p.isKw("TRUE") || p.isKw("FALSE") || p.isKw("UNKNOWN") || p.isKw("ERROR")):
		b.Kind = p.advance().upper
	case fn != "JSON_EXISTS" && (p.isKw("NULL") || p.isKw("ERROR")):
		b.Kind = p.advance().upper
	case fn == "JSON_VALUE" && p.isKw("DEFAULT"):
		p.p++
		b.Kind = "DEFAULT"
		var err error
		if b.Default, err = p.parseAdditive(); err != nil {
			return nil, "", err
		}
	case fn == "JSON_QUERY" && p.isKw("EMPTY") && (p.isKwAt(1, "ARRAY") || p.isKwAt(1, "OBJECT")):
		p.p++
		b.Kind = "EMPTY " + p.advance().upper
	default:
		return nil, "", p.errUnexpected(`")"`, `"ON"`)
	}
	if err := p.expectKw("ON"); err != nil {
		return nil, "", err
	}
	switch {
	case p.acceptKw("EMPTY"):
		return b, "EMPTY", nil
	case p.acceptKw("ERROR"):
		return b, "ERROR", nil
	}
	return nil, "", p.errUnexpected(`"EMPTY"`, `"ERROR"`)
}
