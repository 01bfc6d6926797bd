package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// overCtx collects the window functions (OVER) of one SELECT without
// GROUP BY. Each call becomes a column of a logical.Window stacked over the
// FROM/WHERE relation; until then an overRef stands for it.
type overCtx struct {
	src *binder
	// pre are the partition, order and argument expressions; a ColumnRef
	// is used in place, anything else is computed by a Project below the
	// windows.
	pre   []logical.Expr
	specs []*overSpec
}

type overSpec struct {
	key   string
	part  []int // indexes into pre
	order []logical.SortKey
	rows  bool
	// bounded: ROWS BETWEEN preceding PRECEDING AND CURRENT ROW
	bounded   bool
	preceding int64
	calls     []logical.OverCall
}

// overRef stands for call j of spec i until the Window nodes are built.
type overRef struct {
	spec, call int
	t          types.Type
}

func (e *overRef) Type() types.Type                         { return e.t }
func (e *overRef) Children() []logical.Expr                 { return nil }
func (e *overRef) WithChildren([]logical.Expr) logical.Expr { return e }
func (e *overRef) String() string                           { return fmt.Sprintf("$over%d.%d", e.spec, e.call) }

// withOver returns a copy of b that binds OVER calls.
func withOver(b *binder) *binder {
	c := *b
	c.over = &overCtx{src: b}
	return &c
}

func (o *overCtx) addPre(x logical.Expr) int {
	k := exprKey(x)
	for i, p := range o.pre {
		if exprKey(p) == k {
			return i
		}
	}
	o.pre = append(o.pre, x)
	return len(o.pre) - 1
}

