package logical

import (
	"fmt"

	"github.com/tablerun/tablerun/core/catalog"
)

// CatalogExpr converts e, an expression over the output of a scan of t
// that reads physical columns proj (nil: all in order), into the form a
// connector reads (catalog.Expression, Flink's ResolvedExpression): column
// references name the table's physical columns, calls keep their
// canonical names, a CAST is the call "CAST" (TRY_CAST "TRY_CAST") and a
// CASE the call "CASE" over its WHEN, THEN pairs and ELSE. It fails for an
// expression that does not read the scan's row (a correlated reference).
func CatalogExpr(e Expr, t *catalog.ResolvedTable, proj []int) (catalog.Expression, error) {
	phys := t.PhysicalSchema()
	var conv func(e Expr) (catalog.Expression, error)
	args := func(es []Expr) ([]catalog.Expression, error) {
		out := make([]catalog.Expression, len(es))
		for i, a := range es {
			c, err := conv(a)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	conv = func(e Expr) (catalog.Expression, error) {
		switch x := e.(type) {
		case *ColumnRef:
			p := x.Index
			if proj != nil {
				if p < 0 || p >= len(proj) {
					return nil, fmt.Errorf("column $%d is outside the scan of %s", x.Index, t.ID.Summary())
				}
				p = proj[p]
			}
			if p < 0 || p >= len(phys) {
				return nil, fmt.Errorf("column $%d is outside the scan of %s", x.Index, t.ID.Summary())
			}
			return &catalog.FieldRef{Name: phys[p].Name, Index: p, Type: x.T}, nil
		case *Literal:
			return &catalog.ValueLiteral{Value: x.Value, Type: x.T, Text: FormatLiteral(x.Value, x.T)}, nil
		case *Call:
			a, err := args(x.Args)
			if err != nil {
				return nil, err
			}
			return &catalog.CallExpr{Name: x.Name, Args: a, Type: x.T}, nil
		case *Cast:
			a, err := conv(x.Arg)
			if err != nil {
				return nil, err
			}
			name := "CAST"
			if x.Try {
				name = "TRY_CAST"
			}
			return &catalog.CallExpr{Name: name, Args: []catalog.Expression{a}, Type: x.T}, nil
		case *Case:
			var es []Expr
			for _, w := range x.Whens {
				es = append(es, w.Cond, w.Then)
			}
			if x.Else != nil {
				es = append(es, x.Else)
			} else {
				es = append(es, &Literal{T: x.T})
			}
			a, err := args(es)
			if err != nil {
				return nil, err
			}
			return &catalog.CallExpr{Name: "CASE", Args: a, Type: x.T}, nil
		}
		return nil, fmt.Errorf("expression %s does not read the scanned row", e.String())
	}
	return conv(e)
}

// CatalogExprs converts the filters pushed into a scan (Scan.Filters) for
// its source (SourceSpec.Filters).
func CatalogExprs(es []Expr, t *catalog.ResolvedTable, proj []int) ([]catalog.Expression, error) {
	if len(es) == 0 {
		return nil, nil
	}
	out := make([]catalog.Expression, len(es))
	for i, e := range es {
		c, err := CatalogExpr(e, t, proj)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}
