package validate

import (
	"strings"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// This file binds UNNEST in FROM: Flink plans t CROSS JOIN UNNEST(t.a) as a
// Correlate with its internal table function $UNNEST_ROWS$1, which emits
// one row per element of an array (its fields when the elements are
// rows) or per entry of a map (KEY, VALUE); WITH ORDINALITY adds the
// 1-based position as ORDINALITY INT NOT NULL. A NULL or empty collection
// emits nothing (a LEFT JOIN … ON TRUE keeps the row with NULLs).

// unnestScan binds UNNEST(expr) whose argument reads the columns of sc.
func (v *Validator) unnestScan(x *ast.UnnestRef, sc *scope, e *env) (*logical.TableFunctionScan, error) {
	if len(x.Exprs) != 1 {
		// Calcite's UNNEST of several collections zips them; Flink's
		// planner fails on it with an internal assertion.
		return nil, posErr(x.Pos, "UNNEST takes exactly one ARRAY, MAP or MULTISET argument, got %d (UNNEST of several collections does not run on Flink either)", len(x.Exprs))
	}
	if containsSubquery(x.Exprs[0]) {
		return nil, unsupported("subqueries in the argument of UNNEST")
	}
	b := &binder{v: v, sc: sc, env: e, clause: "FROM"}
	arg, err := b.expr(x.Exprs[0])
	if err != nil {
		return nil, err
	}
	t := arg.Type()
	var out types.Schema
	switch t.Kind {
	case types.Array:
		elem := *t.Elem
		if elem.Kind == types.Row {
			for _, f := range elem.Fields {
				ft := f.Type
				if !elem.NotNull {
					ft = ft.WithNullable(true)
				}
				out = append(out, types.Field{Name: f.Name, Type: ft})
			}
		} else {
			out = types.Schema{{Name: "EXPR$0", Type: elem}}
		}
	case types.Map:
		out = types.Schema{{Name: "KEY", Type: *t.Elem}, {Name: "VALUE", Type: *t.Value}}
	default:
		name := t.WithNullable(true).String()
		if name == "INT" {
			name = "INTEGER"
		}
		return nil, posErr(x.Pos, "Cannot apply 'UNNEST' to arguments of type 'UNNEST(<%s>)'. Supported form(s): 'UNNEST(<MULTISET>)'\n'UNNEST(<ARRAY>)'\n'UNNEST(<MAP>)'", name)
	}
	fn := logical.UnnestRowsFunc
	if x.WithOrdinality {
		fn = logical.UnnestRowsWithOrdinalityFunc
		out = append(out, types.Field{Name: "ORDINALITY", Type: types.IntT.WithNullable(false)})
	}
	if len(x.ColumnAliases) > 0 {
		if len(x.ColumnAliases) != len(out) {
			cols := make([]string, len(out))
			for i, f := range out {
				cols[i] = "'" + f.Name + "'"
			}
			return nil, posErr(x.Pos, "List of column aliases must have same degree as table; table has %d columns (%s), whereas alias list has %d columns", len(out), strings.Join(cols, ", "), len(x.ColumnAliases))
		}
		for i, a := range x.ColumnAliases {
			out[i].Name = a
		}
	}
	fields := make([]types.Field, len(out))
	copy(fields, out)
	def := logical.UnnestRowsDef
	if fn == logical.UnnestRowsWithOrdinalityFunc {
		def = logical.UnnestRowsWithOrdinalityDef
	}
	call := logical.NewCall(def, types.RowOf(fields...).WithNullable(false), arg)
	return &logical.TableFunctionScan{Call: call, Display: fn, Out: out}, nil
}

// planUnnestJoin plans left JOIN UNNEST(…): a Correlate, inner or LEFT
// (… LEFT JOIN UNNEST(t.a) ON TRUE) as Flink's.
func (v *Validator) planUnnestJoin(j *ast.Join, left logical.Node, ls *scope, x *ast.UnnestRef, e *env) (logical.Node, *scope, error) {
	if j.Natural || len(j.Using) > 0 {
		return nil, nil, posErr(j.Pos, "NATURAL and USING are not allowed with UNNEST")
	}
	var kind logical.JoinKind
	switch j.Kind {
	case ast.InnerJoin, ast.CrossJoin:
		kind = logical.InnerJoin
	case ast.LeftJoin:
		kind = logical.LeftJoin
	default:
		// Flink's planner: "Unknown join type RIGHT"
		return nil, nil, posErr(j.Pos, "%s JOIN with UNNEST: only inner and LEFT joins can unnest a column of their left side", j.Kind)
	}
	scan, err := v.unnestScan(x, ls, e)
	if err != nil {
		return nil, nil, err
	}
	return v.correlate(j, kind, left, ls, scan, unnestAlias(x), e)
}

// unnestAlias is the table alias of UNNEST's columns.
func unnestAlias(x *ast.UnnestRef) string { return x.Alias }
