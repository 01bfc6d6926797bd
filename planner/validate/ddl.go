package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// CreateTable validates a CREATE TABLE statement and returns the table to
// store under its qualified identifier.
func (v *Validator) CreateTable(s *ast.CreateTable) (catalog.ObjectIdentifier, *catalog.Table, error) {
	id, err := v.cat.Qualify(s.Name.Parts)
	if err != nil {
		return id, nil, err
	}
	if s.Like != nil {
		return id, nil, unsupported("CREATE TABLE … LIKE")
	}
	t := &catalog.Table{Comment: s.Comment, Options: map[string]string{}}
	if s.AsQuery != nil {
		// CTAS: the columns are the query's; the caller inserts its rows
		if len(s.Columns) > 0 || s.PrimaryKey != nil || s.Watermark != nil {
			return id, nil, unsupported("CREATE TABLE … AS SELECT with columns, constraints or a watermark")
		}
		n, err := v.Query(s.AsQuery)
		if err != nil {
			return id, nil, err
		}
		for _, f := range n.Schema() {
			ft := f.Type
			if ft.Kind == types.Null {
				return id, nil, fmt.Errorf("Illegal use of 'NULL': the type of column '%s' of the query is unknown", f.Name)
			}
			t.Columns = append(t.Columns, catalog.Column{Name: f.Name, Type: ft})
		}
	}
	seen := map[string]bool{}
	// physical and metadata columns first, so computed ones can be typed
	for _, c := range s.Columns {
		if seen[c.Name] {
			return id, nil, fmt.Errorf("A column named '%s' already exists in the table. Duplicate columns exist in the compound columns.", c.Name)
		}
		seen[c.Name] = true
		col := catalog.Column{Name: c.Name, Comment: c.Comment}
		switch c.Kind {
		case ast.PhysicalColumn, ast.MetadataColumn:
			ct, err := ResolveType(c.Type)
			if err != nil {
				return id, nil, posErr(c.Type.Pos, "%s", err.Error())
			}
			col.Type = ct
			if c.Kind == ast.MetadataColumn {
				col.Metadata, col.MetadataKey, col.Virtual = true, c.MetadataKey, c.Virtual
			}
		}
		t.Columns = append(t.Columns, col)
	}
	if s.PrimaryKey != nil {
		pk := s.PrimaryKey
		if !pk.NotEnforced {
			return id, nil, fmt.Errorf("Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED controls if the constraint checks are performed on the incoming/outgoing data. Flink does not own the data therefore the only supported mode is the NOT ENFORCED mode")
		}
		name := pk.ConstraintName
		if name == "" {
			name = "PK_" + strings.Join(pk.Columns, "_")
		}
		for _, pc := range pk.Columns {
			found := false
			for i := range t.Columns {
				c := &t.Columns[i]
				if c.Name != pc {
					continue
				}
				found = true
				if !c.IsPhysical() && s.Columns[i].Kind != ast.PhysicalColumn {
					return id, nil, fmt.Errorf("Could not create a PRIMARY KEY '%s'. Column '%s' is not a physical column.", name, pc)
				}
				c.Type = c.Type.WithNullable(false)
			}
			if !found {
				return id, nil, fmt.Errorf("Could not create a PRIMARY KEY '%s'. Column '%s' does not exist.", name, pc)
			}
		}
		t.PrimaryKey = &catalog.PrimaryKey{Name: name, Columns: append([]string(nil), pk.Columns...)}
	}
	// computed columns over the physical and metadata columns
	var base []entry
	for i, c := range s.Columns {
		if c.Kind != ast.ComputedColumn {
			base = append(base, entry{qual: id.Object, name: c.Name, idx: i, t: t.Columns[i].Type})
		}
	}
	for i, c := range s.Columns {
		if c.Kind != ast.ComputedColumn {
			continue
		}
		b := &binder{v: v, sc: newScope(base), env: &env{}, clause: "computed column"}
		if containsSubquery(c.Computed) {
			return id, nil, posErr(c.Pos, "Subqueries are not allowed in computed columns")
		}
		if containsAgg(c.Computed) {
			return id, nil, posErr(c.Pos, "Aggregate functions are not allowed in computed columns")
		}
		x, err := b.expr(c.Computed)
		if err != nil {
			return id, nil, err
		}
		t.Columns[i].Type = x.Type()
		t.Columns[i].Expr = ast.Format(c.Computed)
	}
	if s.Watermark != nil {
		wm := s.Watermark
		idx := -1
		for i, c := range t.Columns {
			if c.Name == wm.Column {
				idx = i
			}
		}
		if idx < 0 {
			return id, nil, fmt.Errorf("The rowtime attribute field '%s' is not defined in the table schema, at line %d, column %d", wm.Column, wm.Line, wm.Col)
		}
		if !rowtimeType(t.Columns[idx].Type) {
			return id, nil, fmt.Errorf("Invalid data type of time field for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the time field type is %s", t.Columns[idx].Type)
		}
		var all []entry
		for i, c := range t.Columns {
			all = append(all, entry{qual: id.Object, name: c.Name, idx: i, t: c.Type})
		}
		b := &binder{v: v, sc: newScope(all), env: &env{}, clause: "WATERMARK"}
		x, err := b.expr(wm.Expr)
		if err != nil {
			return id, nil, err
		}
		if !rowtimeType(x.Type()) {
			return id, nil, fmt.Errorf("Invalid data type of expression for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the watermark expression type is %s", x.Type())
		}
		t.Watermark = &catalog.Watermark{Column: wm.Column, Expr: ast.Format(wm.Expr)}
	}
	for _, p := range s.PartitionedBy {
		if !seen[p] {
			names := make([]string, len(t.Columns))
			for i, c := range t.Columns {
				names[i] = "'" + c.Name + "'"
			}
			return id, nil, fmt.Errorf("Partition column '%s' not defined in the table schema. Available columns: [%s]", p, strings.Join(names, ", "))
		}
	}
	t.PartitionKeys = append([]string(nil), s.PartitionedBy...)
	for _, o := range s.Options {
		t.Options[o.Key] = o.Value
	}
	return id, t, nil
}

