package core

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
)

// Schema is the schema of a TableDescriptor, built with NewSchema, as
// Flink's Schema.newBuilder().
type Schema struct {
	columns []schemaColumn
	pkName  string
	pk      []string
	wmCol   string
	wmExpr  string
}

type schemaColumn struct {
	name    string
	typ     *types.Type
	expr    string
	meta    bool
	metaKey string
	virtual bool
	comment string
}

// SchemaBuilder builds a Schema.
type SchemaBuilder struct{ s Schema }

// NewSchema starts a schema.
func NewSchema() *SchemaBuilder { return &SchemaBuilder{} }

// Column adds a physical column.
func (b *SchemaBuilder) Column(name string, t types.Type) *SchemaBuilder {
	b.s.columns = append(b.s.columns, schemaColumn{name: name, typ: &t})
	return b
}

// ColumnByExpression adds a computed column; expr is SQL, e.g.
// "PROCTIME()" or "`a` * 2".
func (b *SchemaBuilder) ColumnByExpression(name, expr string) *SchemaBuilder {
	b.s.columns = append(b.s.columns, schemaColumn{name: name, expr: expr})
	return b
}

// ColumnByMetadata adds a metadata column read from the connector's key
// (the column name when key is "").
func (b *SchemaBuilder) ColumnByMetadata(name string, t types.Type, key string, virtual bool) *SchemaBuilder {
	b.s.columns = append(b.s.columns, schemaColumn{name: name, typ: &t, meta: true, metaKey: key, virtual: virtual})
	return b
}

// WithComment sets the comment of the last column added.
func (b *SchemaBuilder) WithComment(comment string) *SchemaBuilder {
	if n := len(b.s.columns); n > 0 {
		b.s.columns[n-1].comment = comment
	}
	return b
}

// PrimaryKey declares a NOT ENFORCED primary key named PK_<cols>.
func (b *SchemaBuilder) PrimaryKey(cols ...string) *SchemaBuilder {
	b.s.pkName, b.s.pk = "", append([]string(nil), cols...)
	return b
}

// PrimaryKeyNamed declares a NOT ENFORCED primary key with a name.
func (b *SchemaBuilder) PrimaryKeyNamed(name string, cols ...string) *SchemaBuilder {
	b.s.pkName, b.s.pk = name, append([]string(nil), cols...)
	return b
}

// Watermark declares the rowtime column and its watermark expression (SQL).
func (b *SchemaBuilder) Watermark(column, expr string) *SchemaBuilder {
	b.s.wmCol, b.s.wmExpr = column, expr
	return b
}

// Build returns the schema.
func (b *SchemaBuilder) Build() *Schema {
	s := b.s
	s.columns = append([]schemaColumn(nil), b.s.columns...)
	return &s
}

// TableDescriptor describes a table for CreateTable and
// CreateTemporaryTable, as Flink's TableDescriptor; build it with
// ForConnector.
type TableDescriptor struct {
	schema        *Schema
	options       map[string]string
	comment       string
	partitionKeys []string
}

// TableDescriptorBuilder builds a TableDescriptor.
type TableDescriptorBuilder struct{ d TableDescriptor }

// ForConnector starts a descriptor with 'connector' = connector.
func ForConnector(connector string) *TableDescriptorBuilder {
	return &TableDescriptorBuilder{d: TableDescriptor{options: map[string]string{"connector": connector}}}
}

// Schema sets the schema.
func (b *TableDescriptorBuilder) Schema(s *Schema) *TableDescriptorBuilder {
	b.d.schema = s
	return b
}

// Option sets one table option.
func (b *TableDescriptorBuilder) Option(key, value string) *TableDescriptorBuilder {
	b.d.options[key] = value
	return b
}

// Comment sets the table comment.
func (b *TableDescriptorBuilder) Comment(comment string) *TableDescriptorBuilder {
	b.d.comment = comment
	return b
}

