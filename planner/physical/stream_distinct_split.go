package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// The split of streaming DISTINCT aggregates into two levels, as Flink's
// SplitAggregateRule does with table.optimizer.distinct-agg.split.enabled:
//
//	GroupAggregate(groupBy=[k], select=[k, COUNT(DISTINCT x) AS c])
//
// becomes
//
//	GroupAggregate(groupBy=[k], partialFinalType=[FINAL], select=[k, $SUM0_RETRACT($f2_0) AS c])
//	+- Exchange(distribution=[hash[k]])
//	   +- GroupAggregate(groupBy=[k, $f2], partialFinalType=[PARTIAL], select=[k, $f2, COUNT(DISTINCT x) AS $f2_0])
//	      +- Exchange(distribution=[hash[k, $f2]])
//	         +- Calc(select=[k, x, MOD(HASH_CODE(x), 1024) AS $f2])
//
// The partial level groups by the original keys and a bucket of the
// distinct key, so that a hot key's distinct values spread over up to
// bucket-num instances; the final level adds the partial results up. With
// several distinct keys (COUNT(DISTINCT a), COUNT(DISTINCT b)) an Expand
// copies every row once per distinct key, with only that key's bucket set
// and a $e column numbering the copy; each partial call then only counts
// its own copy (a filter column of the Expand).
//
// Differences from Flink: the bucket is MOD(HASH_CODE(x), bucket-num) as in
// Flink, with tablerun's HASH_CODE (core/function/hash_code.go: Java's
// hashCode over integers, a deterministic non-negative hash of other
// types rather than Java's hashCode); AVG and the
// other aggregate functions keep the aggregate unsplit; the
// copy filters are columns of the Expand rather than of a Calc after it;
// and with mini-batch both levels are mini-batch GroupAggregates (Flink
// plans LocalGroupAggregate, IncrementalGroupAggregate and
// GlobalGroupAggregate with TWO_PHASE; tablerun has no incremental
// aggregate and no local phase over a retracting input).

// DistinctSplitOptions are table.optimizer.distinct-agg.split.*.
type DistinctSplitOptions struct {
	// Enabled is table.optimizer.distinct-agg.split.enabled.
	Enabled bool
	// BucketNum is table.optimizer.distinct-agg.split.bucket-num (1024 when
	// <= 0).
	BucketNum int
}

// SplitInfo marks a GroupAggregate that is one level of a split distinct
// aggregate.
type SplitInfo struct {
	// Type is "PARTIAL" or "FINAL" (Flink's partialFinalType).
	Type string
	// Sum0[i] is true when call i of a FINAL level adds up partial
	// COUNTs: it runs as SUM and prints as Flink's $SUM0.
	Sum0 []bool
}

// Expand emits every input row once per projection list (Flink's
// StreamPhysicalExpand): row kinds pass unchanged.
type Expand struct {
	Input    Node
	Projects [][]logical.Expr
	Out      types.Schema
}

// Schema implements Node.
func (n *Expand) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *Expand) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *Expand) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *Expand) Name() string { return "Expand" }

// Mode implements Node.
func (n *Expand) Mode() changelog.Mode { return n.Input.Mode() }

var _ Node = (*Expand)(nil)

// applyDistinctSplit splits every streaming GroupAggregate with DISTINCT
// calls that can split (see splitDistinct); without the option the plan is
// unchanged.
func applyDistinctSplit(n Node, o DistinctSplitOptions) Node {
	if !o.Enabled {
		return n
	}
	if o.BucketNum <= 0 {
		o.BucketNum = 1024
	}
	return distinctSplitRewrite(n, o)
}

func distinctSplitRewrite(n Node, o DistinctSplitOptions) Node {
	ch := n.Children()
	if len(ch) > 0 {
		conv := make([]Node, len(ch))
		for i, c := range ch {
			conv[i] = distinctSplitRewrite(c, o)
		}
		n = n.WithChildren(conv)
	}
	if g, ok := n.(*GroupAggregate); ok {
		if s := splitDistinct(g, o.BucketNum); s != nil {
			return s
		}
	}
	return n
}