func rowtimeType(t types.Type) bool {
	return (t.Kind == types.Timestamp || t.Kind == types.TimestampLTZ) && t.Precision <= 3
}

// CreateView validates the query of a CREATE VIEW statement and returns
// the view to store.
func (v *Validator) CreateView(s *ast.CreateView) (catalog.ObjectIdentifier, *catalog.View, error) {
	id, err := v.cat.Qualify(s.Name.Parts)
	if err != nil {
		return id, nil, err
	}
	n, err := v.Query(s.Query)
	if err != nil {
		return id, nil, err
	}
	cols := append(types.Schema(nil), n.Schema()...)
	if len(s.ColumnNames) > 0 {
		if len(s.ColumnNames) != len(cols) {
			return id, nil, fmt.Errorf("VIEW definition and input fields not match:\n\tDef fields: [%s].\n\tInput fields: [%s].",
				strings.Join(s.ColumnNames, ", "), strings.Join(cols.Names(), ", "))
		}
		for i := range cols {
			cols[i].Name = s.ColumnNames[i]
		}
	}
	expanded, err := v.ExpandQuery(s.Query)
	if err != nil {
		return id, nil, err
	}
	text := s.QueryText
	if text == "" {
		text = expanded
	}
	return id, &catalog.View{Columns: cols, OriginalQuery: text, ExpandedQuery: expanded, Comment: s.Comment}, nil
}

