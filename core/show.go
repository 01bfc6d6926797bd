package core

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
)

// likeMatch implements SHOW's MySQL-style LIKE: % any run, _ one
// character, backslash escapes the next character.
func likeMatch(s, pattern string, fold bool) bool {
	if fold {
		s, pattern = strings.ToLower(s), strings.ToLower(pattern)
	}
	sr, pr := []rune(s), []rune(pattern)
	var match func(i, j int) bool
	memo := map[[2]int]bool{}
	match = func(i, j int) bool {
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var res bool
		switch {
		case j == len(pr):
			res = i == len(sr)
		case pr[j] == '%':
			res = match(i, j+1) || (i < len(sr) && match(i+1, j))
		case pr[j] == '_':
			res = i < len(sr) && match(i+1, j+1)
		case pr[j] == '\\' && j+1 < len(pr):
			res = i < len(sr) && sr[i] == pr[j+1] && match(i+1, j+2)
		default:
			res = i < len(sr) && sr[i] == pr[j] && match(i+1, j+1)
		}
		memo[key] = res
		return res
	}
	return match(0, 0)
}

// filterLike keeps the names matching like (all if nil) and sorts them in
// plain string order.
func filterLike(names []string, like *ast.ShowLike) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if like == nil || likeMatch(n, like.Pattern, like.ILike) != like.Not {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func (e *TableEnvironment) showObjects(from ast.ShowFrom, like *ast.ShowLike, header string, views, both bool) (*TableResult, error) {
	cat, db := e.cat.CurrentCatalog(), e.cat.CurrentDatabase()
	switch len(from.Name.Parts) {
	case 0:
	case 1:
		db = from.Name.Parts[0]
	case 2:
		cat, db = from.Name.Parts[0], from.Name.Parts[1]
	default:
		return nil, classify(KindValidation, fmt.Errorf("SHOW %sS FROM/IN identifier [ %s ] format error", strings.ToUpper(strings.TrimSuffix(header, " name")), strings.Join(from.Name.Parts, ".")))
	}
	c, ok := e.cat.Catalog(cat)
	if !ok {
		return nil, classify(KindValidation, fmt.Errorf("Catalog %s does not exist", cat))
	}
	if _, err := c.GetDatabase(db); err != nil {
		if !errors.Is(err, catalog.ErrNotFound) {
			return nil, classify(KindCatalog, err)
		}
		return nil, classify(KindValidation, fmt.Errorf("Database '%s'.'%s' doesn't exist.", cat, db))
	}
	names, err := e.cat.ListObjects(cat, db, views, both)
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	return stringResult(header, filterLike(names, like)), nil
}

func (e *TableEnvironment) showDatabases(s *ast.ShowDatabases) (*TableResult, error) {
	cat := e.cat.CurrentCatalog()
	if len(s.From.Name.Parts) == 1 {
		cat = s.From.Name.Parts[0]
	} else if len(s.From.Name.Parts) > 1 {
		return nil, classify(KindValidation, fmt.Errorf("Show databases from/in identifier [ %s ] format error, catalog must be a single part identifier.", strings.Join(s.From.Name.Parts, ".")))
	}
	c, ok := e.cat.Catalog(cat)
	if !ok {
		return nil, classify(KindValidation, fmt.Errorf("Catalog %s does not exist", cat))
	}
	dbs, err := c.ListDatabases()
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	return stringResult("database name", filterLike(dbs, s.Like)), nil
}

// showFunctions lists the built-in functions with identifier names (not
// operators such as "+" or "IS NULL") in lower case; SHOW USER FUNCTIONS is
// empty until user-defined functions exist.
func (e *TableEnvironment) showFunctions(s *ast.ShowFunctions) (*TableResult, error) {
	var names []string
	if !s.User {
		for _, n := range e.fns.Names() {
			if isIdentifier(n) {
				names = append(names, strings.ToLower(n))
			}
		}
	}
	return stringResult("function name", filterLike(names, s.Like)), nil
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

// resolve finds a table or view by name.
func (e *TableEnvironment) resolve(name ast.ObjectName, now time.Time) (catalog.ObjectIdentifier, catalog.Object, bool, error) {
	id, obj, temp, err := e.validator(now).ResolveTableName(name)
	if err != nil {
		return id, nil, false, classify(KindValidation, err)
	}
	return id, obj, temp, nil
}

// describe builds DESCRIBE / SHOW COLUMNS: name, type, null, key, extras,
// watermark and, when any column has one, comment.
func (e *TableEnvironment) describe(name ast.ObjectName, like *ast.ShowLike, now time.Time) (*TableResult, error) {
	if id, qerr := e.cat.Qualify(name.Parts); qerr == nil {
		if _, _, lerr := e.cat.Lookup(id); lerr != nil && errors.Is(lerr, catalog.ErrNotFound) {
			return nil, classify(KindValidation, fmt.Errorf("Tables or views with the identifier '%s' doesn't exist.", id.Summary()))
		}
	}
	_, obj, _, err := e.resolve(name, now)
	if err != nil {
		return nil, err
	}
	type col struct {
		name, typ                string
		null                     bool
		key, extras, wm, comment any
	}
	var cols []col
	hasComment := false
	switch o := obj.(type) {
	case *catalog.Table:
		pk := map[string]bool{}
		var pkText any
		if o.PrimaryKey != nil {
			for _, c := range o.PrimaryKey.Columns {
				pk[c] = true
			}
			pkText = "PRI(" + strings.Join(o.PrimaryKey.Columns, ", ") + ")"
		}
		for _, c := range o.Columns {
			cc := col{name: c.Name, typ: c.Type.WithNullable(true).String(), null: c.Type.Nullable()}
			if o.Watermark != nil && o.Watermark.Column == c.Name {
				cc.typ += " *ROWTIME*"
				cc.wm = o.Watermark.Expr
			}
			if isProctime(c.Expr) {
				cc.typ += " *PROCTIME*"
			}
			if pk[c.Name] {
				cc.key = pkText
			}
			switch {
			case c.Expr != "":
				cc.extras = "AS " + c.Expr
			case c.Metadata:
				x := "METADATA"
				if c.MetadataKey != "" {
					x += " FROM '" + c.MetadataKey + "'"
				}
				if c.Virtual {
					x += " VIRTUAL"
				}
				cc.extras = x
			}
			if c.Comment != "" {
				cc.comment = c.Comment
				hasComment = true
			}
			cols = append(cols, cc)
		}
	case *catalog.View:
		for i, f := range o.Columns {
			cc := col{name: f.Name, typ: f.Type.WithNullable(true).String(), null: f.Type.Nullable()}
			switch o.TimeAttributeOf(i) {
			case catalog.RowtimeAttribute:
				cc.typ += " *ROWTIME*"
			case catalog.ProctimeAttribute:
				cc.typ += " *PROCTIME*"
			}
			if f.Description != "" {
				cc.comment = f.Description
				hasComment = true
			}
			cols = append(cols, cc)
		}
	default:
		return nil, classify(KindValidation, fmt.Errorf("%s is not a table or a view", strings.Join(name.Parts, ".")))
	}
	res := &TableResult{kind: SuccessWithContent, schema: types.Schema{
		{Name: "name", Type: types.StringT}, {Name: "type", Type: types.StringT},
		{Name: "null", Type: types.BooleanT}, {Name: "key", Type: types.StringT},
		{Name: "extras", Type: types.StringT}, {Name: "watermark", Type: types.StringT},
	}}
	if hasComment {
		res.schema = append(res.schema, types.Field{Name: "comment", Type: types.StringT})
	}
	for _, c := range cols {
		if like != nil && likeMatch(c.name, like.Pattern, like.ILike) == like.Not {
			continue
		}
		row := []any{c.name, c.typ, c.null, c.key, c.extras, c.wm}
		if hasComment {
			row = append(row, c.comment)
		}
		res.rows = append(res.rows, row)
	}
	return res, nil
}

func isProctime(expr string) bool {
	return strings.EqualFold(strings.ReplaceAll(strings.TrimSpace(expr), " ", ""), "PROCTIME()")
}

// quoteString quotes s as a SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// showCreate prints SHOW CREATE TABLE / VIEW in Flink's layout.
func (e *TableEnvironment) showCreate(name ast.ObjectName, wantView bool, now time.Time) (*TableResult, error) {
	id, obj, temp, err := e.resolve(name, now)
	if err != nil {
		return nil, err
	}
	tmp := ""
	if temp {
		tmp = "TEMPORARY "
	}
	var b strings.Builder
	switch o := obj.(type) {
	case *catalog.Table:
		if wantView {
			return nil, classify(KindPlanner, fmt.Errorf("SHOW CREATE VIEW is only supported for views, but %s is a table. Please use SHOW CREATE TABLE instead.", id.String()))
		}
		b.WriteString(tableDDL(id, o, temp))
	case *catalog.View:
		if !wantView {
			return nil, classify(KindPlanner, fmt.Errorf("SHOW CREATE TABLE is only supported for tables, but %s is a view. Please use SHOW CREATE VIEW instead.", id.String()))
		}
		fmt.Fprintf(&b, "CREATE %sVIEW %s (\n", tmp, id.String())
		q := make([]string, len(o.Columns))
		for i, f := range o.Columns {
			q[i] = "  " + catalog.Quote(f.Name)
		}
		b.WriteString(strings.Join(q, ",\n"))
		b.WriteString("\n)\n")
		if o.Comment != "" {
			fmt.Fprintf(&b, "COMMENT %s\n", quoteString(o.Comment))
		}
		query := o.ExpandedQuery
		if query == "" {
			query = o.OriginalQuery
		}
		fmt.Fprintf(&b, "AS %s\n", query)
	default:
		return nil, classify(KindValidation, fmt.Errorf("%s is not a table or a view", id.String()))
	}
	return stringResult("result", []string{b.String()}), nil
}

// quotePath back-quotes each part of a dotted column path.
func quotePath(p string) string {
	parts := strings.Split(p, ".")
	for i, s := range parts {
		parts[i] = catalog.Quote(s)
	}
	return strings.Join(parts, ".")
}

// tableDDL prints a table as SHOW CREATE TABLE does (and as ALTER TABLE
// re-reads it): CREATE [TEMPORARY] TABLE `c`.`d`.`t` (…) … WITH (…).
func tableDDL(id catalog.ObjectIdentifier, o *catalog.Table, temp bool) string {
	return tableDDLWith(id, o, temp, serializableType)
}

// tableDDLWith is tableDDL with a choice of how types are printed.
func tableDDLWith(id catalog.ObjectIdentifier, o *catalog.Table, temp bool, typeString func(types.Type) string) string {
	tmp := ""
	if temp {
		tmp = "TEMPORARY "
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE %sTABLE %s (\n", tmp, id.String())
	var lines []string
	for _, c := range o.Columns {
		var l string
		switch {
		case c.Expr != "":
			l = fmt.Sprintf("  %s AS %s", catalog.Quote(c.Name), c.Expr)
		case c.Metadata:
			l = fmt.Sprintf("  %s %s METADATA", catalog.Quote(c.Name), typeString(c.Type))
			if c.MetadataKey != "" {
				l += " FROM " + quoteString(c.MetadataKey)
			}
			if c.Virtual {
				l += " VIRTUAL"
			}
		default:
			l = fmt.Sprintf("  %s %s", catalog.Quote(c.Name), typeString(c.Type))
		}
		if c.Comment != "" {
			l += " COMMENT " + quoteString(c.Comment)
		}
		lines = append(lines, l)
	}
	if o.Watermark != nil {
		lines = append(lines, fmt.Sprintf("  WATERMARK FOR %s AS %s", quotePath(o.Watermark.Column), o.Watermark.Expr))
	}
	if o.PrimaryKey != nil {
		pkName := o.PrimaryKey.Name
		if pkName == "" {
			pkName = "PK_" + strings.Join(o.PrimaryKey.Columns, "_")
		}
		q := make([]string, len(o.PrimaryKey.Columns))
		for i, c := range o.PrimaryKey.Columns {
			q[i] = catalog.Quote(c)
		}
		lines = append(lines, fmt.Sprintf("  CONSTRAINT %s PRIMARY KEY (%s) NOT ENFORCED", catalog.Quote(pkName), strings.Join(q, ", ")))
	}
	b.WriteString(strings.Join(lines, ",\n"))
	b.WriteString("\n)\n")
	if o.Comment != "" {
		fmt.Fprintf(&b, "COMMENT %s\n", quoteString(o.Comment))
	}
	if len(o.PartitionKeys) > 0 {
		q := make([]string, len(o.PartitionKeys))
		for i, c := range o.PartitionKeys {
			q[i] = catalog.Quote(c)
		}
		fmt.Fprintf(&b, "PARTITIONED BY (%s)\n", strings.Join(q, ", "))
	}
	if len(o.Options) > 0 {
		opts := make([]string, 0, len(o.Options))
		for k, v := range o.Options {
			opts = append(opts, "  "+quoteString(k)+" = "+quoteString(v))
		}
		sort.Strings(opts)
		fmt.Fprintf(&b, "WITH (\n%s\n)\n", strings.Join(opts, ",\n"))
	}
	return b.String()
}

// serializableType prints a type as Flink's asSerializableString does in
// SHOW CREATE TABLE: like String, but STRING/BYTES as VARCHAR(2147483647) /
// VARBINARY(2147483647) and TIMESTAMP_LTZ(p) as TIMESTAMP(p) WITH LOCAL TIME
// ZONE, also inside ARRAY, MAP and ROW.
func serializableType(t types.Type) string {
	var s string
	switch t.Kind {
	case types.VarChar:
		s = fmt.Sprintf("VARCHAR(%d)", t.Precision)
	case types.VarBinary:
		s = fmt.Sprintf("VARBINARY(%d)", t.Precision)
	case types.TimestampLTZ:
		s = fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case types.Array:
		s = "ARRAY<" + serializableType(*t.Elem) + ">"
	case types.Map:
		s = "MAP<" + serializableType(*t.Elem) + ", " + serializableType(*t.Value) + ">"
	case types.Row:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = catalog.Quote(f.Name) + " " + serializableType(f.Type)
			if f.Description != "" {
				parts[i] += " " + quoteString(f.Description)
			}
		}
		s = "ROW<" + strings.Join(parts, ", ") + ">"
	default:
		return t.String()
	}
	if t.NotNull {
		s += " NOT NULL"
	}
	return s
}
