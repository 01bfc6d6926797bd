package core

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/parser"
)

// alterPrefix starts every schema-change error, as in Flink's
// AlterSchemaConverter.
const alterPrefix = "Failed to execute ALTER TABLE statement.\n"

func alterErr(format string, args ...any) error {
	return classify(KindValidation, fmt.Errorf(alterPrefix+format, args...))
}

// alterTable runs ALTER TABLE [IF EXISTS] t on a permanent table: RENAME
// TO, SET/RESET options, ADD/MODIFY columns, primary key and watermark,
// DROP columns / PRIMARY KEY / CONSTRAINT / WATERMARK and RENAME column.
func (e *TableEnvironment) alterTable(s *ast.AlterTable, now time.Time) (*TableResult, error) {
	id, err := e.cat.Qualify(s.Name.Parts)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	obj, temp, err := e.cat.Lookup(id)
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		return nil, classify(KindCatalog, err)
	}
	if err != nil || temp {
		if s.IfExists {
			return okResult(), nil
		}
		return nil, classify(KindValidation, fmt.Errorf("Table %s doesn't exist or is a temporary table.", id.String()))
	}
	tbl, ok := obj.(*catalog.Table)
	if !ok {
		return nil, classify(KindValidation, fmt.Errorf("ALTER TABLE for a view is not allowed"))
	}
	switch a := s.Action.(type) {
	case *ast.AlterRenameTable:
		newID, err := e.renameTarget(id, a.NewName)
		if err != nil {
			return nil, err
		}
		if newID.Catalog != id.Catalog || newID.Database != id.Database {
			return nil, classify(KindValidation, fmt.Errorf("The catalog name and database name of the new table name must be the same as the old table name."))
		}
		if err := e.cat.RenameObject(id, newID.Object); err != nil {
			return nil, classify(KindCatalog, err)
		}
		return okResult(), nil
	case *ast.AlterSetOptions:
		nt := *tbl
		nt.Options = copyOptions(tbl.Options)
		for _, o := range a.Options {
			nt.Options[o.Key] = o.Value
		}
		return e.replaceTable(id, &nt)
	case *ast.AlterResetOptions:
		if len(a.Keys) == 0 {
			return nil, classify(KindValidation, fmt.Errorf("ALTER TABLE RESET does not support empty key"))
		}
		nt := *tbl
		nt.Options = copyOptions(tbl.Options)
		for _, k := range a.Keys {
			if k == "connector" {
				return nil, classify(KindValidation, fmt.Errorf("ALTER TABLE RESET does not support changing 'connector'"))
			}
			delete(nt.Options, k)
		}
		return e.replaceTable(id, &nt)
	}
	ct, err := tableAST(id, tbl)
	if err != nil {
		return nil, err
	}
	switch a := s.Action.(type) {
	case *ast.AlterSchema:
		if a.Modify {
			err = modifySchema(ct, a)
		} else {
			err = addSchema(ct, a)
		}
	case *ast.AlterDropColumns:
		err = dropColumns(ct, a.Columns)
	case *ast.AlterDropPrimaryKey:
		if ct.PrimaryKey == nil {
			return nil, alterErr("The base table does not define any primary key.")
		}
		if a.ConstraintName != "" && a.ConstraintName != ct.PrimaryKey.ConstraintName {
			return nil, alterErr("The base table does not define a primary key constraint named '%s'. Available constraint name: ['%s'].", a.ConstraintName, ct.PrimaryKey.ConstraintName)
		}
		ct.PrimaryKey = nil
	case *ast.AlterDropWatermark:
		if ct.Watermark == nil {
			return nil, alterErr("The base table does not define any watermark strategy.")
		}
		ct.Watermark = nil
	case *ast.AlterRenameColumn:
		err = renameColumn(ct, a.Old, a.New)
	default:
		return nil, unsupported("ALTER TABLE %s", strings.TrimPrefix(statementName(s.Action), "ALTER "))
	}
	if err != nil {
		return nil, err
	}
	_, nt, err := e.validator(now).CreateTable(ct)
	if err != nil {
		return nil, classify(KindValidation, fmt.Errorf("%s%s", alterPrefix, message(classify(KindValidation, err))))
	}
	return e.replaceTable(id, nt)
}

