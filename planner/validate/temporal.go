package validate

import (
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// timeAttr classifies a column as Flink's time attributes.
type timeAttr uint8

const (
	noTimeAttr timeAttr = iota
	rowtimeAttr
	proctimeAttr
)

// temporalSpec is the period of JOIN t FOR SYSTEM_TIME AS OF e.
type temporalSpec struct {
	attr   timeAttr
	period logical.Expr // over the left input
	name   string       // the temporal table, as written
	pos    ast.Pos
}

// temporalRight checks the right side of JOIN t FOR SYSTEM_TIME AS OF e
// and returns the table reference without the period. e must be a time
// attribute of the left input (Flink's error otherwise): a proctime one
// makes a processing-time temporal join (a lookup join), a rowtime one
// an event-time temporal join against a versioned table (streaming mode
// only).
func (v *Validator) temporalRight(j *ast.Join, tn *ast.TableName, left logical.Node, ls *scope, e *env) (*ast.TableName, *temporalSpec, error) {
	b := &binder{v: v, sc: ls, env: e, clause: "FOR SYSTEM_TIME AS OF"}
	period, err := b.expr(tn.ForSystemTimeAsOf)
	if err != nil {
		return nil, nil, err
	}
	attr := noTimeAttr
	if c, ok := period.(*logical.ColumnRef); ok {
		attr = logicalTimeAttr(left, c.Index)
	}
	name := strings.Join(tn.Name.Parts, ".")
	switch {
	case attr == noTimeAttr:
		return nil, nil, posErr(tn.Pos, "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field")
	case attr == rowtimeAttr && !v.opts.Streaming:
		return nil, nil, unsupported("event-time temporal table joins (FOR SYSTEM_TIME AS OF a rowtime attribute) in batch mode")
	}
	if j.Kind != ast.InnerJoin && j.Kind != ast.LeftJoin {
		return nil, nil, unsupported("temporal table joins other than INNER JOIN and LEFT JOIN")
	}
	if j.Natural || len(j.Using) > 0 || j.On == nil {
		return nil, nil, posErr(j.Pos, "Temporal table join requires an equality condition on fields of table [%s].", name)
	}
	c := *tn
	c.ForSystemTimeAsOf = nil
	return &c, &temporalSpec{attr: attr, period: period, name: name, pos: tn.Pos}, nil
}

// condition returns the join condition of a temporal table join: for an
// event-time one, cond AND __TEMPORAL_JOIN_CONDITION(period, rightTime)
// after checking that the right side is a versioned table (a primary key
// and a rowtime attribute), with Flink's errors.
func (ts *temporalSpec) condition(cond logical.Expr, left, right logical.Node) (logical.Expr, error) {
	if ts.attr != rowtimeAttr {
		return cond, nil
	}
	if primaryKeyBelow(right) == nil {
		return nil, posErr(ts.pos, "Temporal Table Join requires primary key in versioned table, but no primary key can be found.")
	}
	nl := len(left.Schema())
	rs := right.Schema()
	for i := range rs {
		if logicalTimeAttr(right, i) != rowtimeAttr {
			continue
		}
		rt := &logical.ColumnRef{Index: nl + i, Name: rs[i].Name, T: rs[i].Type}
		marker := logical.NewCall(logical.TemporalJoinConditionDef, types.BooleanT.WithNullable(false), ts.period, rt)
		return logical.And(cond, marker), nil
	}
	return nil, posErr(ts.pos, "Event-Time Temporal Table Join requires both primary key and row time attribute in versioned table, but no row time attribute can be found.")
}

// primaryKeyBelow returns the primary key of the table read below n
// (through projections, filters and watermark assigners), or nil.
func primaryKeyBelow(n logical.Node) *catalog.PrimaryKey {
	switch x := n.(type) {
	case *logical.Scan:
		if x.Table != nil && x.Table.Table != nil {
			return x.Table.Table.PrimaryKey
		}
	case *logical.Project, *logical.Filter, *logical.WatermarkAssigner:
		return primaryKeyBelow(n.Children()[0])
	}
	return nil
}

// logicalTimeAttr traces column i of n back to a PROCTIME() call or a
// table's watermark declaration.
func logicalTimeAttr(n logical.Node, i int) timeAttr {
	switch x := n.(type) {
	case *logical.Project:
		if i < 0 || i >= len(x.Exprs) {
			return noTimeAttr
		}
		switch e := x.Exprs[i].(type) {
		case *logical.ColumnRef:
			return logicalTimeAttr(x.Input, e.Index)
		case *logical.Call:
			if strings.EqualFold(e.Name, "PROCTIME") {
				return proctimeAttr
			}
		}
		if i < len(x.Out) && watermarkColumn(x.Input, x.Out[i].Name) {
			return rowtimeAttr
		}
	case *logical.WatermarkAssigner:
		if i == x.Rowtime {
			return rowtimeAttr
		}
		return logicalTimeAttr(x.Input, i)
	case *logical.Filter:
		return logicalTimeAttr(x.Input, i)
	case *logical.Union:
		// the first input's, as the physical timeAttrOf
		if len(x.Inputs) > 0 {
			return logicalTimeAttr(x.Inputs[0], i)
		}
	case *logical.Join:
		if nl := len(x.Left.Schema()); i >= nl {
			if x.Kind == logical.SemiJoin || x.Kind == logical.AntiJoin {
				return noTimeAttr
			}
			return logicalTimeAttr(x.Right, i-nl)
		}
		return logicalTimeAttr(x.Left, i)
	case *logical.Scan:
		if i >= 0 && i < len(x.Out) && watermarkColumn(x, x.Out[i].Name) {
			return rowtimeAttr
		}
	}
	return noTimeAttr
}

// watermarkColumn reports whether the table read below n (through
// projections and filters) declares a watermark on column name.
func watermarkColumn(n logical.Node, name string) bool {
	switch x := n.(type) {
	case *logical.Scan:
		t := x.Table
		return t != nil && t.Table != nil && t.Table.Watermark != nil && t.Table.Watermark.Column == name
	case *logical.Project, *logical.Filter, *logical.WatermarkAssigner:
		return watermarkColumn(n.Children()[0], name)
	}
	return false
}