// PartitionedBy sets the partition columns.
func (b *TableDescriptorBuilder) PartitionedBy(cols ...string) *TableDescriptorBuilder {
	b.d.partitionKeys = append([]string(nil), cols...)
	return b
}

// Build returns the descriptor.
func (b *TableDescriptorBuilder) Build() TableDescriptor {
	d := b.d
	d.options = make(map[string]string, len(b.d.options))
	for k, v := range b.d.options {
		d.options[k] = v
	}
	return d
}

// ddl prints the descriptor as the CREATE TABLE statement it stands for.
func (d TableDescriptor) ddl(path string, temporary bool) (string, error) {
	if d.schema == nil || len(d.schema.columns) == 0 {
		return "", fmt.Errorf("the descriptor of %s has no schema (TableDescriptorBuilder.Schema)", path)
	}
	var b strings.Builder
	b.WriteString("CREATE ")
	if temporary {
		b.WriteString("TEMPORARY ")
	}
	parts := splitPath(path)
	for i, p := range parts {
		parts[i] = catalog.Quote(p)
	}
	fmt.Fprintf(&b, "TABLE %s (\n", strings.Join(parts, "."))
	var lines []string
	for _, c := range d.schema.columns {
		l := "  " + catalog.Quote(c.name)
		switch {
		case c.expr != "":
			l += " AS " + c.expr
		case c.meta:
			l += " " + c.typ.String() + " METADATA"
			if c.metaKey != "" {
				l += " FROM " + quoteString(c.metaKey)
			}
			if c.virtual {
				l += " VIRTUAL"
			}
		default:
			l += " " + c.typ.String()
		}
		if c.comment != "" {
			l += " COMMENT " + quoteString(c.comment)
		}
		lines = append(lines, l)
	}
	if d.schema.wmCol != "" {
		lines = append(lines, fmt.Sprintf("  WATERMARK FOR %s AS %s", quotePath(d.schema.wmCol), d.schema.wmExpr))
	}
	if len(d.schema.pk) > 0 {
		q := make([]string, len(d.schema.pk))
		for i, c := range d.schema.pk {
			q[i] = catalog.Quote(c)
		}
		l := "  "
		if d.schema.pkName != "" {
			l += "CONSTRAINT " + catalog.Quote(d.schema.pkName) + " "
		}
		lines = append(lines, l+"PRIMARY KEY ("+strings.Join(q, ", ")+") NOT ENFORCED")
	}
	b.WriteString(strings.Join(lines, ",\n"))
	b.WriteString("\n)")
	if d.comment != "" {
		b.WriteString(" COMMENT " + quoteString(d.comment))
	}
	if len(d.partitionKeys) > 0 {
		q := make([]string, len(d.partitionKeys))
		for i, c := range d.partitionKeys {
			q[i] = catalog.Quote(c)
		}
		b.WriteString(" PARTITIONED BY (" + strings.Join(q, ", ") + ")")
	}
	keys := make([]string, 0, len(d.options))
	for k := range d.options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	opts := make([]string, len(keys))
	for i, k := range keys {
		opts[i] = "  " + quoteString(k) + " = " + quoteString(d.options[k])
	}
	b.WriteString(" WITH (\n" + strings.Join(opts, ",\n") + "\n)")
	return b.String(), nil
}

// CreateTable creates a permanent table at path from a descriptor, as
// Flink's createTable(path, descriptor); it fails if the table exists.
func (e *TableEnvironment) CreateTable(path string, d TableDescriptor) error {
	return e.createFromDescriptor(path, d, false)
}

// CreateTemporaryTable creates a temporary table at path from a
// descriptor.
func (e *TableEnvironment) CreateTemporaryTable(path string, d TableDescriptor) error {
	return e.createFromDescriptor(path, d, true)
}

func (e *TableEnvironment) createFromDescriptor(path string, d TableDescriptor, temporary bool) error {
	sql, err := d.ddl(path, temporary)
	if err != nil {
		return classify(KindValidation, err)
	}
	_, err = e.ExecuteSQL(context.Background(), sql)
	return err
}
