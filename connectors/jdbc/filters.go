package jdbc

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
)

// Pushable reports a predicate the scan can apply in its WHERE clause
// exactly as Flink evaluates it (Flink's
// JdbcFilterPushdownPreparedStatementVisitor): comparisons of a column
// with a literal, IS [NOT] NULL, and AND / OR of those. Strings compare
// only for (in)equality (ordering depends on the database's collation)
// and CHAR columns not at all (PostgreSQL pads them).
func Pushable(e catalog.Expression, schema types.Schema) bool {
	_, _, ok := renderFilter(e, schema, 0, "")
	return ok
}

var comparisons = map[string]string{"=": "=", "<>": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

// renderFilter writes e as SQL whose parameters are numbered after
// argBase, with their values.
func renderFilter(e catalog.Expression, schema types.Schema, argBase int, qual string) (string, []any, bool) {
	c, ok := e.(*catalog.CallExpr)
	if !ok {
		return "", nil, false
	}
	switch c.Name {
	case "AND", "OR":
		var parts []string
		var args []any
		for _, a := range c.Args {
			s, as, ok := renderFilter(a, schema, argBase+len(args), qual)
			if !ok {
				return "", nil, false
			}
			parts = append(parts, "("+s+")")
			args = append(args, as...)
		}
		if len(parts) == 0 {
			return "", nil, false
		}
		return strings.Join(parts, " "+c.Name+" "), args, true
	case "IS NULL", "IS NOT NULL":
		if len(c.Args) != 1 {
			return "", nil, false
		}
		f, ok := column(c.Args[0], schema)
		if !ok {
			return "", nil, false
		}
		return qual + quoteIdent(f.Name) + " " + c.Name, nil, true
	}
	op, ok := comparisons[c.Name]
	if !ok || len(c.Args) != 2 {
		return "", nil, false
	}
	l, r := c.Args[0], c.Args[1]
	if _, isLit := l.(*catalog.ValueLiteral); isLit {
		l, r = r, l
		op = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
	}
	f, ok := column(l, schema)
	lit, isLit := r.(*catalog.ValueLiteral)
	if !ok || !isLit || lit.Value == nil || !(lit.Type.EqualIgnoringNull(f.Type) || f.Type.Kind == types.VarChar && lit.Type.IsString()) {
		return "", nil, false
	}
	switch {
	case f.Type.IsInteger(), f.Type.IsApprox(), f.Type.Kind == types.Decimal, f.Type.Kind == types.Boolean,
		f.Type.Kind == types.Date, f.Type.Kind == types.Timestamp, f.Type.Kind == types.TimestampLTZ:
	case f.Type.Kind == types.VarChar:
		if op != "=" && op != "<>" {
			return "", nil, false
		}
	default:
		return "", nil, false
	}
	v, err := toPG(lit.Value, f.Type)
	if err != nil {
		return "", nil, false
	}
	return fmt.Sprintf("%s%s %s $%d::%s", qual, quoteIdent(f.Name), op, argBase+1, pgTypeName(f.Type)), []any{v}, true
}

func column(e catalog.Expression, schema types.Schema) (types.Field, bool) {
	r, ok := e.(*catalog.FieldRef)
	if !ok || r.Index < 0 || r.Index >= len(schema) {
		return types.Field{}, false
	}
	return schema[r.Index], true
}
