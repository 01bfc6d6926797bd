package core

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/parser"
)

// errClosed is the error of every statement run after Close.
var errClosed = errors.New("The TableEnvironment has been closed.")

// Close releases what the session holds: its temporary objects and its
// catalogs (a persistent catalog has already written every change). Every
// later statement fails. Closing twice is harmless.
func (e *TableEnvironment) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if errors.Is(e.initErr, errClosed) {
		return nil
	}
	err := e.cat.Close()
	if e.remote != nil {
		err = errors.Join(err, e.remote.close())
	}
	e.initErr = classify(KindValidation, errClosed)
	if err != nil {
		return classify(KindCatalog, fmt.Errorf("closing the session: %w", err))
	}
	return nil
}

// RegisterCatalog registers a catalog under name, as Flink's
// TableEnvironment.registerCatalog.
func (e *TableEnvironment) RegisterCatalog(name string, c catalog.Catalog) error {
	if err := e.cat.RegisterCatalog(name, c); err != nil {
		return classify(KindCatalog, err)
	}
	return nil
}

// UseCatalog makes a catalog current (with its default database).
func (e *TableEnvironment) UseCatalog(name string) error {
	if err := e.cat.UseCatalog(name); err != nil {
		return classify(KindCatalog, err)
	}
	return nil
}

// UseDatabase makes a database of the current catalog current.
func (e *TableEnvironment) UseDatabase(name string) error {
	if err := e.cat.UseDatabase(name); err != nil {
		return classify(KindCatalog, err)
	}
	return nil
}

// ListCatalogs returns the registered catalogs, sorted.
func (e *TableEnvironment) ListCatalogs() []string { return e.cat.ListCatalogs() }

// ListDatabases returns the databases of the current catalog, sorted.
func (e *TableEnvironment) ListDatabases() ([]string, error) {
	c, ok := e.cat.Catalog(e.cat.CurrentCatalog())
	if !ok {
		return nil, classify(KindCatalog, fmt.Errorf("Catalog %s does not exist", e.cat.CurrentCatalog()))
	}
	dbs, err := c.ListDatabases()
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	return dbs, nil
}

// ListTables returns the tables and views of the current database,
// temporary and permanent, sorted (as Flink's listTables).
func (e *TableEnvironment) ListTables() ([]string, error) {
	cat, db := e.cat.Current()
	names, err := e.cat.ListObjects(cat, db, false, true)
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	return names, nil
}

// ListViews returns the views of the current database, temporary and
// permanent, sorted.
func (e *TableEnvironment) ListViews() ([]string, error) {
	cat, db := e.cat.Current()
	names, err := e.cat.ListObjects(cat, db, true, false)
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	return names, nil
}

// ListTemporaryTables returns the temporary tables of the current
// database, sorted.
func (e *TableEnvironment) ListTemporaryTables() []string { return e.listTemporary(false) }

// ListTemporaryViews returns the temporary views of the current database,
// sorted.
func (e *TableEnvironment) ListTemporaryViews() []string { return e.listTemporary(true) }

func (e *TableEnvironment) listTemporary(views bool) []string {
	cat, db := e.cat.Current()
	var out []string
	for _, id := range e.cat.ListTemporaryObjects(views) {
		if id.Catalog == cat && id.Database == db {
			out = append(out, id.Object)
		}
	}
	return out
}

// DropTemporaryView drops a temporary view; it reports whether one
// existed (as Flink's dropTemporaryView).
func (e *TableEnvironment) DropTemporaryView(path string) bool {
	return e.dropTemporary(path, true)
}

// DropTemporaryTable drops a temporary table; it reports whether one
// existed.
func (e *TableEnvironment) DropTemporaryTable(path string) bool {
	return e.dropTemporary(path, false)
}

func (e *TableEnvironment) dropTemporary(path string, view bool) bool {
	id, err := e.cat.Qualify(splitPath(path))
	if err != nil {
		return false
	}
	return e.cat.DropObject(id, view, true, false) == nil
}

// splitPath splits a Table API path such as "cat.db.t" or "`my.db`.t" into
// its parts; back-quoted parts may contain dots.
func splitPath(path string) []string {
	var parts []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c == '`' && quoted && i+1 < len(path) && path[i+1] == '`':
			b.WriteByte('`')
			i++
		case c == '`':
			quoted = !quoted
		case c == '.' && !quoted:
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(parts, b.String())
}

// From returns the table or view at path ("t", "db.t" or "cat.db.t";
// back-quote parts that contain dots) as a Table, as Flink's
// TableEnvironment.from.
func (e *TableEnvironment) From(path string) (*Table, error) {
	parts := splitPath(path)
	for i, p := range parts {
		parts[i] = catalog.Quote(p)
	}
	return e.SQLQuery("SELECT * FROM " + strings.Join(parts, "."))
}

// SchemaString returns the table's schema in the layout of Flink's
// printSchema: "root" and one " |-- name: TYPE" line per column.
func (t *Table) SchemaString() string {
	var b strings.Builder
	b.WriteString("root\n")
	for _, f := range t.Schema() {
		fmt.Fprintf(&b, " |-- %s: %s\n", f.Name, f.Type.String())
	}
	return b.String()
}

// PrintSchema writes SchemaString to w.
func (t *Table) PrintSchema(w io.Writer) error {
	_, err := io.WriteString(w, t.SchemaString())
	return err
}

// CreateTemporaryView registers t as a temporary view at path, as Flink's
// createTemporaryView(path, table). The view stores the table's SQL, so
// the table must come from SQLQuery or From.
func (e *TableEnvironment) CreateTemporaryView(path string, t *Table) error {
	if t == nil || t.query == nil {
		return unsupported("CreateTemporaryView of a table not made from SQL")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, view, err := e.viewDefinition(ast.ObjectName{Parts: splitPath(path)}, t.query, t.text, nil, "", e.now())
	if err != nil {
		return err
	}
	id, err := e.cat.Qualify(splitPath(path))
	if err != nil {
		return classify(KindValidation, err)
	}
	if err := e.cat.CreateObject(id, view, true, false); err != nil {
		return classify(KindCatalog, err)
	}
	return nil
}

// javaError is an error Flink reports with a plain Java exception class.
type javaError struct{ class, msg string }

func (e *javaError) Error() string     { return e.msg }
func (e *javaError) JavaClass() string { return e.class }

// multipleStatements reports whether sql is a script of several valid
// statements, which ExecuteSQL refuses as Flink's executeSql does ("only
// single statement supported").
func multipleStatements(sql string) bool {
	stmts, err := parser.ParseScript(sql)
	if err != nil || len(stmts) < 2 {
		return false
	}
	for _, st := range stmts {
		if _, err := parser.ParseStatement(st.Text); err != nil {
			return false
		}
	}
	return true
}
