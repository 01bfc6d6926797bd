package core

import (
	"fmt"
	"time"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// createView runs CREATE [TEMPORARY] VIEW [IF NOT EXISTS]: the view keeps
// its original text, the expanded (fully qualified) query and the time
// attributes of its columns.
func (e *TableEnvironment) createView(s *ast.CreateView, now time.Time) (*TableResult, error) {
	id, view, err := e.viewDefinition(s.Name, s.Query, s.QueryText, s.ColumnNames, s.Comment, now)
	if err != nil {
		return nil, err
	}
	if err := e.cat.CreateObject(id, view, s.Temporary, s.IfNotExists); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

// viewDefinition validates a view's query and builds the view to store.
func (e *TableEnvironment) viewDefinition(name ast.ObjectName, q ast.Query, text string, cols []string, comment string, now time.Time) (catalog.ObjectIdentifier, *catalog.View, error) {
	v := e.validator(now)
	id, view, err := v.CreateView(&ast.CreateView{Name: name, Query: q, QueryText: text, ColumnNames: cols, Comment: comment})
	if err != nil {
		return id, nil, classify(KindValidation, err)
	}
	plan, err := e.validator(now).Query(q)
	if err != nil {
		return id, nil, classify(KindValidation, err)
	}
	attrs := make([]catalog.TimeAttribute, len(plan.Schema()))
	any := false
	for i := range attrs {
		attrs[i] = timeAttribute(plan, i)
		any = any || attrs[i] != catalog.NoTimeAttribute
	}
	if any && len(attrs) == len(view.Columns) {
		view.TimeAttributes = attrs
	}
	return id, view, nil
}

// timeAttribute says whether output column i of a validated query passes
// a rowtime or proctime column of a table through unchanged (through
// projections, filters, sorts and limits), which keeps it a time attribute
// as in Flink.
func timeAttribute(n logical.Node, i int) catalog.TimeAttribute {
	switch x := n.(type) {
	case *logical.Project:
		if s, ok := x.Input.(*logical.Scan); ok && s.Projection == nil && len(x.Exprs) == len(s.Table.Table.Columns) && i < len(x.Exprs) {
			// the validator's scan of a table with computed columns
			return columnTimeAttribute(s.Table.Table, s.Table.Table.Columns[i])
		}
		if i < len(x.Exprs) {
			if ref, ok := x.Exprs[i].(*logical.ColumnRef); ok {
				return timeAttribute(x.Input, ref.Index)
			}
		}
	case *logical.Scan:
		if x.Projection == nil && i < len(x.Out) {
			for _, c := range x.Table.Table.Columns {
				if c.Name == x.Out[i].Name {
					return columnTimeAttribute(x.Table.Table, c)
				}
			}
		}
	case *logical.WatermarkAssigner:
		// the streaming scan of a table with WATERMARK FOR
		if i == x.Rowtime {
			return catalog.RowtimeAttribute
		}
		return timeAttribute(x.Input, i)
	case *logical.Filter:
		return timeAttribute(x.Input, i)
	case *logical.Sort:
		return timeAttribute(x.Input, i)
	case *logical.Limit:
		return timeAttribute(x.Input, i)
	case *logical.Union:
		// the first input's (Flink's union type is the least restrictive
		// of the inputs' types: the first one's when they differ only in
		// being a time attribute)
		if len(x.Inputs) > 0 {
			return timeAttribute(x.Inputs[0], i)
		}
	case *logical.Match:
		// MATCH_ROWTIME() / MATCH_PROCTIME() measures are time attributes
		if m := i - len(x.PartitionKeys); m >= 0 && m < len(x.Measures) {
			if ref, ok := x.Measures[m].(*logical.ColumnRef); ok && ref.Index < len(x.Accesses) {
				switch x.Accesses[ref.Index].Kind {
				case logical.MatchRowtime:
					return catalog.RowtimeAttribute
				case logical.MatchProctime:
					return catalog.ProctimeAttribute
				}
			}
		}
	}
	return catalog.NoTimeAttribute
}

func columnTimeAttribute(t *catalog.Table, c catalog.Column) catalog.TimeAttribute {
	switch {
	case t.Watermark != nil && t.Watermark.Column == c.Name:
		return catalog.RowtimeAttribute
	case isProctime(c.Expr):
		return catalog.ProctimeAttribute
	}
	return catalog.NoTimeAttribute
}

// alterView runs ALTER VIEW v RENAME TO w and ALTER VIEW v AS query on a
// permanent view.
func (e *TableEnvironment) alterView(s *ast.AlterView, now time.Time) (*TableResult, error) {
	id, err := e.cat.Qualify(s.Name.Parts)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	obj, temp, err := e.cat.Lookup(id)
	if err != nil || temp {
		return nil, classify(KindValidation, fmt.Errorf("View %s doesn't exist or is a temporary view.", id.String()))
	}
	old, ok := obj.(*catalog.View)
	if !ok {
		return nil, classify(KindValidation, fmt.Errorf("ALTER VIEW for a table is not allowed"))
	}
	if s.Query == nil {
		newID, err := e.renameTarget(id, s.NewName)
		if err != nil {
			return nil, err
		}
		if newID.Catalog != id.Catalog || newID.Database != id.Database {
			return nil, classify(KindValidation, fmt.Errorf("The catalog name and database name of the new view name must be the same as the old view name."))
		}
		if err := e.cat.RenameObject(id, newID.Object); err != nil {
			return nil, classify(KindCatalog, err)
		}
		return okResult(), nil
	}
	_, view, err := e.viewDefinition(s.Name, s.Query, s.QueryText, nil, old.Comment, now)
	if err != nil {
		return nil, err
	}
	if err := e.cat.AlterObject(id, view); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}
