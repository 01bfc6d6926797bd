package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/parser"
)

// planFrom plans one FROM item and returns its scope.
func (v *Validator) planFrom(ref ast.TableRef, e *env) (logical.Node, *scope, error) {
	switch x := ref.(type) {
	case *ast.TableName:
		if len(x.Name.Parts) == 0 {
			return nil, nil, posErr(x.Pos, "empty table name")
		}
		if x.ForSystemTimeAsOf != nil {
			return nil, nil, unsupported("FOR SYSTEM_TIME AS OF")
		}
		var n logical.Node
		if d := e.lookupCTE(x.Name.Parts[0]); d != nil && len(x.Name.Parts) == 1 {
			var err error
			if n, err = v.planQuery(d.q, d.env); err != nil {
				return nil, nil, err
			}
			if len(d.cols) > 0 {
				if n, err = renameColumns(n, d.cols, x.Name.Last(), x.Pos); err != nil {
					return nil, nil, err
				}
			}
		} else {
			var err error
			if n, err = v.planTableName(x); err != nil {
				return nil, nil, err
			}
		}
		alias := x.Alias
		if alias == "" {
			alias = x.Name.Last()
		}
		return v.aliased(n, alias, x.ColumnAliases, x.Pos)
	case *ast.SubqueryRef:
		if x.Lateral {
			return nil, nil, unsupported("LATERAL subqueries")
		}
		q := x.Query
		if qe, ok := q.(*ast.QueryExpr); ok && len(qe.OrderBy) > 0 && qe.Limit == nil && qe.Offset == nil {
			// as Calcite, ORDER BY without LIMIT in a derived table is dropped
			c := *qe
			c.OrderBy = nil
			q = &c
		}
		n, err := v.planQuery(q, e.plain())
		if err != nil {
			return nil, nil, err
		}
		return v.aliased(n, x.Alias, x.ColumnAliases, x.Pos)
	case *ast.ValuesRef:
		n, err := v.planValues(x.Values)
		if err != nil {
			return nil, nil, err
		}
		return v.aliased(n, x.Alias, x.ColumnAliases, x.Pos)
	case *ast.Join:
		return v.planJoin(x, e)
	case *ast.TableFunctionRef:
		if n, sc, ok, err := v.planWindowTVF(x, e); ok { // window.go
			return n, sc, err
		}
		if n, sc, ok, err := v.planTableFunction(x, e); ok { // lateral.go
			return n, sc, err
		}
		return nil, nil, unsupported("table functions in FROM (window TVFs, LATERAL TABLE)")
	case *ast.UnnestRef:
		scan, err := v.unnestScan(x, newScope(nil), e) // unnest.go
		if err != nil {
			return nil, nil, err
		}
		n, sc := standaloneScan(scan, unnestAlias(x))
		return n, sc, nil
	case *ast.MatchRecognize:
		return v.planMatchRecognize(x, e) // match.go
	}
	return nil, nil, fmt.Errorf("unsupported FROM item %T", ref)
}

func renameColumns(n logical.Node, names []string, alias string, pos ast.Pos) (logical.Node, error) {
	s := n.Schema()
	if len(names) != len(s) {
		cols := make([]string, len(s))
		for i, f := range s {
			cols[i] = "'" + f.Name + "'"
		}
		al := make([]string, len(names))
		for i, c := range names {
			al[i] = "'" + c + "'"
		}
		return nil, posErr(pos, "List of column aliases must have same degree as table; table has %d columns (%s), whereas alias list has %d columns", len(s), strings.Join(cols, ", "), len(names))
	}
	exprs := make([]logical.Expr, len(s))
	out := make(types.Schema, len(s))
	for i, f := range s {
		exprs[i] = &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
		out[i] = types.Field{Name: names[i], Type: f.Type}
	}
	return project(n, exprs, out), nil
}

func (v *Validator) aliased(n logical.Node, alias string, cols []string, pos ast.Pos) (logical.Node, *scope, error) {
	if len(cols) > 0 {
		var err error
		if n, err = renameColumns(n, cols, alias, pos); err != nil {
			return nil, nil, err
		}
	}
	return n, newScope(schemaEntries(n.Schema(), alias)), nil
}

