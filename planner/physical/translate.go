package physical

import (
	"fmt"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Env gives the translator what it needs to evaluate constant VALUES rows
// and to tell deterministic functions apart. A nil Env (or nil fields)
// accepts only literal VALUES rows and treats every function call as
// nondeterministic when deciding whether a Calc may evaluate it twice.
type Env struct {
	Functions *function.Registry
	Eval      *function.EvalContext
}

// Translate turns an optimized logical plan into a batch physical plan
// without a function registry: see TranslateWith.
func Translate(n logical.Node) (Node, error) { return TranslateWith(n, nil) }

// TranslateWith turns an optimized logical plan into a batch physical plan:
//
//	Scan                      TableSourceScan
//	Filter/Project chains     one Calc (fused condition and projection)
//	Aggregate                 HashAggregate
//	Join with a=b conjuncts   HashJoin (computed keys get Calcs around it)
//	other Join                NestedLoopJoin
//	Limit over Sort           SortLimit
//	Sort, Limit, Union, SetOp, Sink   the node of the same name
//	Values                    Values with evaluated rows
//
// The output schema of the result equals n's.
func TranslateWith(n logical.Node, env *Env) (Node, error) {
	t := &translator{env: env}
	return t.node(n)
}

type translator struct{ env *Env }

func (t *translator) node(n logical.Node) (Node, error) {
	switch x := n.(type) {
	case *logical.Scan:
		return &TableSourceScan{Table: x.Table, Projection: x.Projection, Filters: x.Filters, Limit: x.Limit, Out: x.Out}, nil
	case *logical.Values:
		return t.values(x)
	case *logical.Filter, *logical.Project:
		return topN(t.calc(n)) // over.go
	case *logical.Window:
		return t.over(x) // over.go
	case *logical.Match:
		return t.match(x) // match.go
	case *logical.Aggregate:
		in, err := t.node(x.Input)
		if err != nil {
			return nil, err
		}
		if hasGroupingSets(x) {
			return groupingSetsAggregate(x, in), nil // grouping_sets.go
		}
		return batchWindowAggregate(&HashAggregate{Input: in, GroupKeys: x.GroupKeys, Aggs: x.Aggs, Out: x.Out}), nil // window.go
	case *logical.Join:
		return t.join(x)
	case *logical.Correlate:
		return t.correlate(x) // correlate.go
	case *logical.WatermarkAssigner, *logical.WindowTableFunction:
		return t.window(n) // window.go
	case *logical.Sort:
		in, err := t.node(x.Input)
		if err != nil {
			return nil, err
		}
		return &Sort{Input: in, Keys: x.Keys}, nil
	case *logical.Limit:
		if s, ok := x.Input.(*logical.Sort); ok && x.Fetch >= 0 {
			in, err := t.node(s.Input)
			if err != nil {
				return nil, err
			}
			return &SortLimit{Input: in, Keys: s.Keys, Offset: x.Offset, Fetch: x.Fetch}, nil
		}
		in, err := t.node(x.Input)
		if err != nil {
			return nil, err
		}
		return &Limit{Input: in, Offset: x.Offset, Fetch: x.Fetch}, nil
	case *logical.Union:
		ins := make([]Node, len(x.Inputs))
		for i, c := range x.Inputs {
			in, err := t.node(c)
			if err != nil {
				return nil, err
			}
			ins[i] = in
		}
		return &Union{Inputs: ins, Out: x.Out}, nil
	case *logical.SetOp:
		l, err := t.node(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := t.node(x.Right)
		if err != nil {
			return nil, err
		}
		return &SetOp{Left: l, Right: r, Kind: x.Kind, All: x.All}, nil
	case *logical.Sink:
		in, err := t.node(x.Input)
		if err != nil {
			return nil, err
		}
		return &Sink{Input: in, Table: x.Table, Overwrite: x.Overwrite}, nil
	}
	return nil, fmt.Errorf("not supported yet: physical translation of %T", n)
}

// values evaluates the constant rows of a VALUES.
func (t *translator) values(x *logical.Values) (Node, error) {
	rows := make([][]any, len(x.Rows))
	for i, row := range x.Rows {
		if len(row) != len(x.Out) {
			return nil, fmt.Errorf("VALUES row %d has %d columns, expected %d", i+1, len(row), len(x.Out))
		}
		vals := make([]any, len(row))
		for j, e := range row {
			if len(logical.InputRefs(e)) > 0 {
				return nil, fmt.Errorf("VALUES row %d, column %d: expression %s is not constant", i+1, j+1, e)
			}
			v, err := t.constant(e)
			if err != nil {
				// Raise the error when the query runs, as Flink does.
				return valuesAsCalcs(x), nil
			}
			vals[j] = v
		}
		rows[i] = vals
	}
	return &Values{Rows: rows, Out: x.Out}, nil
}

// valuesAsCalcs computes each VALUES row with a Calc over a one-row
// Values, as Flink plans VALUES it could not reduce:
//
//	Calc(select=[…])
//	+- Values(tuples=[[{ 0 }]])
//
// Several rows become the Union of one such Calc per row.
func valuesAsCalcs(x *logical.Values) Node {
	one := &Values{Rows: [][]any{{int32(0)}}, Out: types.Schema{{Name: "ZERO", Type: types.IntT.WithNullable(false)}}}
	calcs := make([]Node, len(x.Rows))
	for i, row := range x.Rows {
		calcs[i] = &Calc{Input: one, Projection: row, Out: x.Out}
	}
	if len(calcs) == 1 {
		return calcs[0]
	}
	return &Union{Inputs: calcs, Out: x.Out}
}

func (t *translator) constant(e logical.Expr) (any, error) {
	if l, ok := e.(*logical.Literal); ok {
		return l.Value, nil
	}
	if t.env == nil || t.env.Functions == nil {
		return nil, fmt.Errorf("not supported yet: evaluating %s without a function registry", e)
	}
	return evalConst(t.env, e)
}

// deterministic reports whether e may be evaluated twice for one row with
// the same result.
func (t *translator) deterministic(e logical.Expr) bool {
	if t.env == nil || t.env.Functions == nil {
		ok := true
		logical.Walk(e, func(x logical.Expr) bool {
			if _, isCall := x.(*logical.Call); isCall {
				ok = false
			}
			return ok
		})
		return ok
	}
	return logical.IsDeterministic(e, func(c *logical.Call) bool {
		d, err := c.Definition()
		return err != nil || d.Nondeterministic
	})
}

// calcState is a Calc being built: a projection and a condition over base.
type calcState struct {
	base Node
	proj []logical.Expr
	cond logical.Expr
	out  types.Schema
}

func identityProj(s types.Schema) []logical.Expr {
	out := make([]logical.Expr, len(s))
	for i, f := range s {
		out[i] = &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
	}
	return out
}

func newCalcState(base Node) *calcState {
	return &calcState{base: base, proj: identityProj(base.Schema()), out: base.Schema()}
}

// isIdentity reports a Calc that would do nothing.
func (c *calcState) isIdentity() bool {
	in := c.base.Schema()
	if c.cond != nil || len(c.proj) != len(in) || len(c.out) != len(in) {
		return false
	}
	for i, e := range c.proj {
		r, ok := e.(*logical.ColumnRef)
		if !ok || r.Index != i || c.out[i].Name != in[i].Name || !c.out[i].Type.Equal(in[i].Type) {
			return false
		}
	}
	return true
}

func (c *calcState) build() Node {
	if c.isIdentity() {
		return c.base
	}
	return &Calc{Input: c.base, Projection: c.proj, Condition: c.cond, Out: c.out}
}

// calc fuses a chain of Filter and Project nodes into Calcs. It starts a
// new Calc where fusing would evaluate a nondeterministic expression more
// than once per row.
func (t *translator) calc(n logical.Node) (Node, error) {
	var chain []logical.Node
	cur := n
	for {
		switch x := cur.(type) {
		case *logical.Filter:
			chain = append(chain, x)
			cur = x.Input
			continue
		case *logical.Project:
			chain = append(chain, x)
			cur = x.Input
			continue
		}
		break
	}
	base, err := t.node(cur)
	if err != nil {
		return nil, err
	}
	st := newCalcState(base)
	if c, ok := base.(*Calc); ok {
		// Continue the Calc the input ended with (for example the one
		// that drops computed join keys).
		st = &calcState{base: c.Input, proj: c.Projection, cond: c.Condition, out: c.Out}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		switch x := chain[i].(type) {
		case *logical.Filter:
			if !t.canInline(st, true, x.Cond) {
				st = newCalcState(st.build())
			}
			st.cond = logical.And(st.cond, inline(x.Cond, st.proj))
		case *logical.Project:
			if !t.canInline(st, false, x.Exprs...) {
				st = newCalcState(st.build())
			}
			proj := make([]logical.Expr, len(x.Exprs))
			for j, e := range x.Exprs {
				proj[j] = inline(e, st.proj)
			}
			st.proj, st.out = proj, x.Out
		}
	}
	return st.build(), nil
}

// canInline reports whether es may read the current projection by
// substitution. A condition evaluates what it reads in addition to the
// projection, so it must not read a nondeterministic projected expression;
// a projection must not read one more than once.
func (t *translator) canInline(st *calcState, isCond bool, es ...logical.Expr) bool {
	counts := map[int]int{}
	for _, e := range es {
		logical.Walk(e, func(x logical.Expr) bool {
			if c, ok := x.(*logical.ColumnRef); ok {
				counts[c.Index]++
			}
			return true
		})
	}
	for i, cnt := range counts {
		if i >= len(st.proj) {
			return false
		}
		p := st.proj[i]
		switch p.(type) {
		case *logical.ColumnRef, *logical.Literal:
			continue
		}
		if (isCond || cnt > 1) && !t.deterministic(p) {
			return false
		}
	}
	return true
}

// inline replaces each column reference of e by the projected expression.
func inline(e logical.Expr, proj []logical.Expr) logical.Expr {
	return logical.Rewrite(e, func(x logical.Expr) logical.Expr {
		if c, ok := x.(*logical.ColumnRef); ok && c.Index < len(proj) {
			return proj[c.Index]
		}
		return x
	})
}