func (e *TableEnvironment) replaceTable(id catalog.ObjectIdentifier, t *catalog.Table) (*TableResult, error) {
	if err := e.cat.AlterObject(id, t); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

func copyOptions(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// tableAST re-reads a stored table as the CREATE TABLE statement that
// defines it, so that a schema change can be applied to the statement and
// validated like a new table.
func tableAST(id catalog.ObjectIdentifier, t *catalog.Table) (*ast.CreateTable, error) {
	st, err := parser.ParseStatement(tableDDLWith(id, t, false, types.Type.String))
	if err != nil {
		return nil, classify(KindInternal, fmt.Errorf("re-reading the definition of %s: %w", id.Summary(), err))
	}
	ct, ok := st.(*ast.CreateTable)
	if !ok {
		return nil, classify(KindInternal, fmt.Errorf("re-reading the definition of %s: got %T", id.Summary(), st))
	}
	if ct.PrimaryKey != nil && ct.PrimaryKey.ConstraintName == "" {
		ct.PrimaryKey.ConstraintName = "PK_" + strings.Join(ct.PrimaryKey.Columns, "_")
	}
	return ct, nil
}

func columnIndex(cols []ast.ColumnDef, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// place inserts c into cols at its FIRST / AFTER position, or at the end.
func place(cols []ast.ColumnDef, c ast.ColumnDef) ([]ast.ColumnDef, error) {
	switch {
	case c.Placement.First:
		return append([]ast.ColumnDef{c}, cols...), nil
	case c.Placement.After != "":
		if strings.Contains(c.Placement.After, ".") {
			return nil, alterErr("Alter nested row type is not supported yet.")
		}
		i := columnIndex(cols, c.Placement.After)
		if i < 0 {
			return nil, alterErr("Referenced column `%s` by 'AFTER' does not exist in the table.", c.Placement.After)
		}
		out := append([]ast.ColumnDef(nil), cols[:i+1]...)
		out = append(out, c)
		return append(out, cols[i+1:]...), nil
	}
	return append(cols, c), nil
}

func pkText(pk *ast.PrimaryKey) string {
	q := make([]string, len(pk.Columns))
	for i, c := range pk.Columns {
		q[i] = catalog.Quote(c)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// checkPrimaryKey reports primary key columns that are missing or not
// physical with the messages of Flink's ALTER TABLE.
func checkPrimaryKey(ct *ast.CreateTable) error {
	pk := ct.PrimaryKey
	if pk == nil {
		return nil
	}
	if !pk.NotEnforced {
		return classify(KindValidation, fmt.Errorf("Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED controls if the constraint checks are performed on the incoming/outgoing data. Flink does not own the data therefore the only supported mode is the NOT ENFORCED mode"))
	}
	name := pk.ConstraintName
	if name == "" {
		name = "PK_" + strings.Join(pk.Columns, "_")
	}
	for _, c := range pk.Columns {
		i := columnIndex(ct.Columns, c)
		if i < 0 {
			return alterErr("Invalid primary key '%s'. Column '%s' does not exist.", name, c)
		}
		if ct.Columns[i].Kind != ast.PhysicalColumn {
			return alterErr("Invalid primary key '%s'. Column '%s' is not a physical column.", name, c)
		}
	}
	return nil
}

func addSchema(ct *ast.CreateTable, a *ast.AlterSchema) error {
	seen := map[string]bool{}
	for _, c := range a.Columns {
		if seen[c.Name] {
			return alterErr("Encounter duplicate column `%s`.", c.Name)
		}
		seen[c.Name] = true
	}
	for _, c := range a.Columns {
		if strings.Contains(c.Name, ".") {
			return alterErr("Alter nested row type is not supported yet.")
		}
		if columnIndex(ct.Columns, c.Name) >= 0 {
			return alterErr("Try to add a column `%s` which already exists in the table.", c.Name)
		}
		cols, err := place(ct.Columns, c)
		if err != nil {
			return err
		}
		ct.Columns = cols
	}
	if a.Watermark != nil {
		if ct.Watermark != nil {
			return alterErr("The base table has already defined the watermark strategy `%s` AS %s. You might want to drop it before adding a new one.", ct.Watermark.Column, ast.Format(ct.Watermark.Expr))
		}
		ct.Watermark = a.Watermark
	}
	if a.PrimaryKey != nil {
		if ct.PrimaryKey != nil {
			return alterErr("The base table has already defined the primary key constraint %s. You might want to drop it before adding a new one.", pkText(ct.PrimaryKey))
		}
		ct.PrimaryKey = a.PrimaryKey
		if err := checkPrimaryKey(ct); err != nil {
			return err
		}
	}
	return nil
}

func modifySchema(ct *ast.CreateTable, a *ast.AlterSchema) error {
	for _, c := range a.Columns {
		if strings.Contains(c.Name, ".") {
			return alterErr("Alter nested row type is not supported yet.")
		}
		i := columnIndex(ct.Columns, c.Name)
		if i < 0 {
			return alterErr("Try to modify a column `%s` which does not exist in the table.", c.Name)
		}
		if !c.HasComment && ct.Columns[i].HasComment {
			// a column keeps its comment unless MODIFY gives a new one
			c.Comment, c.HasComment = ct.Columns[i].Comment, true
		}
		if !c.Placement.First && c.Placement.After == "" {
			ct.Columns[i] = c
			continue
		}
		rest := append(append([]ast.ColumnDef(nil), ct.Columns[:i]...), ct.Columns[i+1:]...)
		cols, err := place(rest, c)
		if err != nil {
			return err
		}
		ct.Columns = cols
	}
	if a.Watermark != nil {
		if ct.Watermark == nil {
			return alterErr("The base table does not define any watermark. You might want to add a new one.")
		}
		ct.Watermark = a.Watermark
	}
	if a.PrimaryKey != nil {
		if ct.PrimaryKey == nil {
			return alterErr("The base table does not define any primary key constraint. You might want to add a new one.")
		}
		ct.PrimaryKey = a.PrimaryKey
	}
	return checkPrimaryKey(ct)
}

// references returns the columns each computed column of ct refers to and
// the columns the watermark expression refers to.
func references(ct *ast.CreateTable) (computed map[string][]string, watermark map[string]bool) {
	computed = map[string][]string{}
	for _, c := range ct.Columns {
		if c.Kind == ast.ComputedColumn {
			for n := range identifiers(c.Computed) {
				computed[n] = append(computed[n], c.Name)
			}
		}
	}
	watermark = map[string]bool{}
	if ct.Watermark != nil {
		watermark = identifiers(ct.Watermark.Expr)
		watermark[strings.Split(ct.Watermark.Column, ".")[0]] = true
	}
	return computed, watermark
}

// identifiers collects the first part of every identifier in an AST.
func identifiers(n any) map[string]bool {
	out := map[string]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return
			}
			if id, ok := v.Interface().(*ast.Identifier); ok {
				if len(id.Parts) > 0 {
					out[id.Parts[0]] = true
				}
				return
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(n))
	return out
}

func checkReferences(ct *ast.CreateTable, name string, computed map[string][]string, watermark map[string]bool) error {
	if columnIndex(ct.Columns, name) < 0 {
		return alterErr("The column `%s` does not exist in the base table.", name)
	}
	if refs := computed[name]; len(refs) > 0 {
		q := make([]string, len(refs))
		for i, r := range refs {
			q[i] = catalog.Quote(r)
		}
		sort.Strings(q)
		return alterErr("The column %s is referenced by computed column %s.", catalog.Quote(name), strings.Join(q, ", "))
	}
	for _, p := range ct.PartitionedBy {
		if p == name {
			return alterErr("The column `%s` is used as the partition keys.", name)
		}
	}
	if watermark[name] {
		return alterErr("The column `%s` is referenced by watermark expression.", name)
	}
	return nil
}

func dropColumns(ct *ast.CreateTable, names []string) error {
	drop := map[string]bool{}
	for _, n := range names {
		if strings.Contains(n, ".") {
			return alterErr("Alter nested row type is not supported yet.")
		}
		if drop[n] {
			return alterErr("Duplicate column `%s`.", n)
		}
		drop[n] = true
	}
	computed, watermark := references(ct)
	// columns dropped together may refer to each other: drop the
	// referring (computed) ones first
	for _, c := range ct.Columns {
		if drop[c.Name] && c.Kind == ast.ComputedColumn {
			for n := range identifiers(c.Computed) {
				refs := computed[n][:0]
				for _, r := range computed[n] {
					if r != c.Name {
						refs = append(refs, r)
					}
				}
				computed[n] = refs
			}
		}
	}
	pk := map[string]bool{}
	if ct.PrimaryKey != nil {
		for _, c := range ct.PrimaryKey.Columns {
			pk[c] = true
		}
	}
	for _, n := range names {
		if err := checkReferences(ct, n, computed, watermark); err != nil {
			return err
		}
		if pk[n] {
			return alterErr("The column `%s` is used as the primary key.", n)
		}
	}
	kept := ct.Columns[:0]
	for _, c := range ct.Columns {
		if !drop[c.Name] {
			kept = append(kept, c)
		}
	}
	ct.Columns = kept
	return nil
}

func renameColumn(ct *ast.CreateTable, old, newName string) error {
	if strings.Contains(old, ".") || strings.Contains(newName, ".") {
		return alterErr("Alter nested row type is not supported yet.")
	}
	computed, watermark := references(ct)
	if err := checkReferences(ct, old, computed, watermark); err != nil {
		return err
	}
	if columnIndex(ct.Columns, newName) >= 0 {
		return alterErr("The column `%s` already existed in table schema.", newName)
	}
	ct.Columns[columnIndex(ct.Columns, old)].Name = newName
	if ct.PrimaryKey != nil {
		for i, c := range ct.PrimaryKey.Columns {
			if c == old {
				ct.PrimaryKey.Columns[i] = newName
			}
		}
	}
	return nil
}

// renameTarget qualifies the new name of ALTER TABLE/VIEW … RENAME TO: a
// bare name stays in the object's own catalog and database.
func (e *TableEnvironment) renameTarget(id catalog.ObjectIdentifier, name ast.ObjectName) (catalog.ObjectIdentifier, error) {
	if len(name.Parts) == 1 {
		return catalog.ObjectIdentifier{Catalog: id.Catalog, Database: id.Database, Object: name.Parts[0]}, nil
	}
	newID, err := e.cat.Qualify(name.Parts)
	if err != nil {
		return newID, classify(KindValidation, err)
	}
	return newID, nil
}
