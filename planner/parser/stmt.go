package parser

import (
	"strings"

	"github.com/tablerun/tablerun/planner/ast"
)

// parseStatement dispatches on the first keyword.
func (p *parser) parseStatement() (ast.Statement, error) {
	t := p.tok()
	if p.isOp("(") {
		return p.parseQueryStmt()
	}
	if t.kind != tIdent {
		return nil, p.errUnexpected(`"SELECT"`, `"CREATE"`, `"INSERT"`)
	}
	switch t.upper {
	case "SELECT", "VALUES", "WITH":
		return p.parseQueryStmt()
	case "CREATE":
		return p.parseCreate()
	case "DROP":
		return p.parseDrop()
	case "ALTER":
		return p.parseAlter()
	case "INSERT":
		return p.parseInsert()
	case "EXPLAIN":
		return p.parseExplain()
	case "SET":
		return p.parseSet()
	case "RESET":
		return p.parseReset()
	case "SHOW":
		return p.parseShow()
	case "DESCRIBE", "DESC":
		return p.parseDescribe()
	case "USE":
		return p.parseUse()
	case "LOAD":
		p.p++
		if err := p.expectKw("MODULE"); err != nil {
			return nil, err
		}
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		st := &ast.LoadModule{Pos: t.pos, Name: name}
		if p.acceptKw("WITH") {
			if st.Options, err = p.options(); err != nil {
				return nil, err
			}
		}
		return st, nil
	case "UNLOAD":
		p.p++
		if err := p.expectKw("MODULE"); err != nil {
			return nil, err
		}
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		return &ast.UnloadModule{Pos: t.pos, Name: name}, nil
	case "ADD", "REMOVE":
		p.p++
		if err := p.expectKw("JAR"); err != nil {
			return nil, err
		}
		path, err := p.stringLit()
		if err != nil {
			return nil, err
		}
		if t.upper == "ADD" {
			return &ast.AddJar{Pos: t.pos, Path: path}, nil
		}
		return &ast.RemoveJar{Pos: t.pos, Path: path}, nil
	case "BEGIN":
		p.p++
		if err := p.expectKw("STATEMENT", "SET"); err != nil {
			return nil, err
		}
		return &ast.BeginStatementSet{Pos: t.pos}, nil
	case "END":
		p.p++
		return &ast.EndStatementSet{Pos: t.pos}, nil
	case "EXECUTE":
		p.p++
		if p.isKw("STATEMENT") {
			return p.parseStatementSet(t.pos)
		}
		return nil, unsupported(t.pos, "EXECUTE "+p.tok().upper)
	case "STOP":
		if p.isKwAt(1, "JOB") {
			p.p += 2
			return p.parseStopJob(t.pos) // stmt_jobs.go
		}
		return nil, unsupported(t.pos, t.upper+" statement")
	case "UPSERT", "DELETE", "UPDATE", "TRUNCATE", "CALL", "ANALYZE", "HELP", "QUIT", "EXIT", "CLEAR", "MERGE", "REFRESH", "SAVEPOINT", "REPLACE":
		return nil, unsupported(t.pos, t.upper+" statement")
	}
	return nil, p.errUnexpected(`"SELECT"`, `"CREATE"`, `"INSERT"`)
}

func (p *parser) parseQueryStmt() (ast.Statement, error) {
	start := p.p
	pos := p.tok().pos
	q, err := p.parseQuery()
	if err != nil {
		return nil, err
	}
	return &ast.QueryStmt{Pos: pos, Query: q, Text: p.textFrom(start)}, nil
}

// ifNotExists accepts IF NOT EXISTS.
func (p *parser) ifNotExists() bool { return p.acceptKws("IF", "NOT", "EXISTS") }

// ifExists accepts IF EXISTS.
func (p *parser) ifExists() bool { return p.acceptKws("IF", "EXISTS") }

// comment accepts COMMENT 'text'.
func (p *parser) comment() (string, bool, error) {
	if !p.acceptKw("COMMENT") {
		return "", false, nil
	}
	s, err := p.stringLit()
	return s, err == nil, err
}