// Insert validates INSERT INTO/OVERWRITE and returns the sink plan. The
// query's columns map by position to the table's physical columns (or to
// the listed columns; unlisted ones receive NULL).
func (v *Validator) Insert(s *ast.Insert) (*logical.Sink, error) {
	id, obj, temp, err := v.ResolveTableName(s.Table)
	if err != nil {
		return nil, err
	}
	tbl, ok := obj.(*catalog.Table)
	if !ok {
		return nil, fmt.Errorf("The view %s cannot be used as a sink.", id.String())
	}
	rt := v.resolved(id, tbl, temp)
	q, err := v.Query(s.Query)
	if err != nil {
		return nil, err
	}
	// INSERT … PARTITION (k = 'v', …): the static partition columns are
	// constants; the query supplies the other columns.
	static := map[int]logical.Expr{}
	for _, pv := range s.PartitionSpec {
		i := rt.PhysicalSchema().Index(pv.Column)
		isKey := false
		for _, k := range tbl.PartitionKeys {
			isKey = isKey || k == pv.Column
		}
		if i < 0 || !isKey {
			return nil, posErr(pv.Pos, "%s is not a partition column of table %s", pv.Column, id.Summary())
		}
		if _, dup := static[i]; dup {
			return nil, posErr(pv.Pos, "Partition column '%s' is assigned more than once", pv.Column)
		}
		b := &binder{v: v, sc: newScope(nil), env: &env{}, clause: "PARTITION"}
		val, err := b.expr(pv.Value)
		if err != nil {
			return nil, err
		}
		if _, ok := val.(*logical.Literal); !ok {
			return nil, posErr(pv.Pos, "The value of partition column '%s' must be a literal", pv.Column)
		}
		static[i] = val
	}
	sink, order, casts, err := sinkColumns(rt)
	if err != nil {
		return nil, err
	}
	qs := q.Schema()
	// target positions of the query columns
	targets := make([]int, 0, len(sink))
	if len(s.Columns) > 0 {
		used := map[string]bool{}
		for _, c := range s.Columns {
			i := sink.Index(c)
			if i < 0 {
				return nil, posErr(s.Pos, "Unknown target column '%s'", c)
			}
			if used[c] {
				return nil, posErr(s.Pos, "Target column '%s' is assigned more than once", c)
			}
			used[c] = true
			targets = append(targets, i)
		}
	} else {
		for _, i := range order {
			if _, ok := static[i]; !ok {
				targets = append(targets, i)
			}
		}
	}
	if vals, ok := q.(*logical.Values); ok && len(qs) == len(targets) {
		// NULL-only VALUES columns take the sink column's type
		retyped := false
		out := append(types.Schema(nil), qs...)
		rows := make([][]logical.Expr, len(vals.Rows))
		for i, r := range vals.Rows {
			rows[i] = append([]logical.Expr(nil), r...)
		}
		for qi, ti := range targets {
			if qs[qi].Type.Kind != types.Null {
				continue
			}
			retyped = true
			out[qi].Type = sink[ti].Type.WithNullable(true)
			for i := range rows {
				rows[i][qi] = nullOf(sink[ti].Type)
			}
		}
		if retyped {
			q = &logical.Values{Rows: rows, Out: out}
			qs = out
		}
	}
	mismatch := func(cause string) error {
		return fmt.Errorf("Column types of query result and sink for '%s' do not match.\nCause: %s\n\nQuery schema: %s\nSink schema:  %s",
			id.Summary(), cause, schemaText(qs), schemaText(sink))
	}
	if len(qs) != len(targets) {
		return nil, mismatch("Different number of columns.")
	}
	exprs := make([]logical.Expr, len(sink))
	lengthOnly := make([]bool, len(sink))
	for qi, ti := range targets {
		src, dst := qs[qi].Type, sink[ti].Type
		var x logical.Expr = &logical.ColumnRef{Index: qi, Name: qs[qi].Name, T: src}
		if !src.EqualIgnoringNull(dst) {
			if src.Kind != types.Null && !function.CanImplicitCast(src, dst) {
				return nil, mismatch(fmt.Sprintf("Incompatible types for sink column '%s' at position %d.", sink[ti].Name, ti))
			}
			if (src.IsString() && dst.IsString()) || (src.IsBinary() && dst.IsBinary()) {
				// table.exec.sink.type-length-enforcer = IGNORE (Flink's
				// default): a value differing only in length is written
				// as it is, neither trimmed nor padded.
				lengthOnly[ti] = true
			} else {
				x = coerce(x, dst)
			}
		}
		exprs[ti] = x
	}
	for i, val := range static {
		if exprs[i] != nil {
			return nil, posErr(s.Pos, "Target column '%s' is assigned more than once", sink[i].Name)
		}
		if !val.Type().EqualIgnoringNull(sink[i].Type) {
			val = coerce(val, sink[i].Type)
		}
		exprs[i] = val
	}
	for i := range exprs {
		if exprs[i] == nil {
			if sink[i].Type.NotNull {
				return nil, fmt.Errorf("Column '%s' has no default value and does not allow NULLs", sink[i].Name)
			}
			exprs[i] = nullOf(sink[i].Type)
		}
	}
	var input logical.Node = q
	need := len(qs) != len(sink)
	for i, x := range exprs {
		if c, ok := x.(*logical.ColumnRef); !ok || c.Index != i || qs[i].Name != sink[i].Name {
			need = true
		}
	}
	if need {
		out := make(types.Schema, len(sink))
		for i, f := range sink {
			out[i] = types.Field{Name: f.Name, Type: exprs[i].Type()}
			if lengthOnly[i] {
				out[i].Type = f.Type.WithNullable(!exprs[i].Type().NotNull)
			}
		}
		input = &logical.Project{Input: q, Exprs: exprs, Out: out}
	}
	if len(casts) > 0 {
		in := input.Schema()
		cx := make([]logical.Expr, len(in))
		out := append(types.Schema(nil), in...)
		for i, f := range in {
			cx[i] = &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
			if t, ok := casts[i]; ok {
				cx[i] = &logical.Cast{Arg: cx[i], T: t.WithNullable(f.Type.Nullable())}
				out[i].Type = cx[i].Type()
			}
		}
		input = &logical.Project{Input: input, Exprs: cx, Out: out}
	}
	return &logical.Sink{Input: input, Table: rt, Overwrite: s.Overwrite}, nil
}