// splittable reports whether every call of g can split and g has a
// DISTINCT call; it returns the distinct argument columns in order of
// first use.
func splittable(g *GroupAggregate, in types.Schema) (dargs []int, ok bool) {
	if g.Split != nil || g.MiniBatchSize > 0 {
		return nil, false
	}
	seen := map[int]bool{}
	for _, a := range g.Aggs {
		switch strings.ToUpper(a.Name) {
		case "COUNT", "SUM", "MIN", "MAX":
		default:
			return nil, false
		}
		if !a.Distinct {
			continue
		}
		if len(a.Args) != 1 || a.Args[0] < 0 || a.Args[0] >= len(in) {
			return nil, false
		}
		if in[a.Args[0]].Type.Kind == types.Null {
			return nil, false
		}
		if !seen[a.Args[0]] {
			seen[a.Args[0]] = true
			dargs = append(dargs, a.Args[0])
		}
	}
	return dargs, len(dargs) > 0
}

// bucketExpr is the bucket of the distinct key x, as Flink's
// SplitAggregateRule: MOD(HASH_CODE(x), n) (NULL for a NULL x).
func bucketExpr(col int, f types.Field, n int) logical.Expr {
	x := &logical.ColumnRef{Index: col, Name: f.Name, T: f.Type}
	t := types.Type{Kind: types.Int, NotNull: f.Type.NotNull}
	lit := &logical.Literal{Value: int32(n), T: types.Type{Kind: types.Int, NotNull: true}}
	h := logical.NewCall(function.FnHashCode, t, x)
	return logical.NewCall(function.OpMod, t, h, lit)
}

// splitDistinct returns the two-level form of g, or nil when it does not
// apply.
func splitDistinct(g *GroupAggregate, bucketNum int) Node {
	src := g.Input
	if ex, ok := src.(*Exchange); ok {
		src = ex.Input
	}
	in := src.Schema()
	dargs, ok := splittable(g, in)
	if !ok {
		return nil
	}
	nIn := len(in)
	// Calc: the input columns, then one bucket per distinct key; it
	// merges into a Calc below.
	calc := &Calc{Input: src}
	for i, f := range in {
		calc.Projection = append(calc.Projection, &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type})
		calc.Out = append(calc.Out, f)
	}
	below, merge := src.(*Calc)
	if merge {
		calc.Input, calc.Condition = below.Input, below.Condition
		calc.Projection = append([]logical.Expr(nil), below.Projection...)
	}
	bucketOf := map[int]int{} // distinct argument column -> bucket column
	for _, d := range dargs {
		e := bucketExpr(d, in[d], bucketNum)
		if merge {
			e = logical.Rewrite(e, func(x logical.Expr) logical.Expr {
				if c, ok := x.(*logical.ColumnRef); ok && c.Index == d {
					return below.Projection[d]
				}
				return x
			})
		}
		bucketOf[d] = len(calc.Out)
		calc.Projection = append(calc.Projection, e)
		calc.Out = append(calc.Out, types.Field{Name: fmt.Sprintf("$f%d", len(calc.Out)), Type: e.Type()})
	}
	group := func(a logical.AggCall) int { // the copy a call reads
		if !a.Distinct {
			return 0
		}
		for i, d := range dargs {
			if d == a.Args[0] {
				return i
			}
		}
		return 0
	}
	var partialIn Node = calc
	filters := make([]int, len(g.Aggs))
	for j, a := range g.Aggs {
		filters[j] = a.Filter
	}
	keys := append([]int(nil), g.GroupKeys...)
	for _, d := range dargs {
		keys = append(keys, bucketOf[d])
	}
	if len(dargs) > 1 {
		partialIn = expandCopies(calc, nIn, dargs, g.Aggs, group, filters)
		keys = append(keys, len(calc.Out)) // $e
	}
	pin := partialIn.Schema()
	partial := &GroupAggregate{Input: &Exchange{Input: partialIn, Keys: keys}, GroupKeys: keys, Split: &SplitInfo{Type: "PARTIAL"}}
	for i, k := range keys {
		f := pin[k]
		if i < len(g.GroupKeys) {
			f.Name = g.Out[i].Name
		}
		partial.Out = append(partial.Out, f)
	}
	final := &GroupAggregate{Out: g.Out, Split: &SplitInfo{Type: "FINAL"}}
	for i := range g.GroupKeys {
		final.GroupKeys = append(final.GroupKeys, i)
	}
	for j, a := range g.Aggs {
		p := a
		p.Filter = filters[j]
		p.Alias = fmt.Sprintf("%s_%d", pin[bucketOf[dargs[group(a)]]].Name, j)
		partial.Aggs = append(partial.Aggs, p)
		partial.Out = append(partial.Out, types.Field{Name: p.Alias, Type: a.T})
		name, def := strings.ToUpper(a.Name), a.Def
		sum0 := name == "COUNT"
		if sum0 {
			name, def = "SUM", function.AggSum
		}
		final.Aggs = append(final.Aggs, logical.AggCall{Name: name, Args: []int{len(keys) + j}, Filter: -1, T: a.T, Alias: a.Alias, Def: def})
		final.Split.Sum0 = append(final.Split.Sum0, sum0)
	}
	final.Input = &Exchange{Input: partial, Keys: final.GroupKeys}
	return final
}