func (p *parser) parseCreate() (ast.Statement, error) {
	pos := p.advance().pos
	if p.isKw("OR") {
		return nil, unsupported(pos, "CREATE OR REPLACE")
	}
	temporary := p.acceptKw("TEMPORARY")
	system := temporary && p.acceptKw("SYSTEM")
	switch {
	case p.acceptKw("TABLE"):
		if system {
			return nil, p.errUnexpected(`"FUNCTION"`)
		}
		return p.parseCreateTable(pos, temporary)
	case p.acceptKw("VIEW"):
		if system {
			return nil, p.errUnexpected(`"FUNCTION"`)
		}
		return p.parseCreateView(pos, temporary)
	case p.acceptKw("FUNCTION"):
		return p.parseCreateFunction(pos, temporary, system)
	case !temporary && p.acceptKw("CATALOG"):
		st := &ast.CreateCatalog{Pos: pos, IfNotExists: p.ifNotExists()}
		var err error
		if st.Name, err = p.ident(); err != nil {
			return nil, err
		}
		if st.Comment, st.HasComment, err = p.comment(); err != nil {
			return nil, err
		}
		// WITH (…) is optional in Flink's grammar (the catalog's options
		// are then checked when it is created)
		if p.tok().kind == tEOF || p.isOp(";") {
			return st, nil
		}
		if !p.acceptKw("WITH") {
			expecting := []string{`"WITH"`, `"COMMENT"`, `";"`}
			if st.HasComment {
				expecting = []string{`"WITH"`, `";"`}
			}
			e := p.errUnexpected(expecting...)
			e.Expecting = append([]string{"<EOF> "}, e.Expecting...) // JavaCC prints no "..." after <EOF>
			return nil, e
		}
		if st.Options, err = p.options(); err != nil {
			return nil, err
		}
		return st, nil
	case !temporary && p.acceptKw("DATABASE"):
		st := &ast.CreateDatabase{Pos: pos, IfNotExists: p.ifNotExists()}
		var err error
		if st.Name, err = p.objectName(); err != nil {
			return nil, err
		}
		if st.Comment, st.HasComment, err = p.comment(); err != nil {
			return nil, err
		}
		if p.acceptKw("WITH") {
			if st.Options, err = p.options(); err != nil {
				return nil, err
			}
		}
		return st, nil
	case p.isKw("MATERIALIZED") || p.isKw("MODEL"):
		return nil, unsupported(p.tok().pos, "CREATE "+p.tok().upper)
	}
	if temporary {
		return nil, p.errUnexpected(`"TABLE"`, `"VIEW"`, `"FUNCTION"`)
	}
	return nil, p.errUnexpected(`"TABLE"`, `"VIEW"`, `"FUNCTION"`, `"CATALOG"`, `"DATABASE"`, `"TEMPORARY"`)
}

