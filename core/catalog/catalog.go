package catalog

import (
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

// Key is a metadata column's key: its FROM key, else its name.
func (c Column) Key() string {
	if c.MetadataKey != "" {
		return c.MetadataKey
	}
	return c.Name
}

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
	// TimeAttributes marks the columns that are time attributes of the
	// view's query (a rowtime or proctime column passed through), indexed
	// like Columns; nil when there is none.
	TimeAttributes []TimeAttribute
}

// TimeAttribute says whether a view column is a time attribute.
type TimeAttribute uint8

// Time attribute kinds.
const (
	// NoTimeAttribute is a regular column.
	NoTimeAttribute TimeAttribute = iota
	// RowtimeAttribute is an event-time attribute (DESCRIBE: *ROWTIME*).
	RowtimeAttribute
	// ProctimeAttribute is a processing-time attribute (*PROCTIME*).
	ProctimeAttribute
)

// TimeAttributeOf returns the time attribute of view column i.
func (v *View) TimeAttributeOf(i int) TimeAttribute {
	if i < 0 || i >= len(v.TimeAttributes) {
		return NoTimeAttribute
	}
	return v.TimeAttributes[i]
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
	// Abilities are what the table's connector can do (abilities.go),
	// resolved from its factory by the facade; nil when no factory was
	// asked (the zero Abilities then apply).
	Abilities *Abilities
}

// PhysicalSchema is the connector schema of the table.
func (t *ResolvedTable) PhysicalSchema() types.Schema { return t.Table.PhysicalSchema() }

// MetadataColumns returns the table's METADATA columns in declaration
// order; persisted only leaves out the VIRTUAL ones.
func (t *Table) MetadataColumns(persisted bool) []Column {
	var out []Column
	for _, c := range t.Columns {
		if c.Metadata && !(persisted && c.Virtual) {
			out = append(out, c)
		}
	}
	return out
}

// SourceSchema is what a scan of the table can produce: the physical
// columns, then every METADATA column in declaration order (each with its
// declared type). A scan's projection indexes it.
func (t *Table) SourceSchema() types.Schema {
	s := t.PhysicalSchema()
	for _, c := range t.MetadataColumns(false) {
		s = append(s, types.Field{Name: c.Name, Type: c.Type, Description: c.Comment})
	}
	return s
}

// SinkSchema is what a write into the table consumes: the physical
// columns, then the persisted (non-VIRTUAL) METADATA columns in
// declaration order.
func (t *Table) SinkSchema() types.Schema {
	s := t.PhysicalSchema()
	for _, c := range t.MetadataColumns(true) {
		s = append(s, types.Field{Name: c.Name, Type: c.Type, Description: c.Comment})
	}
	return s
}

// Database is a catalog database.
type Database struct {
	Comment    string
	Properties map[string]string
}

// Catalog stores databases and their objects. Implementations must be safe
// for concurrent use; the Manager also serialises its own bookkeeping.
// Errors should be *Error values with Flink's messages (DatabaseNotExist,
// TableAlreadyExist, …).
type Catalog interface {
	// DefaultDatabase is the database made current by USE CATALOG.
	DefaultDatabase() string
	ListDatabases() ([]string, error)
	GetDatabase(name string) (*Database, error)
	CreateDatabase(name string, db *Database, ignoreIfExists bool) error
	// AlterDatabase replaces the description of an existing database.
	AlterDatabase(name string, db *Database, ignoreIfNotExists bool) error
	DropDatabase(name string, ignoreIfNotExists, cascade bool) error
	// GetObject returns the table or view at db.name, or an error wrapping
	// ErrNotFound.
	GetObject(db, name string) (Object, error)
	// ListObjects returns the names of all tables and views of db, sorted.
	ListObjects(db string) ([]string, error)
	CreateObject(db, name string, obj Object, ignoreIfExists bool) error
	// AlterObject replaces the definition of an existing table or view.
	AlterObject(db, name string, obj Object, ignoreIfNotExists bool) error
	// RenameObject renames a table or view inside its database.
	RenameObject(db, name, newName string, ignoreIfNotExists bool) error
	DropObject(db, name string, ignoreIfNotExists bool) error
	// Close releases what the catalog holds; it is called when the catalog
	// is dropped or its session closed.
	Close() error
}

// clone returns a deep copy of the database description.
func (d *Database) clone() *Database {
	if d == nil {
		return &Database{}
	}
	c := &Database{Comment: d.Comment}
	if d.Properties != nil {
		c.Properties = make(map[string]string, len(d.Properties))
		for k, v := range d.Properties {
			c.Properties[k] = v
		}
	}
	return c
}
