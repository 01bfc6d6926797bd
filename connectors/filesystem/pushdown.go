package filesystem

import (
	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
)

// Filter push-down (Flink's SupportsFilterPushDown of the filesystem
// source). The source applies a filter only partially: it skips the
// partitions (directories of a PARTITIONED BY table, any format) and the
// Parquet row groups (by their min/max and null-count statistics) in which
// no row can satisfy it; the rows it reads are not filtered. So every
// accepted filter is also remaining, and the plan keeps its condition.

// PushableFilter translates a filter the planner offers into a predicate
// on the table's physical columns; ok is false for a filter the source
// cannot use (then it is not accepted).
func PushableFilter(e catalog.Expression, physical types.Schema) (parquet.Predicate, bool) {
	c, ok := e.(*catalog.CallExpr)
	if !ok {
		return parquet.Predicate{}, false
	}
	switch c.Name {
	case "OR":
		var or []parquet.Predicate
		for _, a := range c.Args {
			p, ok := PushableFilter(a, physical)
			if !ok {
				return parquet.Predicate{}, false
			}
			if p.Or != nil {
				or = append(or, p.Or...)
			} else {
				or = append(or, p)
			}
		}
		return parquet.Predicate{Or: or}, len(or) > 0
	case "IS NULL", "IS NOT NULL":
		if len(c.Args) != 1 {
			return parquet.Predicate{}, false
		}
		col, ok := column(c.Args[0], physical, false)
		if !ok {
			return parquet.Predicate{}, false
		}
		op := parquet.IsNull
		if c.Name == "IS NOT NULL" {
			op = parquet.IsNotNull
		}
		return parquet.Predicate{Column: col, Op: op}, true
	case "IN":
		if len(c.Args) < 2 {
			return parquet.Predicate{}, false
		}
		col, ok := column(c.Args[0], physical, true)
		if !ok {
			return parquet.Predicate{}, false
		}
		var vals []any
		for _, a := range c.Args[1:] {
			v, ok := constant(a)
			if !ok {
				return parquet.Predicate{}, false
			}
			if v != nil { // x IN (…, NULL) is never true through the NULL
				vals = append(vals, v)
			}
		}
		return parquet.Predicate{Column: col, Op: parquet.In, Values: vals}, true
	}
	ops := map[string]parquet.Op{"=": parquet.Eq, "<>": parquet.Ne, "<": parquet.Lt, "<=": parquet.Le, ">": parquet.Gt, ">=": parquet.Ge}
	flipped := map[parquet.Op]parquet.Op{parquet.Eq: parquet.Eq, parquet.Ne: parquet.Ne, parquet.Lt: parquet.Gt, parquet.Le: parquet.Ge, parquet.Gt: parquet.Lt, parquet.Ge: parquet.Le}
	op, ok := ops[c.Name]
	if !ok || len(c.Args) != 2 {
		return parquet.Predicate{}, false
	}
	l, r := c.Args[0], c.Args[1]
	if _, isLit := l.(*catalog.ValueLiteral); isLit {
		l, r, op = r, l, flipped[op]
	}
	col, ok := column(l, physical, true)
	if !ok {
		return parquet.Predicate{}, false
	}
	v, ok := constant(r)
	if !ok {
		return parquet.Predicate{}, false
	}
	if v == nil {
		// x op NULL is never true: an IN of no values.
		return parquet.Predicate{Column: col, Op: parquet.In}, true
	}
	return parquet.Predicate{Column: col, Op: op, Values: []any{v}}, true
}

// column reads a reference to a physical column, possibly under an
// order-preserving numeric widening CAST (when cast is allowed).
func column(e catalog.Expression, physical types.Schema, cast bool) (int, bool) {
	if c, ok := e.(*catalog.CallExpr); ok && cast && c.Name == "CAST" && len(c.Args) == 1 {
		f, ok := c.Args[0].(*catalog.FieldRef)
		if !ok || !widening(f.Type, c.Type) {
			return 0, false
		}
		e = f
	}
	f, ok := e.(*catalog.FieldRef)
	if !ok || f.Index < 0 || f.Index >= len(physical) {
		return 0, false
	}
	switch physical[f.Index].Type.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
		types.VarChar, types.VarBinary, types.Date, types.Time, types.Timestamp, types.TimestampLTZ, types.Boolean:
		return f.Index, true
	}
	return 0, false
}

// widening reports a CAST between numeric types that keeps the order of
// every value (integers to wider integers or floating point, FLOAT to
// DOUBLE).
func widening(from, to types.Type) bool {
	rank := func(k types.Kind) int {
		switch k {
		case types.TinyInt:
			return 1
		case types.SmallInt:
			return 2
		case types.Int:
			return 3
		case types.BigInt:
			return 4
		case types.Float:
			return 5
		case types.Double:
			return 6
		}
		return 0
	}
	a, b := rank(from.Kind), rank(to.Kind)
	if a == 0 || b == 0 {
		return false
	}
	if from.Kind == types.BigInt && to.Kind == types.Float || from.Kind >= types.Int && from.Kind <= types.BigInt && to.Kind == types.Float {
		return false // FLOAT rounds large integers
	}
	return a <= b
}

// constant reads a literal (possibly under a CAST the planner folded
// into its value); nil is NULL.
func constant(e catalog.Expression) (any, bool) {
	l, ok := e.(*catalog.ValueLiteral)
	if !ok {
		return nil, false
	}
	switch l.Value.(type) {
	case nil, int8, int16, int32, int64, float32, float64, string, []byte, bool:
		return l.Value, true
	}
	return nil, false
}

// partitionMayMatch evaluates the filter on the partition values of one
// file (values by physical column; absent: a data column): false when
// some conjunct is false for every row of the partition.
func partitionMayMatch(filter []parquet.Predicate, values map[int]any) bool {
	for _, p := range filter {
		if !predicateOnConst(p, values) {
			return false
		}
	}
	return true
}

func predicateOnConst(p parquet.Predicate, values map[int]any) bool {
	if p.Or != nil {
		for _, q := range p.Or {
			if predicateOnConst(q, values) {
				return true
			}
		}
		return false
	}
	v, ok := values[p.Column]
	if !ok {
		return true // a data column: the partition cannot decide
	}
	return parquet.ValueMayMatch(p, v)
}