// planTableName resolves a catalog table or view.
func (v *Validator) planTableName(x *ast.TableName) (logical.Node, error) {
	id, obj, temp, err := v.ResolveTableName(x.Name)
	if err != nil {
		w := len(strings.Join(x.Name.Parts, "."))
		hint := ""
		if strings.Contains(err.Error(), "not found within") {
			if names, lerr := v.cat.ListObjects(id.Catalog, id.Database, false, true); lerr == nil {
				hint = DidYouMean(id.Object, names)
			}
		}
		return nil, withHint(rangeErr(x.Pos, w, "%s", err.Error()), hint)
	}
	opts := map[string]string{}
	for _, h := range x.Hints {
		if strings.EqualFold(h.Name, "OPTIONS") {
			for _, o := range h.Options {
				opts[o.Key] = o.Value
			}
		}
	}
	switch o := obj.(type) {
	case *catalog.Table:
		if len(opts) > 0 {
			// dynamic table options override the catalog's for this scan
			c := *o
			c.Options = make(map[string]string, len(o.Options)+len(opts))
			for k, val := range o.Options {
				c.Options[k] = val
			}
			for k, val := range opts {
				c.Options[k] = val
			}
			o = &c
		}
		rt := v.resolved(id, o, temp)
		n, err := v.scanTable(rt)
		return v.withWatermark(n, err, rt) // window.go
	case *catalog.View:
		if len(opts) > 0 {
			return nil, fmt.Errorf("View '%s' cannot be enriched with new options. Hints can only be applied to tables.", id.String())
		}
		return v.expandView(id, o)
	}
	return nil, fmt.Errorf("unknown catalog object %s", id.Summary())
}

// scanTable reads the physical columns (and the METADATA columns the
// connector reads, after them: catalog.Table.SourceSchema) and computes
// the computed ones, in the table's column order.
func (v *Validator) scanTable(rt *catalog.ResolvedTable) (logical.Node, error) {
	phys := rt.PhysicalSchema()
	scan := &logical.Scan{Table: rt, Out: phys}
	computed, meta := false, false
	for _, c := range rt.Table.Columns {
		computed = computed || c.Expr != ""
		meta = meta || c.Metadata
	}
	if !computed && !meta {
		return scan, nil
	}
	if meta {
		if err := readMetadata(rt, scan); err != nil {
			return nil, err
		}
	}
	// base: the non-computed columns in declaration order (a metadata
	// column declared with another type than the connector's is a CAST)
	var exprs []logical.Expr
	var base types.Schema
	pi, mi := 0, len(phys)
	for _, c := range rt.Table.Columns {
		switch {
		case c.Metadata:
			f := scan.Out[mi]
			var x logical.Expr = &logical.ColumnRef{Index: mi, Name: c.Name, T: f.Type}
			if !f.Type.Equal(c.Type) {
				x = &logical.Cast{Arg: x, T: c.Type}
			}
			exprs = append(exprs, x)
			base = append(base, types.Field{Name: c.Name, Type: c.Type, Description: c.Comment})
			mi++
		case c.Expr == "":
			exprs = append(exprs, &logical.ColumnRef{Index: pi, Name: c.Name, T: phys[pi].Type})
			base = append(base, phys[pi])
			pi++
		}
	}
	var n logical.Node = scan
	if meta {
		n = &logical.Project{Input: scan, Exprs: exprs, Out: base}
	}
	if !computed {
		return n, nil
	}
	sc := newScope(schemaEntries(n.Schema(), rt.ID.Object))
	b := &binder{v: v, sc: sc, env: &env{}, clause: "computed column"}
	exprs = nil
	var out types.Schema
	bi := 0
	for _, c := range rt.Table.Columns {
		if c.Expr == "" {
			exprs = append(exprs, &logical.ColumnRef{Index: bi, Name: c.Name, T: base[bi].Type})
			out = append(out, base[bi])
			bi++
			continue
		}
		ae, err := parser.ParseExpression(c.Expr)
		if err != nil {
			return nil, fmt.Errorf("computed column '%s' of %s: %w", c.Name, rt.ID.Summary(), err)
		}
		x, err := b.expr(ae)
		if err != nil {
			return nil, fmt.Errorf("computed column '%s' of %s: %w", c.Name, rt.ID.Summary(), err)
		}
		exprs = append(exprs, x)
		out = append(out, types.Field{Name: c.Name, Type: x.Type(), Description: c.Comment})
	}
	return &logical.Project{Input: n, Exprs: exprs, Out: out}, nil
}