// overCall binds fn OVER (...).
func (b *binder) overCall(x *ast.FunctionCall) (logical.Expr, error) {
	o := b.over
	if o == nil || b.inAggArg {
		return nil, unsupported("OVER windows in this context")
	}
	if x.Over == nil || x.Over.Base != "" {
		return nil, unsupported("named windows in OVER")
	}
	if len(x.Name.Parts) != 1 {
		return nil, unsupported("OVER with function %s", x.Name.String())
	}
	if x.Distinct || x.Filter != nil {
		return nil, unsupported("DISTINCT/FILTER in OVER aggregates")
	}
	name := strings.ToUpper(x.Name.Parts[0])
	src := *o.src
	src.inAggArg = true
	spec := &overSpec{}
	var keyParts []string
	for _, p := range x.Over.PartitionBy {
		e, err := src.expr(p)
		if err != nil {
			return nil, err
		}
		spec.part = append(spec.part, o.addPre(e))
		keyParts = append(keyParts, exprKey(e))
	}
	keyParts = append(keyParts, "|")
	for _, it := range x.Over.OrderBy {
		e, err := src.expr(it.Expr)
		if err != nil {
			return nil, err
		}
		nf := !it.Desc
		if it.NullsFirst != nil {
			nf = *it.NullsFirst
		}
		spec.order = append(spec.order, logical.SortKey{Index: o.addPre(e), Desc: it.Desc, NullsFirst: nf})
		keyParts = append(keyParts, fmt.Sprintf("%s:%v:%v", exprKey(e), it.Desc, nf))
	}
	if f := x.Over.Frame; f != nil {
		if len(x.Over.OrderBy) == 0 {
			return nil, posErr(f.Pos, "Window specification must contain an ORDER BY clause when a frame is given")
		}
		end := ast.CurrentRow
		if f.End != nil {
			end = f.End.Kind
		}
		spec.rows = strings.EqualFold(f.Unit, "ROWS")
		switch {
		case end != ast.CurrentRow:
			return nil, unsupported("OVER frames ending after the current row")
		case f.Start.Kind == ast.UnboundedPreceding:
		case f.Start.Kind == ast.CurrentRow && spec.rows:
			spec.bounded = true
		case f.Start.Kind == ast.Preceding && spec.rows:
			n, err := intLiteral(f.Start.Offset, "ROWS PRECEDING offset")
			if err != nil {
				return nil, err
			}
			spec.bounded, spec.preceding = true, n
		default:
			return nil, unsupported("OVER frames other than UNBOUNDED PRECEDING or ROWS n PRECEDING to CURRENT ROW")
		}
	}
	keyParts = append(keyParts, fmt.Sprint(spec.rows, spec.bounded, spec.preceding))
	spec.key = strings.Join(keyParts, ",")

	call := logical.OverCall{Name: name}
	switch name {
	case "ROW_NUMBER", "RANK", "DENSE_RANK":
		if len(x.Args) > 0 || x.Star {
			return nil, posErr(x.Pos, "Invalid number of arguments to function '%s'. Was expecting 0 arguments", name)
		}
		if len(x.Over.OrderBy) == 0 {
			return nil, posErr(x.Pos, "Function '%s' requires an ORDER BY clause in its window", name)
		}
		if x.Over.Frame != nil {
			return nil, posErr(x.Over.Frame.Pos, "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
		}
		call.T = types.BigIntT.WithNullable(false)
	case "COUNT", "SUM", "AVG", "MIN", "MAX":
		var ats []types.Type
		if x.Star {
			if name != "COUNT" {
				return nil, posErr(x.Pos, "Only COUNT accepts * as argument")
			}
			call.Name = "COUNT_STAR"
		} else {
			if len(x.Args) != 1 {
				return nil, posErr(x.Pos, "Invalid number of arguments to function '%s'. Was expecting 1 arguments", name)
			}
			e, err := src.expr(x.Args[0])
			if err != nil {
				return nil, err
			}
			call.Args = []int{o.addPre(e)}
			ats = []types.Type{e.Type()}
		}
		t, err := function.AggregateResultType(name, ats, true)
		if err != nil {
			return nil, posErr(x.Pos, "%s", err.Error())
		}
		call.T = t
	default:
		return nil, unsupported("window function %s", name)
	}
	si := -1
	for i, s := range o.specs {
		if s.key == spec.key {
			si = i
		}
	}
	if si < 0 {
		o.specs = append(o.specs, spec)
		si = len(o.specs) - 1
	}
	s := o.specs[si]
	for j, c := range s.calls {
		if c.String() == call.String() && c.Name == call.Name {
			return &overRef{spec: si, call: j, t: c.T}, nil
		}
	}
	s.calls = append(s.calls, call)
	return &overRef{spec: si, call: len(s.calls) - 1, t: call.T}, nil
}

// finishOver stacks the Window nodes of the OVER calls bound by b over
// base and rewrites the overRefs in exprs and hidden (in place) into
// column references. Without OVER calls it returns base.
func (b *binder) finishOver(base logical.Node, exprs, hidden []logical.Expr) (logical.Node, error) {
	o := b.over
	if o == nil || len(o.specs) == 0 {
		return base, nil
	}
	in := base.Schema()
	width := len(in)
	// map pre index → column of the (possibly projected) input
	col := make([]int, len(o.pre))
	var extra []logical.Expr
	for i, p := range o.pre {
		if c, ok := p.(*logical.ColumnRef); ok && c.Index < width {
			col[i] = c.Index
			continue
		}
		col[i] = width + len(extra)
		extra = append(extra, p)
	}
	n := base
	if len(extra) > 0 {
		all := make([]logical.Expr, 0, width+len(extra))
		out := append(types.Schema(nil), in...)
		for i, f := range in {
			all = append(all, &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type})
		}
		for i, e := range extra {
			all = append(all, e)
			out = append(out, types.Field{Name: fmt.Sprintf("$%d", width+i), Type: e.Type()})
		}
		n = &logical.Project{Input: n, Exprs: all, Out: uniquify(out)}
	}
	starts := make([]int, len(o.specs))
	for i, s := range o.specs {
		w := &logical.Window{Input: n, Rows: s.rows, Bounded: s.bounded, Preceding: s.preceding}
		for _, p := range s.part {
			w.PartitionKeys = append(w.PartitionKeys, col[p])
		}
		for _, k := range s.order {
			k.Index = col[k.Index]
			w.OrderKeys = append(w.OrderKeys, k)
		}
		out := append(types.Schema(nil), n.Schema()...)
		starts[i] = len(out)
		for j, c := range s.calls {
			a := c
			a.Args = make([]int, len(c.Args))
			for k, x := range c.Args {
				a.Args[k] = col[x]
			}
			w.Calls = append(w.Calls, a)
			out = append(out, types.Field{Name: fmt.Sprintf("w%d$o%d", i, j), Type: c.T})
		}
		w.Out = uniquify(out)
		n = w
	}
	fix := func(x logical.Expr) logical.Expr {
		return logical.Rewrite(x, func(e logical.Expr) logical.Expr {
			if r, ok := e.(*overRef); ok {
				idx := starts[r.spec] + r.call
				return &logical.ColumnRef{Index: idx, Name: n.Schema()[idx].Name, T: r.t}
			}
			return e
		})
	}
	for i := range exprs {
		exprs[i] = fix(exprs[i])
	}
	for i := range hidden {
		hidden[i] = fix(hidden[i])
	}
	return n, nil
}
