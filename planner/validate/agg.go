package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// aggCtx collects the pre-aggregation expressions (group keys first, then
// aggregate arguments and filters) and the aggregate calls of one SELECT.
type aggCtx struct {
	src        *binder
	groupKeys  []string
	groupNames []string
	pre        []logical.Expr
	preKeys    map[string]int
	aggs       []logical.AggCall
	aggKeys    map[string]int
	grouped    bool
	// deferred are single-row relations of scalar subqueries used after
	// aggregation; subRef j reads the value of deferred[j].
	deferred []logical.Node
	// deferredConds are the LEFT join conditions of deferred (nil or
	// missing: no condition); subRefs in them stand for the deferred
	// relations' columns (IN / EXISTS subqueries, subquery_value.go).
	deferredConds []logical.Expr
	// sets are the grouping sets (grouping_sets.go; nil for a plain
	// GROUP BY) and nullableKey the keys some set leaves out.
	sets        [][]int
	nullableKey []bool
}

// subRef stands for the value of a scalar subquery used after aggregation
// until the Aggregate is built and the subquery joined onto it.
type subRef struct {
	j int
	t types.Type
	// col is the column of deferred[j] (0 for a scalar subquery).
	col int
}

func (e *subRef) Type() types.Type                         { return e.t }
func (e *subRef) Children() []logical.Expr                 { return nil }
func (e *subRef) WithChildren([]logical.Expr) logical.Expr { return e }

func (e *subRef) String() string {
	if e.col > 0 {
		return fmt.Sprintf("$subquery%d.%d", e.j, e.col)
	}
	return fmt.Sprintf("$subquery%d", e.j)
}

func exprKey(e logical.Expr) string { return e.String() + ":" + e.Type().String() }

func newAggCtx(src *binder, groups []logical.Expr, names []string, grouped bool) *aggCtx {
	a := &aggCtx{src: src, preKeys: map[string]int{}, aggKeys: map[string]int{}, grouped: grouped}
	for i, g := range groups {
		a.groupKeys = append(a.groupKeys, g.String())
		a.groupNames = append(a.groupNames, names[i])
		a.pre = append(a.pre, g)
		if _, ok := a.preKeys[exprKey(g)]; !ok {
			a.preKeys[exprKey(g)] = i
		}
	}
	return a
}

func (a *aggCtx) groupIndex(x logical.Expr) (int, bool) {
	s := x.String()
	for i, k := range a.groupKeys {
		if k == s {
			return i, true
		}
	}
	return 0, false
}

func (a *aggCtx) addPre(x logical.Expr) int {
	k := exprKey(x)
	if i, ok := a.preKeys[k]; ok {
		return i
	}
	a.pre = append(a.pre, x)
	a.preKeys[k] = len(a.pre) - 1
	return len(a.pre) - 1
}

// aggCall binds an aggregate call and returns a reference to its output
// column of the Aggregate.
func (b *binder) aggCall(fc *ast.FunctionCall) (logical.Expr, error) {
	if def, ok := userAggDef(fc); ok {
		return b.userAggCall(fc, def) // lateral.go
	}
	a := b.agg
	name := strings.ToUpper(fc.Name.Parts[0])
	src := *a.src
	src.inAggArg = true
	var args []logical.Expr
	if !fc.Star {
		var err error
		if args, err = src.exprs(fc.Args); err != nil {
			return nil, err
		}
	} else if name != "COUNT" {
		return nil, posErr(fc.Pos, "Only COUNT accepts * as argument")
	}
	def, ok := function.BuiltinAggregate(name)
	if !ok {
		return nil, posErr(fc.Pos, "No match found for function signature %s", name)
	}
	if lo, hi := def.MinArgs, def.MaxArgs; name != "COUNT" && (len(args) < lo || len(args) > hi) {
		return nil, posErr(fc.Pos, "Invalid number of arguments to function '%s'. Was expecting %d arguments", name, lo)
	}
	if name == "COUNT" && len(args) == 0 && !fc.Star {
		return nil, posErr(fc.Pos, "Invalid number of arguments to function 'COUNT'. Was expecting 1 arguments")
	}
	ats := make([]types.Type, len(args))
	idx := make([]int, len(args))
	for i, x := range args {
		ats[i] = x.Type()
		idx[i] = a.addPre(x)
	}
	filter := -1
	if fc.Filter != nil {
		f, err := src.expr(fc.Filter)
		if err != nil {
			return nil, err
		}
		if f, err = asBoolean(f, fc.Filter.Position(), "FILTER condition"); err != nil {
			return nil, err
		}
		filter = a.addPre(f)
	}
	t, err := def.AggregateResultType(ats, a.grouped)
	if err != nil {
		return nil, posErr(fc.Pos, "%s", err.Error())
	}
	call := logical.AggCall{Name: name, Args: idx, Distinct: fc.Distinct, Filter: filter, T: t, Def: def}
	key := call.String() + ":" + t.String()
	i, ok := a.aggKeys[key]
	if !ok {
		call.Alias = fmt.Sprintf("EXPR$%d", len(a.groupKeys)+len(a.aggs))
		a.aggs = append(a.aggs, call)
		i = len(a.aggs) - 1
		a.aggKeys[key] = i
	}
	return &logical.ColumnRef{Index: len(a.groupKeys) + i, Name: a.aggs[i].Alias, T: t}, nil
}

// build returns Project(pre) → Aggregate over input.
func (a *aggCtx) build(input logical.Node) *logical.Aggregate {
	in := input.Schema()
	pre := make(types.Schema, len(a.pre))
	for i, e := range a.pre {
		name := fmt.Sprintf("$f%d", i)
		if c, ok := e.(*logical.ColumnRef); ok && c.Index < len(in) {
			name = in[c.Index].Name
		}
		pre[i] = types.Field{Name: name, Type: e.Type()}
	}
	if len(a.pre) == 0 {
		// a dummy column keeps the row count, as Calcite does for COUNT(*)
		zero := &logical.Literal{Value: int32(0), T: types.IntT.WithNullable(false)}
		a.pre = []logical.Expr{zero}
		pre = types.Schema{{Name: "$f0", Type: zero.T}}
	}
	pre = uniquify(pre)
	proj := project(input, a.pre, pre)
	keys := make([]int, len(a.groupKeys))
	out := make(types.Schema, 0, len(keys)+len(a.aggs))
	for i := range keys {
		keys[i] = i
		f := pre[i]
		f.Type = a.keyType(i, f.Type)
		out = append(out, f)
	}
	for _, c := range a.aggs {
		out = append(out, types.Field{Name: c.Alias, Type: c.T})
	}
	return &logical.Aggregate{Input: proj, GroupKeys: keys, Aggs: a.aggs, Out: out, GroupSets: a.sets}
}

// uniquify makes column names unique as Calcite does (a, a0, a1, …).
func uniquify(s types.Schema) types.Schema {
	out := make(types.Schema, len(s))
	seen := map[string]bool{}
	for i, f := range s {
		name := f.Name
		if seen[name] {
			for n := 0; ; n++ {
				c := fmt.Sprintf("%s%d", f.Name, n)
				if !seen[c] {
					name = c
					break
				}
			}
		}
		seen[name] = true
		f.Name = name
		out[i] = f
	}
	return out
}