// readMetadata checks the METADATA columns of rt against what its
// connector reads (Flink's DynamicSourceUtils#validateAndApplyMetadata)
// and makes scan produce them after the physical columns.
func readMetadata(rt *catalog.ResolvedTable, scan *logical.Scan) error {
	rm := catalog.AbilitiesOf(rt).ReadableMetadata
	if rm == nil {
		return fmt.Errorf("Table '%s' declares metadata columns, but the underlying DynamicTableSource doesn't implement the SupportsReadingMetadata interface. Therefore, metadata cannot be read from the given source.", rt.ID.Summary())
	}
	proj := make([]int, 0, len(rt.Table.SourceSchema()))
	for i := range scan.Out {
		proj = append(proj, i)
	}
	for _, c := range rt.Table.MetadataColumns(false) {
		key := c.Key()
		t, ok := rm.Lookup(key)
		if !ok {
			return fmt.Errorf("Invalid metadata key '%s' in column '%s' of table '%s'. The DynamicTableSource class '%s' supports the following metadata keys for reading:\n%s",
				key, c.Name, rt.ID.Summary(), rm.Class, rm.KeyList())
		}
		if !t.Equal(c.Type) && !function.CanCast(t, c.Type) {
			if key == c.Name {
				return fmt.Errorf("Invalid data type for metadata column '%s' of table '%s'. The column cannot be declared as '%s' because the type must be castable from metadata type '%s'.",
					c.Name, rt.ID.Summary(), t, c.Type)
			}
			return fmt.Errorf("Invalid data type for metadata column '%s' with metadata key '%s' of table '%s'. The column cannot be declared as '%s' because the type must be castable from metadata type '%s'.",
				c.Name, key, rt.ID.Summary(), t, c.Type)
		}
		proj = append(proj, len(proj))
		scan.Out = append(scan.Out, types.Field{Name: c.Name, Type: t, Description: c.Comment})
	}
	scan.Projection = proj
	return nil
}

// ViewError is an error in the stored query of a view, found while a
// statement that reads the view was validated: the positions of the errors
// it wraps are within Text, the view's query, not within the statement.
type ViewError struct {
	// View is the view's full name.
	View string
	// Text is the view's (expanded) query.
	Text string
	Err  error
}

// Error reads "view <name>: <cause>".
func (e *ViewError) Error() string { return "view " + e.View + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *ViewError) Unwrap() error { return e.Err }

// expandView parses and validates a view's expanded query.
func (v *Validator) expandView(id catalog.ObjectIdentifier, view *catalog.View) (logical.Node, error) {
	if v.expanding[id] {
		return nil, fmt.Errorf("View %s references itself", id.Summary())
	}
	v.expanding[id] = true
	defer delete(v.expanding, id)
	text := view.ExpandedQuery
	if text == "" {
		text = view.OriginalQuery
	}
	st, err := parser.ParseStatement(text)
	if err != nil {
		return nil, &ViewError{View: id.Summary(), Text: text, Err: err}
	}
	var q ast.Query
	switch s := st.(type) {
	case *ast.QueryStmt:
		q = s.Query
	case ast.Query:
		q = s
	default:
		return nil, fmt.Errorf("view %s: the stored query is not a query", id.Summary())
	}
	n, err := v.planQuery(q, &env{})
	if err != nil {
		return nil, &ViewError{View: id.Summary(), Text: text, Err: err}
	}
	if len(view.Columns) > 0 && len(view.Columns) != len(n.Schema()) {
		// the tables under the view changed since it was created
		return nil, fmt.Errorf("View %s was created with the columns [%s], but its query now returns [%s]; re-create the view",
			id.String(), strings.Join(view.Columns.Names(), ", "), strings.Join(n.Schema().Names(), ", "))
	}
	if len(view.Columns) == len(n.Schema()) {
		renamed := false
		for i, f := range n.Schema() {
			if f.Name != view.Columns[i].Name {
				renamed = true
			}
		}
		if renamed {
			n, _ = renameColumns(n, view.Columns.Names(), id.Object, ast.Pos{})
		}
	}
	return n, nil
}

func joinOut(kind logical.JoinKind, l, r types.Schema) types.Schema {
	out := make(types.Schema, 0, len(l)+len(r))
	for _, f := range l {
		if kind == logical.RightJoin || kind == logical.FullJoin {
			f.Type = f.Type.WithNullable(true)
		}
		out = append(out, f)
	}
	if kind == logical.SemiJoin || kind == logical.AntiJoin {
		return out
	}
	for _, f := range r {
		if kind == logical.LeftJoin || kind == logical.FullJoin {
			f.Type = f.Type.WithNullable(true)
		}
		out = append(out, f)
	}
	return out
}

func retype(es []entry, out types.Schema) []entry {
	r := make([]entry, len(es))
	for i, e := range es {
		e.t = out[e.idx].Type
		r[i] = e
	}
	return r
}

