// Package catalog holds catalog objects (tables, views), the Catalog
// interface with its in-memory implementation, and the Manager that resolves
// 1-, 2- and 3-part names against the current catalog and database and keeps
// the session's temporary objects.
package catalog

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/types"
)

// ObjectIdentifier is a fully qualified catalog.database.object name.
type ObjectIdentifier struct {
	Catalog, Database, Object string
}

// String prints the identifier back-quoted, as Flink's asSerializableString:
// `cat`.`db`.`obj`.
func (id ObjectIdentifier) String() string {
	return Quote(id.Catalog) + "." + Quote(id.Database) + "." + Quote(id.Object)
}

// Summary prints cat.db.obj without quotes, as Flink's asSummaryString.
func (id ObjectIdentifier) Summary() string {
	return id.Catalog + "." + id.Database + "." + id.Object
}

// Quote back-quotes an identifier, doubling embedded back quotes.
func Quote(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// Column is one column of a catalog table.
type Column struct {
	Name    string
	Type    types.Type
	Comment string
	// Expr is the SQL text of a computed column's expression ("" for a
	// physical column), as written in the DDL.
	Expr string
	// Metadata marks a METADATA column; MetadataKey is its FROM key.
	Metadata    bool
	MetadataKey string
	Virtual     bool
}

// IsPhysical reports a column the connector reads and writes.
func (c Column) IsPhysical() bool { return c.Expr == "" && !c.Metadata }

// PrimaryKey is a NOT ENFORCED primary key constraint.
type PrimaryKey struct {
	Name    string
	Columns []string
}

// Watermark is a WATERMARK FOR column AS expr declaration.
type Watermark struct {
	Column string
	// Expr is the watermark expression as SQL text with back-quoted
	// identifiers, e.g. "`ts` - INTERVAL '5' SECOND".
	Expr string
}

// Table is a catalog table: schema, constraints and connector options.
type Table struct {
	Columns       []Column
	PrimaryKey    *PrimaryKey
	Watermark     *Watermark
	Comment       string
	PartitionKeys []string
	Options       map[string]string
}

// View is a catalog view: the original query text and its expansion with
// fully qualified names, plus the output schema at creation time.
type View struct {
	Columns       types.Schema
	OriginalQuery string
	ExpandedQuery string
	Comment       string
}

// Object is a *Table or a *View.
type Object interface{ isObject() }

func (*Table) isObject() {}
func (*View) isObject()  {}

// Schema returns all columns (physical, computed, metadata) as a schema.
func (t *Table) Schema() types.Schema {
	s := make(types.Schema, len(t.Columns))
	for i, c := range t.Columns {
		s[i] = types.Field{Name: c.Name, Type: c.Type, Description: c.Comment}
	}
	return s
}

// PhysicalSchema returns the physical columns: what the connector reads
// and writes.
func (t *Table) PhysicalSchema() types.Schema {
	var s types.Schema
	for _, c := range t.Columns {
		if c.IsPhysical() {
			s = append(s, types.Field{Name: c.Name, Type: c.Type, Description: c.Comment})
		}
	}
	return s
}

// ResolvedTable is a table found through the Manager.
type ResolvedTable struct {
	ID        ObjectIdentifier
	Table     *Table
	Temporary bool
}

// PhysicalSchema is the connector schema of the table.
func (t *ResolvedTable) PhysicalSchema() types.Schema { return t.Table.PhysicalSchema() }

// Database is a catalog database.
type Database struct {
	Comment    string
	Properties map[string]string
}

// Errors that callers test with errors.Is.
var (
	ErrNotFound      = errors.New("not found")
	ErrAlreadyExists = errors.New("already exists")
)

// Catalog stores databases and their objects. Implementations are not
// required to be safe for concurrent use; the Manager serialises access.
type Catalog interface {
	// DefaultDatabase is the database made current by USE CATALOG.
	DefaultDatabase() string
	ListDatabases() ([]string, error)
	GetDatabase(name string) (*Database, error)
	CreateDatabase(name string, db *Database, ignoreIfExists bool) error
	DropDatabase(name string, ignoreIfNotExists, cascade bool) error
	// GetObject returns the table or view at db.name, or an error wrapping
	// ErrNotFound.
	GetObject(db, name string) (Object, error)
	// ListObjects returns the names of all tables and views of db, sorted.
	ListObjects(db string) ([]string, error)
	CreateObject(db, name string, obj Object, ignoreIfExists bool) error
	DropObject(db, name string, ignoreIfNotExists bool) error
}

// InMemory is Flink's generic_in_memory catalog.
type InMemory struct {
	name      string
	defaultDB string
	dbs       map[string]*memDB
}

type memDB struct {
	db      *Database
	objects map[string]Object
}

// NewInMemory returns an in-memory catalog holding one database, defaultDB.
func NewInMemory(name, defaultDB string) *InMemory {
	c := &InMemory{name: name, defaultDB: defaultDB, dbs: map[string]*memDB{}}
	c.dbs[defaultDB] = &memDB{db: &Database{}, objects: map[string]Object{}}
	return c
}

// DefaultDatabase implements Catalog.
func (c *InMemory) DefaultDatabase() string { return c.defaultDB }

// ListDatabases implements Catalog.
func (c *InMemory) ListDatabases() ([]string, error) {
	out := make([]string, 0, len(c.dbs))
	for k := range c.dbs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// GetDatabase implements Catalog.
func (c *InMemory) GetDatabase(name string) (*Database, error) {
	d, ok := c.dbs[name]
	if !ok {
		return nil, fmt.Errorf("Database %s does not exist in Catalog %s: %w", name, c.name, ErrNotFound)
	}
	return d.db, nil
}

// CreateDatabase implements Catalog.
func (c *InMemory) CreateDatabase(name string, db *Database, ignoreIfExists bool) error {
	if _, ok := c.dbs[name]; ok {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("Database %s already exists in Catalog %s: %w", name, c.name, ErrAlreadyExists)
	}
	c.dbs[name] = &memDB{db: db, objects: map[string]Object{}}
	return nil
}

// DropDatabase implements Catalog.
func (c *InMemory) DropDatabase(name string, ignoreIfNotExists, cascade bool) error {
	d, ok := c.dbs[name]
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return fmt.Errorf("Database %s does not exist in Catalog %s: %w", name, c.name, ErrNotFound)
	}
	if len(d.objects) > 0 && !cascade {
		return fmt.Errorf("Database %s in catalog %s is not empty", name, c.name)
	}
	delete(c.dbs, name)
	return nil
}

// GetObject implements Catalog.
func (c *InMemory) GetObject(db, name string) (Object, error) {
	d, ok := c.dbs[db]
	if !ok {
		return nil, fmt.Errorf("Database %s does not exist in Catalog %s: %w", db, c.name, ErrNotFound)
	}
	o, ok := d.objects[name]
	if !ok {
		return nil, fmt.Errorf("Table (or view) %s.%s does not exist in Catalog %s: %w", db, name, c.name, ErrNotFound)
	}
	return o, nil
}

// ListObjects implements Catalog.
func (c *InMemory) ListObjects(db string) ([]string, error) {
	d, ok := c.dbs[db]
	if !ok {
		return nil, fmt.Errorf("Database %s does not exist in Catalog %s: %w", db, c.name, ErrNotFound)
	}
	out := make([]string, 0, len(d.objects))
	for k := range d.objects {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// CreateObject implements Catalog.
func (c *InMemory) CreateObject(db, name string, obj Object, ignoreIfExists bool) error {
	d, ok := c.dbs[db]
	if !ok {
		return fmt.Errorf("Database %s does not exist in Catalog %s: %w", db, c.name, ErrNotFound)
	}
	if _, ok := d.objects[name]; ok {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("Table (or view) %s.%s already exists in Catalog %s: %w", db, name, c.name, ErrAlreadyExists)
	}
	d.objects[name] = obj
	return nil
}

// DropObject implements Catalog.
func (c *InMemory) DropObject(db, name string, ignoreIfNotExists bool) error {
	d, ok := c.dbs[db]
	if ok {
		if _, ok = d.objects[name]; ok {
			delete(d.objects, name)
			return nil
		}
	}
	if ignoreIfNotExists {
		return nil
	}
	return fmt.Errorf("Table (or view) %s.%s does not exist in Catalog %s: %w", db, name, c.name, ErrNotFound)
}

var _ Catalog = (*InMemory)(nil)
