package core

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/validate"
)

// execute dispatches one parsed statement. Every statement kind is handled
// in this one switch; anything else is "not supported yet".
func (e *TableEnvironment) execute(ctx context.Context, st ast.Statement, now time.Time) (*TableResult, error) {
	if e.cfg.SQLDialect() == "hive" {
		switch st.(type) {
		case *ast.Set, *ast.Reset, *ast.ShowEffectiveConfiguration:
		default:
			return nil, unsupported("the Hive dialect (SET 'table.sql-dialect' = 'default')")
		}
	}
	if e.stmtSet != nil {
		return e.inStatementSet(ctx, st, now)
	}
	switch s := st.(type) {
	case *ast.BeginStatementSet:
		e.stmtSet = []*logical.Sink{}
		return okResult(), nil
	case *ast.EndStatementSet:
		return nil, classify(KindExecution, &sqlExecutionError{"No Statement Set to submit. 'END' statement should be used after 'BEGIN STATEMENT SET'."})
	case *ast.StatementSet:
		sinks := make([]*logical.Sink, 0, len(s.Statements))
		for _, inner := range s.Statements {
			ins, ok := inner.(*ast.Insert)
			if !ok {
				return nil, unsupported("%s in a statement set", statementName(inner))
			}
			sink, err := e.validator(now).Insert(ins)
			if err != nil {
				return nil, classify(KindValidation, err)
			}
			sinks = append(sinks, sink)
		}
		return e.runSinks(ctx, sinks, now)
	case *ast.QueryStmt:
		plan, err := e.validator(now).Query(s.Query)
		if err != nil {
			return nil, classify(KindValidation, err)
		}
		return e.runQuery(ctx, plan, now)
	case *ast.Insert:
		return e.runInsert(ctx, s, now)
	case *ast.Explain:
		if s.Analyze {
			return e.executeExplainAnalyze(ctx, s, now)
		}
		return e.executeExplain(s, now)
	case *ast.Set:
		return e.executeSet(s)
	case *ast.Reset:
		if s.Key == "" {
			e.cfg.ResetAll()
		} else {
			e.cfg.Reset(s.Key)
			e.warnUnknownKey(s.Key, "reset")
		}
		return okResult(), nil
	case *ast.CreateTable:
		return e.createTable(ctx, s, now)
	case *ast.CreateView:
		return e.createView(s, now)
	case *ast.AlterView:
		return e.alterView(s, now)
	case *ast.DropTable:
		return e.drop(s.Name, false, s.Temporary, s.IfExists)
	case *ast.DropView:
		return e.drop(s.Name, true, s.Temporary, s.IfExists)
	case *ast.ShowTables:
		return e.showObjects(s.From, s.Like, "table name", false, true)
	case *ast.ShowViews:
		return e.showObjects(s.From, s.Like, "view name", true, false)
	case *ast.ShowDatabases:
		return e.showDatabases(s)
	case *ast.ShowCatalogs:
		return stringResult("catalog name", filterLike(e.cat.ListCatalogs(), s.Like)), nil
	case *ast.ShowCurrentCatalog:
		return stringResult("current catalog name", []string{e.cat.CurrentCatalog()}), nil
	case *ast.ShowCurrentDatabase:
		return stringResult("current database name", []string{e.cat.CurrentDatabase()}), nil
	case *ast.ShowEffectiveConfiguration:
		return e.effectiveConfigResult(), nil // config_file.go
	case *ast.ShowFunctions:
		return e.showFunctionList(s)
	case *ast.ShowColumns:
		return e.describe(s.From.Name, s.Like, now)
	case *ast.Describe:
		return e.describe(s.Name, nil, now)
	case *ast.ShowCreateTable:
		return e.showCreate(s.Name, false, now)
	case *ast.ShowCreateView:
		return e.showCreate(s.Name, true, now)
	case *ast.Use:
		return e.use(s)
	case *ast.CreateDatabase:
		return e.createDatabase(s)
	case *ast.DropDatabase:
		return e.dropDatabase(s)
	case *ast.AlterTable:
		return e.alterTable(s, now)
	case *ast.CreateCatalog:
		return e.createCatalog(s)
	case *ast.DropCatalog:
		return e.dropCatalog(s)
	case *ast.DescribeCatalog:
		return e.describeCatalog(s)
	case *ast.DescribeDatabase:
		return e.describeDatabase(s) // describe_database.go
	case *ast.ShowCreateCatalog:
		return e.showCreateCatalog(s)
	case *ast.AlterCatalog:
		return e.alterCatalog(s)
	case *ast.AlterDatabase:
		return e.alterDatabase(s)
	}
	if res, ok, err := e.executeFunctionStatement(st); ok {
		return res, err
	}
	return nil, unsupported("%s", statementName(st))
}