// sinkColumns returns what a write into rt consumes (catalog.Table.
// SinkSchema: the physical columns, then the persisted METADATA columns,
// which the connector must write: Flink's DynamicSinkUtils checks) and
// the positions in it of the table's persisted columns in declaration
// order (the order of an INSERT without a column list), and the metadata
// type of each metadata column declared with another type (the sink gets
// the value cast to it, as Flink's DynamicSinkUtils casts).
func sinkColumns(rt *catalog.ResolvedTable) (types.Schema, []int, map[int]types.Type, error) {
	sink := rt.Table.SinkSchema()
	meta := rt.Table.MetadataColumns(true)
	casts := map[int]types.Type{}
	if len(meta) > 0 {
		wm := catalog.AbilitiesOf(rt).WritableMetadata
		if wm == nil {
			return nil, nil, nil, fmt.Errorf("Table '%s' declares persistable metadata columns, but the underlying DynamicTableSink doesn't implement the SupportsWritingMetadata interface. If the column should not be persisted, it can be declared with the VIRTUAL keyword.", rt.ID.Summary())
		}
		for j, c := range meta {
			key := c.Key()
			t, ok := wm.Lookup(key)
			if !ok {
				return nil, nil, nil, fmt.Errorf("Invalid metadata key '%s' in column '%s' of table '%s'. The DynamicTableSink class '%s' supports the following metadata keys for writing:\n%s",
					key, c.Name, rt.ID.Summary(), wm.Class, wm.KeyList())
			}
			if !c.Type.Equal(t) && !function.CanCast(c.Type, t) {
				if key == c.Name {
					return nil, nil, nil, fmt.Errorf("Invalid data type for metadata column '%s' of table '%s'. The column cannot be declared as '%s' because the type must be castable to metadata type '%s'.",
						c.Name, rt.ID.Summary(), c.Type, t)
				}
				return nil, nil, nil, fmt.Errorf("Invalid data type for metadata column '%s' with metadata key '%s' of table '%s'. The column cannot be declared as '%s' because the type must be castable to metadata type '%s'.",
					c.Name, key, rt.ID.Summary(), c.Type, t)
			}
			if !c.Type.Equal(t) {
				casts[len(sink)-len(meta)+j] = t
			}
		}
	}
	order := make([]int, 0, len(sink))
	pi, mi := 0, len(sink)-len(meta)
	for _, c := range rt.Table.Columns {
		switch {
		case c.IsPhysical():
			order = append(order, pi)
			pi++
		case c.Metadata && !c.Virtual:
			order = append(order, mi)
			mi++
		}
	}
	return sink, order, casts, nil
}

func schemaText(s types.Schema) string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = f.Name + ": " + f.Type.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