// expandCopies returns the Expand of the distinct split over calc (the
// input's nIn columns and one bucket per distinct key): copy i keeps
// bucket i and sets the others NULL, numbers itself in $e, and has one
// filter column per call: the call's FILTER (TRUE without) in the copy it
// reads, FALSE in the others. filters receives the calls' filter columns.
func expandCopies(calc *Calc, nIn int, dargs []int, aggs []logical.AggCall, group func(logical.AggCall) int, filters []int) *Expand {
	cin := calc.Out
	x := &Expand{Input: calc}
	for _, f := range cin {
		if len(x.Out) >= nIn {
			f.Type.NotNull = false
		}
		x.Out = append(x.Out, f)
	}
	x.Out = append(x.Out, types.Field{Name: "$e", Type: types.Type{Kind: types.Int, NotNull: true}})
	boolT := types.Type{Kind: types.Boolean, NotNull: true}
	for j := range aggs {
		filters[j] = len(x.Out)
		x.Out = append(x.Out, types.Field{Name: fmt.Sprintf("$g_%d", j), Type: types.Type{Kind: types.Boolean}})
	}
	for i := range dargs {
		var p []logical.Expr
		for c, f := range cin {
			if c >= nIn && c-nIn != i {
				p = append(p, &logical.Literal{T: x.Out[c].Type})
				continue
			}
			p = append(p, &logical.ColumnRef{Index: c, Name: f.Name, T: f.Type})
		}
		p = append(p, &logical.Literal{Value: int32(i + 1), T: x.Out[len(cin)].Type})
		for _, a := range aggs {
			switch {
			case group(a) != i:
				p = append(p, &logical.Literal{Value: false, T: boolT})
			case a.Filter >= 0:
				p = append(p, &logical.ColumnRef{Index: a.Filter, Name: cin[a.Filter].Name, T: cin[a.Filter].Type})
			default:
				p = append(p, &logical.Literal{Value: true, T: boolT})
			}
		}
		x.Projects = append(x.Projects, p)
	}
	return x
}

// Explain implements Node.
func (x *Expand) Explain(execution bool) string {
	exprStr := exprStrFor(execution)
	in := uniquify(x.Input.Schema().Names())
	projects := make([]string, len(x.Projects))
	for i, p := range x.Projects {
		items := make([]string, len(p))
		for j, e := range p {
			items[j] = exprStr(e, in)
			if l, ok := e.(*logical.Literal); ok && l.Value == nil {
				items[j] = "null" // Flink prints Expand's NULLs untyped
			}
			if c, ok := e.(*logical.ColumnRef); !ok || colName(in, c.Index) != x.Out[j].Name {
				items[j] += " AS " + x.Out[j].Name
			}
		}
		projects[i] = "{" + strings.Join(items, ", ") + "}"
	}
	return "projects=[" + strings.Join(projects, ", ") + "]"
}

// explainSplit is GroupAggregate.Explain for a level of a split
// aggregate.
func (x *GroupAggregate) explainSplit(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	sel, keys := groupItems(in, x.GroupKeys, x.Out)
	retract := x.NeedRetraction()
	for i, a := range x.Aggs {
		item := AggString(a, in)
		name := a.Name
		if i < len(x.Split.Sum0) && x.Split.Sum0[i] {
			item = "$SUM0" + item[len(a.Name):]
			name = "$SUM0"
		}
		if retract {
			item = strings.ToUpper(name) + "_RETRACT" + item[len(name):]
		}
		sel = append(sel, item+" AS "+a.Alias)
	}
	s := ""
	if len(keys) > 0 {
		s = "groupBy=[" + strings.Join(keys, ", ") + "], "
	}
	return s + "partialFinalType=[" + x.Split.Type + "], select=[" + strings.Join(sel, ", ") + "]"
}