func (p *parser) parseCreateTable(pos ast.Pos, temporary bool) (ast.Statement, error) {
	st := &ast.CreateTable{Pos: pos, Temporary: temporary, IfNotExists: p.ifNotExists()}
	var err error
	if st.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.acceptOp("(") {
		for {
			if err := p.parseTableElement(st); err != nil {
				return nil, err
			}
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
	}
	if st.Comment, st.HasComment, err = p.comment(); err != nil {
		return nil, err
	}
	if p.isKw("DISTRIBUTED") {
		return nil, unsupported(p.tok().pos, "DISTRIBUTED BY")
	}
	if p.acceptKws("PARTITIONED", "BY") {
		if st.PartitionedBy, err = p.parenIdentList(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WITH") {
		if st.Options, err = p.options(); err != nil {
			return nil, err
		}
	}
	if p.isKw("LIKE") {
		lk := &ast.LikeClause{Pos: p.advance().pos}
		if lk.Name, err = p.objectName(); err != nil {
			return nil, err
		}
		if p.acceptOp("(") {
			for {
				mode := p.tok()
				if mode.kind != tIdent || (mode.upper != "INCLUDING" && mode.upper != "EXCLUDING" && mode.upper != "OVERWRITING") {
					return nil, p.errUnexpected(`"INCLUDING"`, `"EXCLUDING"`, `"OVERWRITING"`)
				}
				p.p++
				f := p.tok()
				switch f.upper {
				case "ALL", "CONSTRAINTS", "DISTRIBUTION", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS", "WATERMARKS":
				default:
					return nil, p.errUnexpected(`"ALL"`, `"CONSTRAINTS"`, `"OPTIONS"`)
				}
				p.p++
				lk.Options = append(lk.Options, ast.LikeOption{Mode: mode.upper, Feature: f.upper})
				if p.acceptOp(")") {
					break
				}
				p.acceptOp(",")
			}
		}
		st.Like = lk
	}
	if p.acceptKw("AS") {
		start := p.p
		if st.AsQuery, err = p.parseQuery(); err != nil {
			return nil, err
		}
		st.AsQueryText = p.textFrom(start)
	}
	return st, nil
}

// parseTableElement parses a column, a PRIMARY KEY constraint or a
// WATERMARK of CREATE TABLE.
func (p *parser) parseTableElement(st *ast.CreateTable) error {
	t := p.tok()
	switch {
	case p.isKw("WATERMARK") && p.isKwAt(1, "FOR"):
		if st.Watermark != nil {
			return newError(t.pos, "Multiple WATERMARK statements is not supported yet. (at line %d, column %d)", t.pos.Line, t.pos.Col)
		}
		w, err := p.parseWatermark()
		st.Watermark = w
		return err
	case p.isKw("PRIMARY") && p.isKwAt(1, "KEY") || p.isKw("CONSTRAINT") && isIdentTok(p.peekAt(1)) || p.isKw("UNIQUE") && p.isOpAt(1, "("):
		pk, err := p.parsePrimaryKey()
		if err != nil {
			return err
		}
		return setPrimaryKey(&st.PrimaryKey, pk, t.pos)
	}
	col, pk, err := p.parseColumn(false)
	if err != nil {
		return err
	}
	if pk != nil {
		if err := setPrimaryKey(&st.PrimaryKey, pk, t.pos); err != nil {
			return err
		}
	}
	st.Columns = append(st.Columns, col)
	return nil
}

// parseWatermark parses WATERMARK FOR col AS expr.
func (p *parser) parseWatermark() (*ast.Watermark, error) {
	w := &ast.Watermark{Pos: p.advance().pos}
	if err := p.expectKw("FOR"); err != nil {
		return nil, err
	}
	name, err := p.objectName()
	if err != nil {
		return nil, err
	}
	w.Column = strings.Join(name.Parts, ".")
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	if w.Expr, err = p.parseExpr(); err != nil {
		return nil, err
	}
	return w, nil
}

// parsePrimaryKey parses [CONSTRAINT name] PRIMARY KEY (cols) [NOT ENFORCED].
func (p *parser) parsePrimaryKey() (*ast.PrimaryKey, error) {
	pk := &ast.PrimaryKey{Pos: p.tok().pos}
	var err error
	if p.acceptKw("CONSTRAINT") {
		if pk.ConstraintName, err = p.ident(); err != nil {
			return nil, err
		}
	}
	if p.isKw("UNIQUE") {
		return nil, unsupported(p.tok().pos, "UNIQUE constraint")
	}
	if err := p.expectKw("PRIMARY", "KEY"); err != nil {
		return nil, err
	}
	if pk.Columns, err = p.parenIdentList(); err != nil {
		return nil, err
	}
	pk.NotEnforced, err = p.enforced()
	return pk, err
}

// enforced parses an optional [NOT] ENFORCED and reports NOT ENFORCED.
func (p *parser) enforced() (bool, error) {
	if p.acceptKws("NOT", "ENFORCED") {
		return true, nil
	}
	p.acceptKw("ENFORCED")
	return false, nil
}

// parseColumn parses a column definition. inAlter enables FIRST / AFTER.
// An inline PRIMARY KEY is returned as a table-level key.
func (p *parser) parseColumn(inAlter bool) (ast.ColumnDef, *ast.PrimaryKey, error) {
	col := ast.ColumnDef{Pos: p.tok().pos}
	var pk *ast.PrimaryKey
	var err error
	if col.Name, err = p.ident(); err != nil {
		return col, nil, err
	}
	if p.acceptKw("AS") {
		col.Kind = ast.ComputedColumn
		if col.Computed, err = p.parseExpr(); err != nil {
			return col, nil, err
		}
	} else {
		col.Kind = ast.PhysicalColumn
		if col.Type, err = p.parseDataType(); err != nil {
			return col, nil, err
		}
		if p.acceptKw("METADATA") {
			col.Kind = ast.MetadataColumn
			if p.acceptKw("FROM") {
				if col.MetadataKey, err = p.stringLit(); err != nil {
					return col, nil, err
				}
			}
			col.Virtual = p.acceptKw("VIRTUAL")
		}
		if p.isKw("CONSTRAINT") || p.isKw("PRIMARY") {
			pos := p.tok().pos
			pk = &ast.PrimaryKey{Pos: pos, Columns: []string{col.Name}}
			if p.acceptKw("CONSTRAINT") {
				if pk.ConstraintName, err = p.ident(); err != nil {
					return col, nil, err
				}
			}
			if p.isKw("UNIQUE") {
				return col, nil, unsupported(p.tok().pos, "UNIQUE constraint")
			}
			if err := p.expectKw("PRIMARY", "KEY"); err != nil {
				return col, nil, err
			}
			if pk.NotEnforced, err = p.enforced(); err != nil {
				return col, nil, err
			}
		}
	}
	if col.Comment, col.HasComment, err = p.comment(); err != nil {
		return col, nil, err
	}
	if inAlter {
		if p.acceptKw("FIRST") {
			col.Placement.First = true
		} else if p.acceptKw("AFTER") {
			if col.Placement.After, err = p.ident(); err != nil {
				return col, nil, err
			}
		}
	}
	return col, pk, nil
}

func (p *parser) parseCreateView(pos ast.Pos, temporary bool) (ast.Statement, error) {
	st := &ast.CreateView{Pos: pos, Temporary: temporary, IfNotExists: p.ifNotExists()}
	var err error
	if st.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.isOp("(") {
		if st.ColumnNames, err = p.parenIdentList(); err != nil {
			return nil, err
		}
	}
	if st.Comment, st.HasComment, err = p.comment(); err != nil {
		return nil, err
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	start := p.p
	if st.Query, err = p.parseQuery(); err != nil {
		return nil, err
	}
	st.QueryText = p.textFrom(start)
	return st, nil
}

// language parses LANGUAGE name and returns it upper-cased.
func (p *parser) language() (string, error) {
	if !p.acceptKw("LANGUAGE") {
		return "", nil
	}
	t := p.tok()
	if t.kind != tIdent {
		return "", p.errUnexpected(`"JAVA"`, `"SCALA"`, `"PYTHON"`, `"SQL"`)
	}
	p.p++
	return t.upper, nil
}

func (p *parser) parseCreateFunction(pos ast.Pos, temporary, system bool) (ast.Statement, error) {
	st := &ast.CreateFunction{Pos: pos, Temporary: temporary, System: system, IfNotExists: p.ifNotExists()}
	var err error
	if st.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.acceptOp("(") {
		st.Inline = true
		if !p.acceptOp(")") {
			for {
				fp := ast.FunctionParam{Pos: p.tok().pos}
				if fp.Name, err = p.ident(); err != nil {
					return nil, err
				}
				if fp.Type, err = p.parseDataType(); err != nil {
					return nil, err
				}
				st.Params = append(st.Params, fp)
				if p.acceptOp(")") {
					break
				}
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
		}
		if err := p.expectKw("RETURNS"); err != nil {
			return nil, err
		}
		if p.acceptKw("TABLE") {
			if st.ReturnsTable, err = p.rowFields(")"); err != nil {
				return nil, err
			}
		} else if st.Returns, err = p.parseDataType(); err != nil {
			return nil, err
		}
		if st.Language, err = p.language(); err != nil {
			return nil, err
		}
		if err := p.expectKw("AS"); err != nil {
			return nil, err
		}
		t := p.tok()
		if t.kind != tDollar && t.kind != tString {
			return nil, p.errUnexpected("$$", "<QUOTED_STRING>")
		}
		p.p++
		st.Body = t.text
		if st.Language == "" {
			if st.Language, err = p.language(); err != nil {
				return nil, err
			}
		}
		return st, nil
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	if st.ClassName, err = p.stringLit(); err != nil {
		return nil, err
	}
	if st.Language, err = p.language(); err != nil {
		return nil, err
	}
	if p.acceptKw("USING") {
		for {
			if err := p.expectKw("JAR"); err != nil {
				return nil, err
			}
			j, err := p.stringLit()
			if err != nil {
				return nil, err
			}
			st.Jars = append(st.Jars, j)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	return st, nil
}

func (p *parser) parseDrop() (ast.Statement, error) {
	pos := p.advance().pos
	temporary := p.acceptKw("TEMPORARY")
	system := temporary && p.acceptKw("SYSTEM")
	switch {
	case !system && p.acceptKw("TABLE"):
		st := &ast.DropTable{Pos: pos, Temporary: temporary, IfExists: p.ifExists()}
		var err error
		st.Name, err = p.objectName()
		return st, err
	case !system && p.acceptKw("VIEW"):
		st := &ast.DropView{Pos: pos, Temporary: temporary, IfExists: p.ifExists()}
		var err error
		st.Name, err = p.objectName()
		return st, err
	case p.acceptKw("FUNCTION"):
		st := &ast.DropFunction{Pos: pos, Temporary: temporary, System: system, IfExists: p.ifExists()}
		var err error
		st.Name, err = p.objectName()
		return st, err
	case !temporary && p.acceptKw("CATALOG"):
		st := &ast.DropCatalog{Pos: pos, IfExists: p.ifExists()}
		var err error
		st.Name, err = p.ident()
		return st, err
	case !temporary && p.acceptKw("DATABASE"):
		st := &ast.DropDatabase{Pos: pos, IfExists: p.ifExists()}
		var err error
		if st.Name, err = p.objectName(); err != nil {
			return nil, err
		}
		if p.acceptKw("CASCADE") {
			st.Cascade = true
		} else {
			p.acceptKw("RESTRICT")
		}
		return st, nil
	case p.isKw("MATERIALIZED") || p.isKw("MODEL"):
		return nil, unsupported(p.tok().pos, "DROP "+p.tok().upper)
	}
	return nil, p.errUnexpected(`"TABLE"`, `"VIEW"`, `"FUNCTION"`, `"CATALOG"`, `"DATABASE"`)
}

func (p *parser) parseAlter() (ast.Statement, error) {
	pos := p.advance().pos
	switch {
	case p.acceptKw("TABLE"):
		return p.parseAlterTable(pos)
	case p.acceptKw("CATALOG"):
		st := &ast.AlterCatalog{Pos: pos}
		var err error
		if st.Name, err = p.ident(); err != nil {
			return nil, err
		}
		switch {
		case p.acceptKw("SET"):
			st.Set, err = p.options()
		case p.acceptKw("RESET"):
			st.Reset, err = p.stringList()
		case p.acceptKw("COMMENT"):
			st.HasComment = true
			st.Comment, err = p.stringLit()
		default:
			return nil, p.errUnexpected(`"SET"`, `"RESET"`, `"COMMENT"`)
		}
		return st, err
	case p.acceptKw("DATABASE"):
		st := &ast.AlterDatabase{Pos: pos}
		var err error
		if st.Name, err = p.objectName(); err != nil {
			return nil, err
		}
		if err := p.expectKw("SET"); err != nil {
			return nil, err
		}
		st.Set, err = p.options()
		return st, err
	case p.acceptKw("VIEW"):
		st := &ast.AlterView{Pos: pos}
		var err error
		if st.Name, err = p.objectName(); err != nil {
			return nil, err
		}
		switch {
		case p.acceptKws("RENAME", "TO"):
			st.NewName, err = p.objectName()
			return st, err
		case p.acceptKw("AS"):
			start := p.p
			if st.Query, err = p.parseQuery(); err != nil {
				return nil, err
			}
			st.QueryText = p.textFrom(start)
			return st, nil
		}
		return nil, p.errUnexpected(`"RENAME"`, `"AS"`)
	}
	temporary := p.acceptKw("TEMPORARY")
	system := temporary && p.acceptKw("SYSTEM")
	if p.acceptKw("FUNCTION") {
		st := &ast.AlterFunction{Pos: pos, Temporary: temporary, System: system, IfExists: p.ifExists()}
		var err error
		if st.Name, err = p.objectName(); err != nil {
			return nil, err
		}
		if err := p.expectKw("AS"); err != nil {
			return nil, err
		}
		if st.ClassName, err = p.stringLit(); err != nil {
			return nil, err
		}
		st.Language, err = p.language()
		return st, err
	}
	if p.isKw("MATERIALIZED") || p.isKw("MODEL") {
		return nil, unsupported(p.tok().pos, "ALTER "+p.tok().upper)
	}
	return nil, p.errUnexpected(`"TABLE"`, `"VIEW"`, `"FUNCTION"`, `"CATALOG"`, `"DATABASE"`)
}

func (p *parser) parseAlterTable(pos ast.Pos) (ast.Statement, error) {
	st := &ast.AlterTable{Pos: pos, IfExists: p.ifExists()}
	var err error
	if st.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	at := p.tok().pos
	switch {
	case p.acceptKw("RENAME"):
		if p.acceptKw("TO") {
			a := &ast.AlterRenameTable{Pos: at}
			a.NewName, err = p.objectName()
			st.Action = a
			return st, err
		}
		a := &ast.AlterRenameColumn{Pos: at}
		if a.Old, err = p.ident(); err != nil {
			return nil, err
		}
		if err := p.expectKw("TO"); err != nil {
			return nil, err
		}
		a.New, err = p.ident()
		st.Action = a
		return st, err
	case p.acceptKw("SET"):
		a := &ast.AlterSetOptions{Pos: at}
		a.Options, err = p.options()
		st.Action = a
		return st, err
	case p.acceptKw("RESET"):
		a := &ast.AlterResetOptions{Pos: at}
		a.Keys, err = p.stringList()
		st.Action = a
		return st, err
	case p.isKw("ADD") || p.isKw("MODIFY"):
		modify := p.advance().upper == "MODIFY"
		if p.isKw("PARTITION") || p.isKw("DISTRIBUTION") || (p.isKw("IF") && !p.isOpAt(1, "(")) {
			return nil, unsupported(p.tok().pos, "ALTER TABLE "+p.toks[p.p-1].upper+" "+p.tok().upper)
		}
		a := &ast.AlterSchema{Pos: at, Modify: modify}
		if p.acceptOp("(") {
			for {
				if err := p.alterElement(a); err != nil {
					return nil, err
				}
				if p.acceptOp(")") {
					break
				}
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
		} else if err := p.alterElement(a); err != nil {
			return nil, err
		}
		st.Action = a
		return st, nil
	case p.acceptKw("DROP"):
		switch {
		case p.acceptKws("PRIMARY", "KEY"):
			st.Action = &ast.AlterDropPrimaryKey{Pos: at}
		case p.acceptKw("CONSTRAINT"):
			a := &ast.AlterDropPrimaryKey{Pos: at}
			a.ConstraintName, err = p.ident()
			st.Action = a
		case p.acceptKw("WATERMARK"):
			st.Action = &ast.AlterDropWatermark{Pos: at}
		case p.isKw("PARTITION") || p.isKw("DISTRIBUTION") || p.isKw("IF"):
			return nil, unsupported(p.tok().pos, "ALTER TABLE DROP "+p.tok().upper)
		case p.isOp("("):
			a := &ast.AlterDropColumns{Pos: at}
			a.Columns, err = p.parenIdentList()
			st.Action = a
		default:
			a := &ast.AlterDropColumns{Pos: at}
			var c string
			c, err = p.ident()
			a.Columns = []string{c}
			st.Action = a
		}
		return st, err
	case p.isKw("COMPACT"):
		return nil, unsupported(at, "ALTER TABLE COMPACT")
	}
	return nil, p.errUnexpected(`"RENAME"`, `"SET"`, `"RESET"`, `"ADD"`, `"MODIFY"`, `"DROP"`)
}

// alterElement parses one column, constraint or watermark of ALTER TABLE
// ADD/MODIFY.
func (p *parser) alterElement(a *ast.AlterSchema) error {
	t := p.tok()
	switch {
	case p.isKw("WATERMARK") && p.isKwAt(1, "FOR"):
		if a.Watermark != nil {
			return newError(t.pos, "Multiple WATERMARK statements is not supported yet. (at line %d, column %d)", t.pos.Line, t.pos.Col)
		}
		w, err := p.parseWatermark()
		a.Watermark = w
		return err
	case p.isKw("PRIMARY") && p.isKwAt(1, "KEY") || p.isKw("CONSTRAINT"):
		pk, err := p.parsePrimaryKey()
		if err != nil {
			return err
		}
		return setPrimaryKey(&a.PrimaryKey, pk, t.pos)
	}
	col, pk, err := p.parseColumn(true)
	if err != nil {
		return err
	}
	if pk != nil {
		if err := setPrimaryKey(&a.PrimaryKey, pk, t.pos); err != nil {
			return err
		}
	}
	a.Columns = append(a.Columns, col)
	return nil
}

func (p *parser) parseInsert() (ast.Statement, error) {
	st := &ast.Insert{Pos: p.advance().pos}
	switch {
	case p.acceptKw("INTO"):
	case p.acceptKw("OVERWRITE"):
		st.Overwrite = true
	default:
		return nil, p.errUnexpected(`"INTO"`, `"OVERWRITE"`)
	}
	var err error
	if st.Table, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.at(tHint) {
		if st.Hints, err = p.parseHints(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("PARTITION") {
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		for {
			pv := ast.PartitionValue{Pos: p.tok().pos}
			if pv.Column, err = p.ident(); err != nil {
				return nil, err
			}
			if err := p.expectOp("="); err != nil {
				return nil, err
			}
			if pv.Value, err = p.parseUnary(); err != nil {
				return nil, err
			}
			st.PartitionSpec = append(st.PartitionSpec, pv)
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
	}
	if p.isOp("(") && !p.startsQuery(1) {
		if st.Columns, err = p.parenIdentList(); err != nil {
			return nil, err
		}
	}
	if st.Query, err = p.parseQuery(); err != nil {
		return nil, err
	}
	return st, nil
}

// startsQuery reports whether the token k ahead begins a query.
func (p *parser) startsQuery(k int) bool {
	if i := p.p + k; i < len(p.afterParens) {
		k = p.afterParens[i] - p.p
	}
	return p.isKwAt(k, "SELECT") || p.isKwAt(k, "VALUES") || p.isKwAt(k, "WITH")
}

var explainDetails = map[string]bool{"ESTIMATED_COST": true, "CHANGELOG_MODE": true, "JSON_EXECUTION_PLAN": true, "PLAN_ADVICE": true}

func (p *parser) parseExplain() (ast.Statement, error) {
	st := &ast.Explain{Pos: p.advance().pos}
	if t := p.tok(); t.kind == tIdent && t.upper == "ANALYZE" {
		p.p++
		st.Analyze = true
	}
	switch {
	case p.acceptKws("PLAN", "FOR"):
		st.PlanFor = true
	case p.tok().kind == tIdent && explainDetails[p.tok().upper]:
		for {
			t := p.tok()
			if t.kind != tIdent || !explainDetails[t.upper] {
				return nil, p.errUnexpected(`"ESTIMATED_COST"`, `"CHANGELOG_MODE"`, `"JSON_EXECUTION_PLAN"`, `"PLAN_ADVICE"`)
			}
			p.p++
			st.Details = append(st.Details, t.upper)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	var err error
	switch {
	case p.isKw("STATEMENT"):
		st.Statement, err = p.parseStatementSet(p.tok().pos)
	case p.isKw("EXECUTE") && p.isKwAt(1, "STATEMENT"):
		p.p++
		st.Statement, err = p.parseStatementSet(p.toks[p.p-1].pos)
	case p.isKw("EXECUTE"):
		return nil, unsupported(p.tok().pos, "EXPLAIN EXECUTE")
	case p.isKw("CREATE"):
		st.Statement, err = p.parseCreate()
		if err == nil {
			if ct, ok := st.Statement.(*ast.CreateTable); !ok || ct.AsQuery == nil {
				return nil, unsupported(st.Statement.Position(), "EXPLAIN of this CREATE statement")
			}
		}
	case p.isKw("INSERT"):
		st.Statement, err = p.parseInsert()
	case p.isOp("(") || p.isKw("SELECT") || p.isKw("VALUES") || p.isKw("WITH"):
		st.Statement, err = p.parseQueryStmt()
	default:
		return nil, p.errUnexpected(`"SELECT"`, `"INSERT"`, `"WITH"`, `"VALUES"`)
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// rawKey reads a SET/RESET key: a string literal or the raw text up to stop.
func (p *parser) rawKey(stop string) (string, error) {
	t := p.tok()
	if t.kind == tString {
		p.p++
		return t.text, nil
	}
	start := p.p
	for !p.at(tEOF) && !p.isOp(";") && !(stop != "" && p.isOp(stop)) {
		p.p++
	}
	if p.p == start {
		return "", p.errUnexpected("<QUOTED_STRING>")
	}
	return strings.TrimSpace(p.src[p.toks[start].off:p.toks[p.p-1].end]), nil
}

func (p *parser) parseSet() (ast.Statement, error) {
	st := &ast.Set{Pos: p.advance().pos}
	if p.at(tEOF) || p.isOp(";") {
		return st, nil
	}
	var err error
	if st.Key, err = p.rawKey("="); err != nil {
		return nil, err
	}
	st.HasKey = true
	if err := p.expectOp("="); err != nil {
		return nil, err
	}
	st.Value, err = p.rawKey("")
	return st, err
}

func (p *parser) parseReset() (ast.Statement, error) {
	st := &ast.Reset{Pos: p.advance().pos}
	if p.at(tEOF) || p.isOp(";") {
		return st, nil
	}
	var err error
	st.Key, err = p.rawKey("")
	return st, err
}

// showFrom parses an optional FROM|IN name.
func (p *parser) showFrom() (ast.ShowFrom, error) {
	var f ast.ShowFrom
	switch {
	case p.acceptKw("FROM"):
	case p.acceptKw("IN"):
		f.In = true
	default:
		return f, nil
	}
	var err error
	f.Name, err = p.objectName()
	return f, err
}

// showLike parses an optional [NOT] LIKE|ILIKE 'pattern'.
func (p *parser) showLike() (*ast.ShowLike, error) {
	l := &ast.ShowLike{}
	if p.isKw("NOT") && (p.isKwAt(1, "LIKE") || p.isKwAt(1, "ILIKE")) {
		p.p++
		l.Not = true
	}
	switch {
	case p.acceptKw("LIKE"):
	case p.acceptKw("ILIKE"):
		l.ILike = true
	default:
		return nil, nil
	}
	var err error
	l.Pattern, err = p.stringLit()
	return l, err
}

func (p *parser) parseShow() (ast.Statement, error) {
	pos := p.advance().pos
	t := p.tok()
	if t.kind != tIdent {
		return nil, p.errUnexpected(`"TABLES"`, `"VIEWS"`, `"DATABASES"`, `"CATALOGS"`)
	}
	p.p++
	var (
		from ast.ShowFrom
		like *ast.ShowLike
		err  error
	)
	fromLike := func() error {
		namePos := p.peekAt(1).pos
		if from, err = p.showFrom(); err != nil {
			return err
		}
		if len(from.Name.Parts) > 2 && t.upper != "COLUMNS" {
			return newError(namePos, "Show %s from/in identifier [ %s ] format error, it should be [catalog_name.]database_name.", strings.ToLower(t.upper), strings.Join(from.Name.Parts, "."))
		}
		like, err = p.showLike()
		return err
	}
	switch t.upper {
	case "TABLES":
		if err := fromLike(); err != nil {
			return nil, err
		}
		return &ast.ShowTables{Pos: pos, From: from, Like: like}, nil
	case "VIEWS":
		if err := fromLike(); err != nil {
			return nil, err
		}
		return &ast.ShowViews{Pos: pos, From: from, Like: like}, nil
	case "DATABASES":
		namePos := p.peekAt(1).pos
		if err := fromLike(); err != nil {
			return nil, err
		}
		if len(from.Name.Parts) > 1 {
			return nil, newError(namePos, "Show databases from/in identifier [ %s ] format error, catalog must be a single part identifier.", strings.Join(from.Name.Parts, "."))
		}
		return &ast.ShowDatabases{Pos: pos, From: from, Like: like}, nil
	case "CATALOGS":
		if like, err = p.showLike(); err != nil {
			return nil, err
		}
		return &ast.ShowCatalogs{Pos: pos, Like: like}, nil
	case "CURRENT":
		switch {
		case p.acceptKw("CATALOG"):
			return &ast.ShowCurrentCatalog{Pos: pos}, nil
		case p.acceptKw("DATABASE"):
			return &ast.ShowCurrentDatabase{Pos: pos}, nil
		}
		return nil, p.errUnexpected(`"CATALOG"`, `"DATABASE"`)
	case "USER", "FUNCTIONS":
		user := t.upper == "USER"
		if user {
			if err := p.expectKw("FUNCTIONS"); err != nil {
				return nil, err
			}
		}
		if err := fromLike(); err != nil {
			return nil, err
		}
		return &ast.ShowFunctions{Pos: pos, User: user, From: from, Like: like}, nil
	case "PROCEDURES":
		if err := fromLike(); err != nil {
			return nil, err
		}
		return &ast.ShowProcedures{Pos: pos, From: from, Like: like}, nil
	case "FULL", "MODULES":
		full := t.upper == "FULL"
		if full {
			if err := p.expectKw("MODULES"); err != nil {
				return nil, err
			}
		}
		return &ast.ShowModules{Pos: pos, Full: full}, nil
	case "COLUMNS":
		if !p.isKw("FROM") && !p.isKw("IN") {
			return nil, p.errUnexpected(`"FROM"`, `"IN"`)
		}
		if err := fromLike(); err != nil {
			return nil, err
		}
		return &ast.ShowColumns{Pos: pos, From: from, Like: like}, nil
	case "CREATE":
		switch {
		case p.acceptKw("TABLE"):
			name, err := p.objectName()
			return &ast.ShowCreateTable{Pos: pos, Name: name}, err
		case p.acceptKw("VIEW"):
			name, err := p.objectName()
			return &ast.ShowCreateView{Pos: pos, Name: name}, err
		case p.acceptKw("CATALOG"):
			name, err := p.ident()
			return &ast.ShowCreateCatalog{Pos: pos, Name: name}, err
		case p.isKw("MATERIALIZED"):
			return nil, unsupported(p.tok().pos, "SHOW CREATE MATERIALIZED TABLE")
		}
		return nil, p.errUnexpected(`"TABLE"`, `"VIEW"`, `"CATALOG"`)
	case "EFFECTIVE":
		// tablerun's own statement (planner/ast/stmt_config.go).
		if err := p.expectKw("CONFIGURATION"); err != nil {
			return nil, err
		}
		return &ast.ShowEffectiveConfiguration{Pos: pos}, nil
	case "JOBS":
		return &ast.ShowJobs{Pos: pos}, nil
	case "JARS":
		return &ast.ShowJars{Pos: pos}, nil
	case "PARTITIONS", "MATERIALIZED", "MODELS":
		return nil, unsupported(t.pos, "SHOW "+t.upper)
	}
	p.p--
	return nil, p.errUnexpected(`"TABLES"`, `"VIEWS"`, `"DATABASES"`, `"CATALOGS"`)
}

func (p *parser) parseDescribe() (ast.Statement, error) {
	pos := p.advance().pos
	var err error
	switch {
	case p.isKw("CATALOG") && (p.isKwAt(1, "EXTENDED") || isIdentTok(p.peekAt(1))):
		p.p++
		st := &ast.DescribeCatalog{Pos: pos, Extended: p.acceptKw("EXTENDED")}
		st.Name, err = p.ident()
		return st, err
	case p.isKw("DATABASE") && (p.isKwAt(1, "EXTENDED") || isIdentTok(p.peekAt(1))):
		p.p++
		st := &ast.DescribeDatabase{Pos: pos, Extended: p.acceptKw("EXTENDED")}
		st.Name, err = p.objectName()
		return st, err
	case p.isKw("JOB") && p.peekAt(1).kind == tString:
		p.p++
		st := &ast.DescribeJob{Pos: pos} // stmt_jobs.go
		st.ID, err = p.stringLit()
		return st, err
	case p.isKw("FUNCTION") && (p.isKwAt(1, "EXTENDED") || isIdentTok(p.peekAt(1))):
		p.p++
		st := &ast.DescribeFunction{Pos: pos, Extended: p.acceptKw("EXTENDED")}
		st.Name, err = p.objectName()
		return st, err
	}
	st := &ast.Describe{Pos: pos}
	if p.isKw("EXTENDED") && isIdentTok(p.peekAt(1)) {
		p.p++
		st.Extended = true
	}
	st.Name, err = p.objectName()
	return st, err
}

func (p *parser) parseUse() (ast.Statement, error) {
	pos := p.advance().pos
	var err error
	switch {
	case p.isKw("CATALOG") && isIdentTok(p.peekAt(1)):
		p.p++
		st := &ast.Use{Pos: pos, Catalog: true}
		var n string
		n, err = p.ident()
		st.Name = ast.ObjectName{Parts: []string{n}}
		return st, err
	case p.isKw("MODULES") && isIdentTok(p.peekAt(1)):
		p.p++
		st := &ast.UseModules{Pos: pos}
		st.Names, err = p.identList()
		return st, err
	}
	st := &ast.Use{Pos: pos}
	st.Name, err = p.objectName()
	return st, err
}

// parseStatementSet parses STATEMENT SET BEGIN stmt; {stmt;} END after
// an optional EXECUTE.
func (p *parser) parseStatementSet(pos ast.Pos) (ast.Statement, error) {
	if err := p.expectKw("STATEMENT", "SET", "BEGIN"); err != nil {
		return nil, err
	}
	set := &ast.StatementSet{Pos: pos}
	for {
		var st ast.Statement
		var err error
		switch {
		case p.isKw("INSERT"):
			st, err = p.parseInsert()
		case p.isKw("CREATE"):
			st, err = p.parseCreate()
			if err == nil {
				if ct, ok := st.(*ast.CreateTable); !ok || ct.AsQuery == nil {
					return nil, newError(st.Position(), "Encountered \"CREATE\" at line %d, column %d. Only INSERT and CREATE TABLE AS are allowed in a statement set.", st.Position().Line, st.Position().Col)
				}
			}
		case p.isKw("END") && len(set.Statements) > 0:
			p.p++
			return set, nil
		default:
			return nil, p.errUnexpected(`"INSERT"`, `"UPSERT"`)
		}
		if err != nil {
			return nil, err
		}
		set.Statements = append(set.Statements, st)
		if err := p.expectOp(";"); err != nil {
			return nil, err
		}
	}
}

// setPrimaryKey stores the primary key of a CREATE TABLE or ALTER TABLE
// schema; a second one is Flink's "Duplicate primary key definition" error
// at pos.
func setPrimaryKey(dst **ast.PrimaryKey, pk *ast.PrimaryKey, pos ast.Pos) error {
	if *dst != nil {
		return newError(pos, "Duplicate primary key definition at line %d, column %d.", pos.Line, pos.Col)
	}
	*dst = pk
	return nil
}