func (v *Validator) planJoin(j *ast.Join, e *env) (logical.Node, *scope, error) {
	left, ls, err := v.planFrom(j.Left, e)
	if err != nil {
		return nil, nil, err
	}
	if tf, ok := j.Right.(*ast.TableFunctionRef); ok { // LATERAL TABLE (lateral.go)
		if n, sc, ok, err := v.planLateral(j, left, ls, tf, e); ok {
			return n, sc, err
		}
	}
	if u, ok := j.Right.(*ast.UnnestRef); ok { // t JOIN UNNEST(t.a) (unnest.go)
		return v.planUnnestJoin(j, left, ls, u, e)
	}
	var temporal *temporalSpec
	if tn, ok := j.Right.(*ast.TableName); ok && tn.ForSystemTimeAsOf != nil { // temporal.go
		rt, ts, err := v.temporalRight(j, tn, left, ls, e)
		if err != nil {
			return nil, nil, err
		}
		c := *j
		c.Right, j, temporal = rt, &c, ts
	}
	right, rs, err := v.planFrom(j.Right, e)
	if err != nil {
		return nil, nil, err
	}
	kind := map[ast.JoinKind]logical.JoinKind{ast.InnerJoin: logical.InnerJoin, ast.LeftJoin: logical.LeftJoin,
		ast.RightJoin: logical.RightJoin, ast.FullJoin: logical.FullJoin, ast.CrossJoin: logical.InnerJoin}[j.Kind]
	nl := len(left.Schema())
	out := joinOut(kind, left.Schema(), right.Schema())
	lents := retype(ls.entries(), out)
	rents := retype(shifted(rs.entries(), nl), out)
	all := append(append([]entry(nil), lents...), rents...)
	sc := newScope(all)
	using := j.Using
	if j.Natural {
		seen := map[string]bool{}
		for _, le := range ls.entries() {
			if le.qualOnly || seen[le.name] {
				continue
			}
			for _, re := range rs.entries() {
				if !re.qualOnly && re.name == le.name {
					using = append(using, le.name)
					seen[le.name] = true
					break
				}
			}
		}
	}
	b := &binder{v: v, sc: sc, env: e, clause: "ON"}
	if len(using) == 0 {
		var cond logical.Expr
		if j.On != nil {
			if containsSubquery(j.On) {
				return nil, nil, unsupported("subqueries in ON conditions")
			}
			if cond, err = b.boolean(j.On, "ON clause"); err != nil {
				return nil, nil, err
			}
		} else if j.Kind != ast.CrossJoin && !j.Natural {
			return nil, nil, posErr(j.Pos, "INNER, LEFT, RIGHT or FULL join requires a condition (NATURAL keyword or ON or USING clause)")
		}
		if temporal != nil {
			if cond, err = temporal.condition(cond, left, right); err != nil {
				return nil, nil, err
			}
		}
		return &logical.Join{Left: left, Right: right, Kind: kind, Cond: cond, Temporal: temporal != nil, Out: out}, sc, nil
	}
	// USING / NATURAL: equality on the common columns, merged columns first.
	find := func(es []entry, name, side string) (entry, error) {
		var found []entry
		for _, en := range es {
			if !en.qualOnly && en.name == name {
				found = append(found, en)
			}
		}
		if len(found) == 0 {
			return entry{}, posErr(j.Pos, "Column '%s' not found in %s table", name, side)
		}
		if len(found) > 1 {
			return entry{}, posErr(j.Pos, "Column name '%s' in USING clause is not unique on one side of join", name)
		}
		return found[0], nil
	}
	var conds, merged []logical.Expr
	common := map[string]bool{}
	for _, name := range using {
		if common[name] {
			return nil, nil, posErr(j.Pos, "Duplicate name '%s' in column list", name)
		}
		common[name] = true
		le, err := find(lents, name, "left")
		if err != nil {
			return nil, nil, err
		}
		re, err := find(rents, name, "right")
		if err != nil {
			return nil, nil, err
		}
		lr := &logical.ColumnRef{Index: le.idx, Name: name, T: le.t}
		rr := &logical.ColumnRef{Index: re.idx, Name: name, T: re.t}
		c, err := b.call(j.Pos, "=", lr, rr)
		if err != nil {
			return nil, nil, err
		}
		conds = append(conds, c)
		var m logical.Expr
		switch kind {
		case logical.RightJoin:
			m = rr
		case logical.FullJoin:
			if m, err = b.call(j.Pos, "COALESCE", lr, rr); err != nil {
				return nil, nil, err
			}
		default:
			m = lr
		}
		merged = append(merged, m)
	}
	join := &logical.Join{Left: left, Right: right, Kind: kind, Cond: logical.And(conds...), Out: out}
	k := len(merged)
	exprs := append([]logical.Expr(nil), merged...)
	var pout types.Schema
	var ents []entry
	for i, m := range merged {
		pout = append(pout, types.Field{Name: using[i], Type: m.Type()})
		ents = append(ents, entry{name: using[i], idx: i, t: m.Type()})
	}
	for i, f := range out {
		exprs = append(exprs, &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type})
		pout = append(pout, f)
	}
	for _, en := range all {
		en.idx += k
		if common[en.name] {
			en.noStar, en.qualOnly = true, true
		}
		ents = append(ents, en)
	}
	proj := &logical.Project{Input: join, Exprs: exprs, Out: uniquify(pout)}
	return proj, newScope(ents), nil
}
