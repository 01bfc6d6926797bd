package parser

import (
	"github.com/tablerun/tablerun/planner/ast"
)

// parseMatchRecognize parses MATCH_RECOGNIZE ( ... ) [AS] alias after input.
func (p *parser) parseMatchRecognize(input ast.TableRef) (ast.TableRef, error) {
	m := &ast.MatchRecognize{Pos: input.Position(), Input: input}
	p.p++ // MATCH_RECOGNIZE
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var err error
	if p.acceptKws("PARTITION", "BY") {
		for {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			m.PartitionBy = append(m.PartitionBy, e)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKws("ORDER", "BY") {
		if m.OrderBy, err = p.orderItems(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("MEASURES") {
		for {
			it := ast.SelectItem{Pos: p.tok().pos}
			if p.isKw("FINAL") || p.isKw("RUNNING") {
				return nil, unsupported(p.tok().pos, p.tok().upper+" in MEASURES")
			}
			if it.Expr, err = p.parseExpr(); err != nil {
				return nil, err
			}
			p.acceptKw("AS")
			if it.Alias, err = p.ident(); err != nil {
				return nil, err
			}
			m.Measures = append(m.Measures, it)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	switch {
	case p.acceptKws("ONE", "ROW", "PER", "MATCH"):
	case p.acceptKws("ALL", "ROWS", "PER", "MATCH"):
		m.AllRows = true
		if p.isKw("SHOW") || p.isKw("OMIT") || p.isKw("WITH") {
			return nil, unsupported(p.tok().pos, "ALL ROWS PER MATCH options")
		}
	}
	if p.acceptKws("AFTER", "MATCH", "SKIP") {
		switch {
		case p.acceptKws("TO", "NEXT", "ROW"):
			m.AfterMatch = "TO NEXT ROW"
		case p.acceptKws("PAST", "LAST", "ROW"):
			m.AfterMatch = "PAST LAST ROW"
		case p.acceptKws("TO", "FIRST"):
			m.AfterMatch = "TO FIRST"
		case p.acceptKws("TO", "LAST"):
			m.AfterMatch = "TO LAST"
		case p.acceptKw("TO"):
			m.AfterMatch = "TO"
		default:
			return nil, p.errUnexpected(`"TO"`, `"PAST"`)
		}
		if m.AfterMatch != "TO NEXT ROW" && m.AfterMatch != "PAST LAST ROW" {
			if m.AfterMatchVar, err = p.ident(); err != nil {
				return nil, err
			}
		}
	}
	if err := p.expectKw("PATTERN"); err != nil {
		return nil, err
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	m.StartAnchor = p.acceptOp("^")
	if m.Pattern, err = p.patternAlt(); err != nil {
		return nil, err
	}
	m.EndAnchor = p.acceptOp("$")
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if p.acceptKw("WITHIN") {
		if m.Within, err = p.parseAdditive(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("SUBSET") {
		for {
			s := ast.PatternSubset{Pos: p.tok().pos}
			if s.Name, err = p.ident(); err != nil {
				return nil, err
			}
			if err := p.expectOp("="); err != nil {
				return nil, err
			}
			if s.Vars, err = p.parenIdentList(); err != nil {
				return nil, err
			}
			m.Subsets = append(m.Subsets, s)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if err := p.expectKw("DEFINE"); err != nil {
		return nil, err
	}
	for {
		d := ast.PatternDefine{Pos: p.tok().pos}
		if d.Var, err = p.ident(); err != nil {
			return nil, err
		}
		if err := p.expectKw("AS"); err != nil {
			return nil, err
		}
		if d.Cond, err = p.parseExpr(); err != nil {
			return nil, err
		}
		m.Defines = append(m.Defines, d)
		if !p.acceptOp(",") {
			break
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if m.Alias, m.ColumnAliases, err = p.alias(); err != nil {
		return nil, err
	}
	return m, nil
}

// patternAlt parses term { | term }.
func (p *parser) patternAlt() (*ast.Pattern, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	first, err := p.patternConcat()
	if err != nil {
		return nil, err
	}
	if !p.isOp("|") {
		return first, nil
	}
	alt := &ast.Pattern{Pos: first.Pos, Kind: ast.PatternAlt, Items: []*ast.Pattern{first}}
	for p.acceptOp("|") {
		next, err := p.patternConcat()
		if err != nil {
			return nil, err
		}
		alt.Items = append(alt.Items, next)
	}
	return alt, nil
}

// patternConcat parses factor { factor }.
func (p *parser) patternConcat() (*ast.Pattern, error) {
	first, err := p.patternFactor()
	if err != nil {
		return nil, err
	}
	items := []*ast.Pattern{first}
	for p.atIdent() || p.isOp("(") || p.isOp("{") || p.isKw("PERMUTE") {
		f, err := p.patternFactor()
		if err != nil {
			return nil, err
		}
		items = append(items, f)
	}
	if len(items) == 1 {
		return first, nil
	}
	return &ast.Pattern{Pos: first.Pos, Kind: ast.PatternConcat, Items: items}, nil
}

// patternFactor parses a primary with an optional quantifier.
func (p *parser) patternFactor() (*ast.Pattern, error) {
	t := p.tok()
	var pt *ast.Pattern
	switch {
	case p.isKw("PERMUTE") && p.isOpAt(1, "("):
		p.p += 2
		pt = &ast.Pattern{Pos: t.pos, Kind: ast.PatternPermute}
		for {
			it, err := p.patternAlt()
			if err != nil {
				return nil, err
			}
			pt.Items = append(pt.Items, it)
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
	case p.isOp("("):
		p.p++
		pt = &ast.Pattern{Pos: t.pos, Kind: ast.PatternGroup}
		if !p.isOp(")") {
			it, err := p.patternAlt()
			if err != nil {
				return nil, err
			}
			pt.Items = []*ast.Pattern{it}
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	case p.isOp("{") && p.isOpAt(1, "-"):
		p.p += 2
		it, err := p.patternAlt()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("-"); err != nil {
			return nil, err
		}
		if err := p.expectOp("}"); err != nil {
			return nil, err
		}
		pt = &ast.Pattern{Pos: t.pos, Kind: ast.PatternExclude, Items: []*ast.Pattern{it}}
	case p.atIdent():
		p.p++
		pt = &ast.Pattern{Pos: t.pos, Kind: ast.PatternVar, Var: t.text}
	default:
		return nil, p.errUnexpected("<IDENTIFIER>", `"("`)
	}
	switch {
	case p.acceptOp("*"):
		pt.Quantified, pt.Min, pt.Max = true, 0, -1
	case p.acceptOp("+"):
		pt.Quantified, pt.Min, pt.Max = true, 1, -1
	case p.acceptOp("?"):
		pt.Quantified, pt.Min, pt.Max = true, 0, 1
	case p.isOp("{") && !p.isOpAt(1, "-"):
		p.p++
		pt.Quantified, pt.Min, pt.Max = true, 0, -1
		var err error
		hasMin := p.at(tInt)
		if hasMin {
			if pt.Min, err = p.intLit(); err != nil {
				return nil, err
			}
		}
		if p.acceptOp(",") {
			if p.at(tInt) {
				if pt.Max, err = p.intLit(); err != nil {
					return nil, err
				}
			}
		} else {
			if !hasMin {
				return nil, p.errUnexpected("<UNSIGNED_INTEGER_LITERAL>")
			}
			pt.Max = pt.Min
		}
		if err := p.expectOp("}"); err != nil {
			return nil, err
		}
		if pt.Max >= 0 && pt.Max < pt.Min {
			return nil, newError(t.pos, "Encountered \"}\" at line %d, column %d. Pattern quantifier maximum is less than its minimum.", p.toks[p.p-1].pos.Line, p.toks[p.p-1].pos.Col)
		}
	default:
		return pt, nil
	}
	if p.isOp("?") {
		p.p++
		pt.Reluctant = true
	}
	return pt, nil
}
