package parser

import (
	"github.com/tablerun/tablerun/planner/ast"
)

// simpleTypes are type names without special syntax, mapped to the name
// stored in ast.DataType.Name.
var simpleTypes = map[string]string{
	"CHAR": "CHAR", "CHARACTER": "CHAR", "VARCHAR": "VARCHAR", "STRING": "STRING",
	"BOOLEAN": "BOOLEAN", "BOOL": "BOOLEAN", "BINARY": "BINARY", "VARBINARY": "VARBINARY", "BYTES": "BYTES",
	"DECIMAL": "DECIMAL", "DEC": "DEC", "NUMERIC": "NUMERIC",
	"TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INT", "INTEGER": "INTEGER", "BIGINT": "BIGINT",
	"FLOAT": "FLOAT", "REAL": "REAL", "DOUBLE": "DOUBLE", "DATE": "DATE", "TIME": "TIME",
	"TIMESTAMP": "TIMESTAMP", "TIMESTAMP_LTZ": "TIMESTAMP_LTZ", "NULL": "NULL",
	"VARIANT": "VARIANT", "BITMAP": "BITMAP",
}

// parseDataType parses a data type with optional NOT NULL / NULL and
// postfix ARRAY / MULTISET.
func (p *parser) parseDataType() (*ast.DataType, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t, err := p.parseBaseType()
	if err != nil {
		return nil, err
	}
	for {
		if p.acceptKws("NOT", "NULL") {
			t.NotNull = true
		} else {
			p.acceptKw("NULL")
		}
		if p.isKw("ARRAY") || p.isKw("MULTISET") {
			k := p.advance()
			t = &ast.DataType{Pos: t.Pos, Name: k.upper, Elem: t}
			continue
		}
		return t, nil
	}
}

// typeParams parses ( int {, int} ).
func (p *parser) typeParams(t *ast.DataType) error {
	if !p.acceptOp("(") {
		return nil
	}
	for {
		n, err := p.intLit()
		if err != nil {
			return err
		}
		t.Params = append(t.Params, n)
		if p.acceptOp(")") {
			return nil
		}
		if err := p.expectOp(","); err != nil {
			return err
		}
	}
}

func (p *parser) parseBaseType() (*ast.DataType, error) {
	tok := p.tok()
	if tok.kind != tIdent {
		return nil, p.errUnexpected("<DATA_TYPE>")
	}
	t := &ast.DataType{Pos: tok.pos}
	name, simple := simpleTypes[tok.upper]
	switch tok.upper {
	case "ARRAY", "MULTISET":
		p.p++
		t.Name = tok.upper
		if err := p.expectOp("<"); err != nil {
			return nil, err
		}
		var err error
		if t.Elem, err = p.parseDataType(); err != nil {
			return nil, err
		}
		if err := p.expectOp(">"); err != nil {
			return nil, err
		}
		return t, nil
	case "MAP":
		p.p++
		t.Name = "MAP"
		if err := p.expectOp("<"); err != nil {
			return nil, err
		}
		var err error
		if t.Key, err = p.parseDataType(); err != nil {
			return nil, err
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
		if t.Value, err = p.parseDataType(); err != nil {
			return nil, err
		}
		if err := p.expectOp(">"); err != nil {
			return nil, err
		}
		return t, nil
	case "ROW":
		p.p++
		t.Name = "ROW"
		if p.acceptOp("<>") {
			return t, nil
		}
		var closer string
		switch {
		case p.acceptOp("<"):
			closer = ">"
		case p.acceptOp("("):
			closer = ")"
		default:
			return nil, p.errUnexpected(`"<"`, `"("`)
		}
		if p.acceptOp(closer) {
			return t, nil
		}
		p.p--
		var err error
		if t.Fields, err = p.rowFields(closer); err != nil {
			return nil, err
		}
		return t, nil
	case "RAW":
		p.p++
		t.Name = "RAW"
		if p.acceptOp("(") {
			for {
				s, err := p.stringLit()
				if err != nil {
					return nil, err
				}
				t.RawArgs = append(t.RawArgs, s)
				if p.acceptOp(")") {
					break
				}
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
		} else if p.isOp("<") {
			return nil, unsupported(p.tok().pos, "RAW<...> type")
		}
		return t, nil
	case "INTERVAL":
		p.p++
		t.Name = "INTERVAL"
		q, err := p.intervalQualifier()
		if err != nil {
			return nil, err
		}
		t.Interval = &q
		return t, nil
	}
	if !simple {
		return nil, p.errUnexpected("<DATA_TYPE>")
	}
	p.p++
	t.Name = name
	switch name {
	case "CHAR":
		if p.acceptKw("VARYING") {
			t.Name = "VARCHAR"
		}
	case "BINARY":
		if p.acceptKw("VARYING") {
			t.Name = "VARBINARY"
		}
	case "DOUBLE":
		p.acceptKw("PRECISION")
	}
	if err := p.typeParams(t); err != nil {
		return nil, err
	}
	switch name {
	case "TIMESTAMP":
		switch {
		case p.acceptKws("WITH", "LOCAL", "TIME", "ZONE"):
			t.Name = "TIMESTAMP_LTZ"
		case p.acceptKws("WITHOUT", "TIME", "ZONE"):
		case p.isKw("WITH") && p.isKwAt(1, "TIME"):
			return nil, unsupported(p.tok().pos, "TIMESTAMP WITH TIME ZONE")
		}
	case "TIME":
		if p.acceptKws("WITHOUT", "TIME", "ZONE") {
			break
		}
		if p.isKw("WITH") && (p.isKwAt(1, "TIME") || p.isKwAt(1, "LOCAL")) {
			return nil, unsupported(p.tok().pos, "TIME WITH TIME ZONE")
		}
	}
	if p.isKw("CHARACTER") && p.isKwAt(1, "SET") {
		return nil, unsupported(p.tok().pos, "CHARACTER SET")
	}
	return t, nil
}

// rowFields parses ( name type ['description'] {, ...} ) or the <...> form;
// the opening bracket is the current token and closer is the closing one.
func (p *parser) rowFields(closer string) ([]ast.RowFieldDef, error) {
	open := "("
	if closer == ">" {
		open = "<"
	}
	if err := p.expectOp(open); err != nil {
		return nil, err
	}
	var out []ast.RowFieldDef
	for {
		f := ast.RowFieldDef{Pos: p.tok().pos}
		var err error
		if f.Name, err = p.ident(); err != nil {
			return nil, err
		}
		if f.Type, err = p.parseDataType(); err != nil {
			return nil, err
		}
		if p.at(tString) {
			f.Description = p.advance().text
		}
		out = append(out, f)
		if p.acceptOp(closer) {
			return out, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}