// sqlExecutionError is an error of the SQL client's session state, which
// Flink reports as SqlExecutionException.
type sqlExecutionError struct{ msg string }

func (e *sqlExecutionError) Error() string     { return e.msg }
func (e *sqlExecutionError) JavaClass() string { return ClassSQLExecution }

// inStatementSet handles a statement between BEGIN STATEMENT SET and END:
// INSERTs are validated and collected, END runs them, anything else is an
// error that leaves the set open.
func (e *TableEnvironment) inStatementSet(ctx context.Context, st ast.Statement, now time.Time) (*TableResult, error) {
	switch s := st.(type) {
	case *ast.Insert:
		sink, err := e.validator(now).Insert(s)
		if err != nil {
			return nil, classify(KindValidation, err)
		}
		e.stmtSet = append(e.stmtSet, sink)
		return okResult(), nil
	case *ast.EndStatementSet:
		sinks := e.stmtSet
		e.stmtSet = nil
		if len(sinks) == 0 {
			return okResult(), nil
		}
		return e.runSinks(ctx, sinks, now)
	}
	return nil, classify(KindExecution, &sqlExecutionError{"Only 'INSERT/CREATE TABLE AS' statement is allowed in Statement Set or use 'END' statement to submit Statement Set."})
}

// statementName names a statement type for "not supported yet" messages,
// e.g. *ast.AlterTable → "ALTER TABLE".
func statementName(st any) string {
	switch a := st.(type) {
	case nil:
		return "statement"
	case *ast.AlterSchema:
		if a.Modify {
			return "ALTER MODIFY"
		}
		return "ALTER ADD"
	}
	t := reflect.TypeOf(st)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	n := t.Name()
	var b strings.Builder
	for i, r := range n {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

func (e *TableEnvironment) executeExplain(s *ast.Explain, now time.Time) (*TableResult, error) {
	var plan logical.Node
	var err error
	switch inner := s.Statement.(type) {
	case *ast.QueryStmt:
		plan, err = e.validator(now).Query(inner.Query)
	case *ast.Insert:
		plan, err = e.validator(now).Insert(inner)
	case *ast.StatementSet:
		text, err := e.explainStatementSet(inner, s.Details, now) // explain_set.go
		if err != nil {
			return nil, err
		}
		return stringResult("result", []string{text}), nil
	default:
		return nil, unsupported("EXPLAIN %s", statementName(s.Statement))
	}
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	text, err := e.explain(plan, s.Details, now)
	if err != nil {
		return nil, err
	}
	return stringResult("result", []string{text}), nil
}

func (e *TableEnvironment) executeSet(s *ast.Set) (*TableResult, error) {
	if !s.HasKey {
		entries := e.cfg.Explicit()
		res := &TableResult{kind: SuccessWithContent, schema: stringResult("key", nil).schema}
		res.schema = append(res.schema, stringResult("value", nil).schema...)
		for _, en := range entries {
			res.rows = append(res.rows, []any{en.Key, en.Value})
		}
		return res, nil
	}
	// table.builtin-catalog-name / -database-name are stored but, as in
	// Flink, only read when a session starts.
	key := s.Key
	if err := e.cfg.Set(key, s.Value); err != nil {
		return nil, classify(KindValidation, err)
	}
	e.warnUnknownKey(key, "set")
	return okResult(), nil
}

func (e *TableEnvironment) createTable(ctx context.Context, s *ast.CreateTable, now time.Time) (*TableResult, error) {
	if s.AsQuery != nil {
		return e.createTableAs(ctx, s, now)
	}
	if s.Like != nil {
		merged, err := e.mergeLike(s)
		if err != nil {
			return nil, err
		}
		s = merged
	}
	id, tbl, err := e.validator(now).CreateTable(s)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	if err := e.inferColumns(id, tbl, s.IfNotExists); err != nil {
		return nil, classify(KindValidation, err)
	}
	if err := e.cat.CreateObject(id, tbl, s.Temporary, s.IfNotExists); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

// inferColumns gives a table declared without columns the columns of its
// data when its connector can tell them (connectors.SchemaInferringFactory:
// Parquet, Avro, Arrow files and csv with 'csv.header'; tablerun's
// extension). With IF NOT EXISTS and an existing table nothing is read.
func (e *TableEnvironment) inferColumns(id catalog.ObjectIdentifier, tbl *catalog.Table, ifNotExists bool) error {
	if len(tbl.Columns) > 0 || tbl.Options["connector"] == "" {
		return nil
	}
	if ifNotExists {
		if _, _, err := e.cat.Lookup(id); err == nil {
			return nil
		}
	}
	f, err := e.conns.Lookup(&catalog.ResolvedTable{ID: id, Table: tbl})
	if err != nil {
		return nil // reported when the table is read
	}
	inf, ok := f.(connectors.SchemaInferringFactory)
	if !ok || !inf.CanInferSchema(tbl.Options) {
		return nil
	}
	s, err := inf.InferSchema(tbl.Options)
	if err != nil {
		return fmt.Errorf("Table %s declares no columns and they cannot be inferred: %w", id.Summary(), err)
	}
	for _, c := range s {
		tbl.Columns = append(tbl.Columns, catalog.Column{Name: c.Name, Type: c.Type})
	}
	return nil
}

// checkTemporary reports a temporary object that already exists with
// Flink's wording, which says "table" for views too.
func (e *TableEnvironment) checkTemporary(id catalog.ObjectIdentifier, temporary, ifNotExists bool) error {
	if !temporary || ifNotExists {
		return nil
	}
	if _, temp, err := e.cat.Lookup(id); err == nil && temp {
		return classify(KindValidation, fmt.Errorf("Temporary table '%s' already exists", id.String()))
	}
	return nil
}

func (e *TableEnvironment) drop(name ast.ObjectName, view, temporary, ifExists bool) (*TableResult, error) {
	id, err := e.cat.Qualify(name.Parts)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	if err := e.cat.DropObject(id, view, temporary, ifExists); err != nil {
		return nil, classify(KindValidation, err)
	}
	return okResult(), nil
}

func (e *TableEnvironment) use(s *ast.Use) (*TableResult, error) {
	parts := s.Name.Parts
	if s.Catalog {
		if len(parts) != 1 {
			return nil, classify(KindValidation, fmt.Errorf("catalog name must be a single part identifier"))
		}
		if err := e.cat.UseCatalog(parts[0]); err != nil {
			return nil, classify(KindCatalog, err)
		}
		return okResult(), nil
	}
	switch len(parts) {
	case 1:
		if err := e.cat.UseDatabase(parts[0]); err != nil {
			return nil, classify(KindCatalog, err)
		}
	case 2:
		if err := e.cat.UseCatalogDatabase(parts[0], parts[1]); err != nil {
			return nil, classify(KindCatalog, err)
		}
	default:
		return nil, classify(KindValidation, fmt.Errorf("Database name must have 1 or 2 parts, got %d", len(parts)))
	}
	return okResult(), nil
}

// databaseTarget resolves [cat.]db to its catalog.
func (e *TableEnvironment) databaseTarget(name ast.ObjectName) (catalog.Catalog, string, string, error) {
	cat, db := e.cat.CurrentCatalog(), ""
	switch len(name.Parts) {
	case 1:
		db = name.Parts[0]
	case 2:
		cat, db = name.Parts[0], name.Parts[1]
	default:
		return nil, "", "", fmt.Errorf("database name must be [catalog.]database")
	}
	c, ok := e.cat.Catalog(cat)
	if !ok {
		return nil, "", "", fmt.Errorf("Catalog %s does not exist", cat)
	}
	return c, cat, db, nil
}

func (e *TableEnvironment) createDatabase(s *ast.CreateDatabase) (*TableResult, error) {
	c, _, db, err := e.databaseTarget(s.Name)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	props := map[string]string{}
	for _, o := range s.Options {
		props[o.Key] = o.Value
	}
	if err := c.CreateDatabase(db, &catalog.Database{Comment: s.Comment, Properties: props}, s.IfNotExists); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

func (e *TableEnvironment) dropDatabase(s *ast.DropDatabase) (*TableResult, error) {
	c, cat, db, err := e.databaseTarget(s.Name)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	if cat == e.cat.CurrentCatalog() && db == e.cat.CurrentDatabase() {
		return nil, classify(KindCatalog, fmt.Errorf("Cannot drop a database which is currently in use."))
	}
	if err := c.DropDatabase(db, s.IfExists, s.Cascade); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

// createTableAs runs CREATE TABLE … AS query: the table gets the query's
// columns and the WITH options, then the query is inserted into it. If the
// insert fails the new table is dropped again, so a failed statement leaves
// the session unchanged.
func (e *TableEnvironment) createTableAs(ctx context.Context, s *ast.CreateTable, now time.Time) (*TableResult, error) {
	if len(s.Columns) > 0 || s.PrimaryKey != nil || s.Watermark != nil || s.Like != nil {
		return nil, unsupported("CREATE TABLE ... AS SELECT with a column list, constraint, watermark or LIKE")
	}
	if err := e.checkBatch(); err != nil {
		return nil, err
	}
	id, err := e.cat.Qualify(s.Name.Parts)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	if _, _, err := e.cat.Lookup(id); err == nil {
		if s.IfNotExists {
			return okResult(), nil
		}
		if err := e.checkTemporary(id, s.Temporary, false); err != nil {
			return nil, err
		}
	}
	plan, err := e.validator(now).Query(s.AsQuery)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	tbl := &catalog.Table{Comment: s.Comment, PartitionKeys: s.PartitionedBy, Options: map[string]string{}}
	for _, f := range plan.Schema() {
		tbl.Columns = append(tbl.Columns, catalog.Column{Name: f.Name, Type: f.Type})
	}
	for _, o := range s.Options {
		tbl.Options[o.Key] = o.Value
	}
	if err := e.cat.CreateObject(id, tbl, s.Temporary, false); err != nil {
		return nil, classify(KindCatalog, err)
	}
	res, err := e.runInsert(ctx, &ast.Insert{Pos: s.Pos, Table: s.Name, Query: s.AsQuery}, now)
	if err != nil {
		_ = e.cat.DropObject(id, false, s.Temporary, true)
		return nil, err
	}
	return res, nil
}

// warnUnknownKey writes a [WARN] line to the session's stderr when SET (or RESET)
// stored a key tablerun does not know that is close to one it knows
// (validate.Suggest): most likely a typo that would otherwise go unseen.
// Flink accepts any key, and so does SET; keys far from every known one
// (options of connectors or of Flink features tablerun lacks) pass
// silently.
func (e *TableEnvironment) warnUnknownKey(key, verb string) {
	known := config.KnownKeys()
	if slices.Contains(known, key) {
		return
	}
	if hint := validate.DidYouMean(key, known); hint != "" {
		fmt.Fprintf(e.stderr, "[WARN] '%s' is not a known option key; it is %s anyway, as Flink does. %s\n", key, verb, hint)
	}
}
