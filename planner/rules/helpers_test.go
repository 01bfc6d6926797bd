package rules

import (
	"errors"
	"math/rand"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

var (
	intT  = types.IntT
	boolT = types.BooleanT
	strT  = types.StringT
)

// table builds a resolved catalog table default_catalog.default_database.name.
func table(name string, fields ...types.Field) *catalog.ResolvedTable {
	cols := make([]catalog.Column, len(fields))
	for i, f := range fields {
		cols[i] = catalog.Column{Name: f.Name, Type: f.Type}
	}
	return &catalog.ResolvedTable{
		ID:    catalog.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Object: name},
		Table: &catalog.Table{Columns: cols, Options: map[string]string{"connector": "values"}},
		// what a bounded, projecting source (values) declares
		Abilities: &catalog.Abilities{Bounded: true, Lookup: true, ProjectionPushDown: true},
	}
}

func field(name string, t types.Type) types.Field { return types.Field{Name: name, Type: t} }

// scanOf scans all physical columns of t.
func scanOf(t *catalog.ResolvedTable) *logical.Scan {
	return &logical.Scan{Table: t, Out: t.PhysicalSchema()}
}

// ordersT is orders(a INT, b INT, c STRING); itemsT is items(d INT, e INT).
var (
	ordersT = table("orders", field("a", intT), field("b", intT), field("c", strT))
	itemsT  = table("items", field("d", intT), field("e", intT))
)

func ref(n logical.Node, i int) *logical.ColumnRef {
	f := n.Schema()[i]
	return &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
}

func refAt(i int, name string, t types.Type) *logical.ColumnRef {
	return &logical.ColumnRef{Index: i, Name: name, T: t}
}

func lit(v any, t types.Type) *logical.Literal { return &logical.Literal{Value: v, T: t} }

func i32(v int32) *logical.Literal { return lit(v, intT.WithNullable(false)) }

func call(name string, t types.Type, args ...logical.Expr) *logical.Call {
	def, _ := function.Builtin(name)
	return &logical.Call{Name: name, Args: args, T: t, Def: def}
}

func gt(a, b logical.Expr) logical.Expr  { return call(">", boolT, a, b) }
func eq(a, b logical.Expr) logical.Expr  { return call("=", boolT, a, b) }
func add(a, b logical.Expr) logical.Expr { return call("+", intT, a, b) }

func and(es ...logical.Expr) logical.Expr { return call("AND", boolT, es...) }
func or(es ...logical.Expr) logical.Expr  { return call("OR", boolT, es...) }

func project(in logical.Node, names []string, exprs ...logical.Expr) *logical.Project {
	out := make(types.Schema, len(exprs))
	for i, e := range exprs {
		out[i] = field(names[i], e.Type())
	}
	return &logical.Project{Input: in, Exprs: exprs, Out: out}
}

func filter(in logical.Node, c logical.Expr) *logical.Filter {
	return &logical.Filter{Input: in, Cond: c}
}

func join(l, r logical.Node, kind logical.JoinKind, cond logical.Expr) *logical.Join {
	out := append(types.Schema{}, l.Schema()...)
	if kind != logical.SemiJoin && kind != logical.AntiJoin {
		out = append(out, r.Schema()...)
	}
	return &logical.Join{Left: l, Right: r, Kind: kind, Cond: cond, Out: out}
}

var errDivZero = errors.New("Division by zero")

// testRegistry has the few functions the tests use.
func testRegistry() *function.Registry {
	reg := function.NewRegistry()
	arith := func(name string, f func(a, b int32) (int32, error)) {
		reg.Register(&function.Definition{Name: name, NullOnNull: true, Eval: func(_ *function.EvalContext, _ function.CallTypes, args []any) (any, error) {
			return f(args[0].(int32), args[1].(int32))
		}})
	}
	arith("+", func(a, b int32) (int32, error) { return a + b, nil })
	arith("/", func(a, b int32) (int32, error) {
		if b == 0 {
			return 0, errDivZero
		}
		return a / b, nil
	})
	cmp := func(name string, f func(a, b int32) bool) {
		reg.Register(&function.Definition{Name: name, NullOnNull: true, Eval: func(_ *function.EvalContext, _ function.CallTypes, args []any) (any, error) {
			return f(args[0].(int32), args[1].(int32)), nil
		}})
	}
	cmp(">", func(a, b int32) bool { return a > b })
	cmp("=", func(a, b int32) bool { return a == b })
	reg.Register(&function.Definition{Name: "IS NULL", Eval: func(_ *function.EvalContext, _ function.CallTypes, args []any) (any, error) {
		return args[0] == nil, nil
	}})
	reg.Register(&function.Definition{Name: "AND"})
	reg.Register(&function.Definition{Name: "OR"})
	reg.Register(&function.Definition{Name: "RAND", Nondeterministic: true, Eval: func(*function.EvalContext, function.CallTypes, []any) (any, error) {
		return rand.Float64(), nil
	}})
	return reg
}

// show draws a logical plan as Flink does (":- " for a child with later
// siblings, "+- " for the last one).
func show(n logical.Node) string {
	var b strings.Builder
	var walk func(n logical.Node, prefix string, last []bool)
	walk = func(n logical.Node, prefix string, last []bool) {
		name, attrs := n.Describe()
		b.WriteString(prefix + name + "(" + attrs + ")\n")
		ch := n.Children()
		for i, c := range ch {
			p := ""
			for _, l := range last {
				if l {
					p += "   "
				} else {
					p += ":  "
				}
			}
			isLast := i == len(ch)-1
			if isLast {
				p += "+- "
			} else {
				p += ":- "
			}
			walk(c, p, append(append([]bool(nil), last...), isLast))
		}
	}
	walk(n, "", nil)
	return b.String()
}
