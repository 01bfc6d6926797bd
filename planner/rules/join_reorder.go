package rules

import (
	"math"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// JoinReorder ("JoinReorderRule") orders each tree of inner joins by
// estimated cardinality. It runs only when 'table.optimizer.join-reorder-
// enabled' is true (Flink's option; its default, false, keeps the FROM
// clause's order, as in Flink), once, after the other rules reached their
// fixed point, and the other rules then run again over its result. The
// facade switches it on for batch queries only.
//
// A tree of inner joins (looking through projections that only pick
// columns) is flattened into its inputs and the conjuncts of all its
// conditions. The new order is left-deep and greedy: it starts from the
// input with the most estimated rows, which stays the probe side of every
// hash join, and adds next the input connected to those already joined
// that gives the fewest estimated rows (ties: the smaller input), so the
// hash tables are built on the small, filtered inputs and no cross join
// is made while a connected input is left. Each conjunct goes into the
// lowest join that has all its columns; a projection on top restores the
// tree's column order.
//
// Estimates: a scan's row count is what its source reports
// (catalog.Abilities.ReportStatistics, Flink's SupportsStatisticReport),
// else Flink's default for an unknown table (10^8); filters multiply it
// by Calcite's guessed selectivities (= 0.15, comparisons 0.5, IS NOT NULL
// 0.9, others 0.25); an equi-join of rows a and b is a·b divided by the
// smaller of the two columns' input sizes (a foreign-key join keeps the
// rows of the referencing side that the referenced side's filters let
// through).
type JoinReorder struct{ env *Env }

// Name implements Rule.
func (r *JoinReorder) Name() string { return "JoinReorderRule" }

// Apply implements Rule.
func (r *JoinReorder) Apply(n logical.Node) (logical.Node, bool, error) {
	out, changed := r.rewrite(n)
	return out, changed, nil
}

func (r *JoinReorder) rewrite(n logical.Node) (logical.Node, bool) {
	if r.joinish(n) {
		return r.reorder(n)
	}
	ch := n.Children()
	if len(ch) == 0 {
		return n, false
	}
	nc := make([]logical.Node, len(ch))
	changed := false
	for i, c := range ch {
		x, ok := r.rewrite(c)
		nc[i] = x
		changed = changed || ok
	}
	if !changed {
		return n, false
	}
	return n.WithChildren(nc), true
}

// flattenable reports an inner join whose inputs can be reordered.
func (r *JoinReorder) flattenable(j *logical.Join) bool {
	return j.Kind == logical.InnerJoin && !j.Temporal && !j.NullAwareAnti &&
		(j.Cond == nil || r.env.deterministic(j.Cond))
}

// joinish reports a flattenable inner join, possibly under projections
// that only pick columns.
func (r *JoinReorder) joinish(n logical.Node) bool {
	switch x := n.(type) {
	case *logical.Join:
		return r.flattenable(x)
	case *logical.Project:
		for _, e := range x.Exprs {
			if _, ok := e.(*logical.ColumnRef); !ok {
				return false
			}
		}
		return r.joinish(x.Input)
	}
	return false
}

// multiJoin is a flattened tree of inner joins: its inputs, each input's
// first column in the global column space, and the conjuncts over it.
type multiJoin struct {
	leaves []logical.Node
	offs   []int
	width  int
	conds  []logical.Expr
}

// flatten adds n's inputs and conjuncts to m and returns the global column
// of each of n's output columns.
func (r *JoinReorder) flatten(m *multiJoin, n logical.Node) []int {
	if r.joinish(n) {
		switch x := n.(type) {
		case *logical.Join:
			cols := append(r.flatten(m, x.Left), r.flatten(m, x.Right)...)
			if x.Cond != nil {
				for _, c := range logical.Conjuncts(x.Cond) {
					m.conds = append(m.conds, logical.ShiftRefs(c, func(i int) int { return cols[i] }))
				}
			}
			return cols
		case *logical.Project:
			in := r.flatten(m, x.Input)
			out := make([]int, len(x.Exprs))
			for i, e := range x.Exprs {
				out[i] = in[e.(*logical.ColumnRef).Index]
			}
			return out
		}
	}
	leaf, _ := r.rewrite(n)
	m.leaves = append(m.leaves, leaf)
	m.offs = append(m.offs, m.width)
	w := len(leaf.Schema())
	out := make([]int, w)
	for i := range out {
		out[i] = m.width + i
	}
	m.width += w
	return out
}

// leafOf returns the input that global column g belongs to.
func (m *multiJoin) leafOf(g int) int {
	for i := len(m.offs) - 1; i >= 0; i-- {
		if g >= m.offs[i] {
			return i
		}
	}
	return 0
}

// condInfo is what the ordering needs to know about a conjunct.
type condInfo struct {
	leaves uint64 // bit set of the inputs it reads
	// equi: a = b between two columns of different inputs.
	equi       bool
	colA, colB int
}

func (r *JoinReorder) reorder(n logical.Node) (logical.Node, bool) {
	m := &multiJoin{}
	rootCols := r.flatten(m, n)
	k := len(m.leaves)
	if k < 2 || k > 64 {
		return n, false
	}
	infos := make([]condInfo, len(m.conds))
	for i, c := range m.conds {
		var set uint64
		for g := range logical.InputRefs(c) {
			set |= 1 << m.leafOf(g)
		}
		infos[i].leaves = set
		if call, ok := c.(*logical.Call); ok && call.Name == "=" && len(call.Args) == 2 {
			a, okA := call.Args[0].(*logical.ColumnRef)
			b, okB := call.Args[1].(*logical.ColumnRef)
			if okA && okB && m.leafOf(a.Index) != m.leafOf(b.Index) {
				infos[i].equi, infos[i].colA, infos[i].colB = true, a.Index, b.Index
			}
		}
	}
	rows := make([]float64, k)
	base := make([]float64, k)
	for i, l := range m.leaves {
		rows[i] = estimateRows(l)
		base[i] = baseRows(l)
	}
	// Greedy left-deep order.
	start := 0
	for i := 1; i < k; i++ {
		if rows[i] > rows[start] {
			start = i
		}
	}
	order := []int{start}
	joined := uint64(1) << start
	cur := rows[start]
	for len(order) < k {
		best, bestOut, bestConn := -1, 0.0, false
		for i := 0; i < k; i++ {
			if joined&(1<<i) != 0 {
				continue
			}
			with := joined | 1<<i
			conn := false
			div := 1.0
			sel := 1.0
			for _, ci := range infos {
				if ci.leaves&(1<<i) == 0 || ci.leaves&joined == 0 || ci.leaves&^with != 0 {
					continue
				}
				conn = true
				if ci.equi {
					d := math.Min(base[m.leafOf(ci.colA)], base[m.leafOf(ci.colB)])
					div = math.Max(div, d)
				} else {
					sel *= 0.25
				}
			}
			out := math.Max(1, cur*rows[i]/div*sel)
			better := best < 0 ||
				conn && !bestConn ||
				conn == bestConn && (out < bestOut || out == bestOut && rows[i] < rows[best])
			if better {
				best, bestOut, bestConn = i, out, conn
			}
		}
		order = append(order, best)
		joined |= 1 << best
		cur = bestOut
	}
	identity := true
	for i, l := range order {
		if i != l {
			identity = false
		}
	}
	if identity && isLeftDeepInOrder(n) {
		// Already the chosen order: keep the plan (and any conjunct
		// placement the other rules made).
		return r.rewriteInputs(n)
	}
	// Build the joins.
	newOff := make([]int, k)
	placed := make([]bool, len(m.conds))
	var plan logical.Node
	var schema types.Schema
	have := uint64(0)
	width := 0
	for step, l := range order {
		leaf := m.leaves[l]
		newOff[l] = width
		width += len(leaf.Schema())
		have |= 1 << l
		if step == 0 {
			plan = leaf
			schema = append(types.Schema(nil), leaf.Schema()...)
			continue
		}
		var conds []logical.Expr
		for i, ci := range infos {
			if placed[i] || ci.leaves&^have != 0 {
				continue
			}
			placed[i] = true
			conds = append(conds, logical.ShiftRefs(m.conds[i], func(g int) int {
				j := m.leafOf(g)
				return newOff[j] + g - m.offs[j]
			}))
		}
		schema = append(append(types.Schema(nil), schema...), leaf.Schema()...)
		plan = &logical.Join{Left: plan, Right: leaf, Kind: logical.InnerJoin, Cond: logical.And(conds...), Out: schema}
	}
	out := n.Schema()
	exprs := make([]logical.Expr, len(rootCols))
	for i, g := range rootCols {
		j := m.leafOf(g)
		exprs[i] = &logical.ColumnRef{Index: newOff[j] + g - m.offs[j], Name: out[i].Name, T: out[i].Type}
	}
	return &logical.Project{Input: plan, Exprs: exprs, Out: out}, true
}

// isLeftDeepInOrder reports a tree whose right inputs are all leaves, so
// flattening it lists the leaves in its own join order.
func isLeftDeepInOrder(n logical.Node) bool {
	for {
		switch x := n.(type) {
		case *logical.Project:
			n = x.Input
			continue
		case *logical.Join:
			if j, ok := unproject(x.Right).(*logical.Join); ok && j.Kind == logical.InnerJoin {
				return false
			}
			n = x.Left
			continue
		}
		return true
	}
}

func unproject(n logical.Node) logical.Node {
	for {
		p, ok := n.(*logical.Project)
		if !ok {
			return n
		}
		n = p.Input
	}
}

// rewriteInputs reorders the join trees inside the inputs of the join
// tree n, keeping n's own order.
func (r *JoinReorder) rewriteInputs(n logical.Node) (logical.Node, bool) {
	if !r.joinish(n) {
		return r.rewrite(n)
	}
	ch := n.Children()
	nc := make([]logical.Node, len(ch))
	changed := false
	for i, c := range ch {
		x, ok := r.rewriteInputs(c)
		nc[i] = x
		changed = changed || ok
	}
	if !changed {
		return n, false
	}
	return n.WithChildren(nc), true
}

// unknownRows is Flink's row count of a table without statistics.
const unknownRows = 1e8

// estimateRows guesses the number of rows n produces.
func estimateRows(n logical.Node) float64 {
	switch x := n.(type) {
	case *logical.Scan:
		return scanRows(x)
	case *logical.Filter:
		return math.Max(1, estimateRows(x.Input)*selectivity(x.Cond))
	case *logical.Aggregate:
		if len(x.GroupKeys) == 0 {
			return 1
		}
		return math.Max(1, estimateRows(x.Input)/10)
	case *logical.Values:
		return float64(len(x.Rows))
	case *logical.Limit:
		in := estimateRows(x.Input)
		if x.Fetch >= 0 {
			return math.Min(in, float64(x.Fetch))
		}
		return in
	case *logical.Join:
		l, rr := estimateRows(x.Left), estimateRows(x.Right)
		switch x.Kind {
		case logical.SemiJoin, logical.AntiJoin:
			return math.Max(1, l/2)
		case logical.LeftJoin:
			return l
		case logical.RightJoin:
			return rr
		}
		if x.Cond == nil {
			return l * rr
		}
		return math.Max(l, rr)
	}
	ch := n.Children()
	if len(ch) == 0 {
		return unknownRows
	}
	var sum float64
	for _, c := range ch {
		sum += estimateRows(c)
	}
	if len(ch) > 1 {
		if _, ok := n.(*logical.Union); ok {
			return sum
		}
		return sum / float64(len(ch))
	}
	return sum
}

// baseRows is estimateRows without the filters' selectivity: the number
// of distinct values a key column of n can have.
func baseRows(n logical.Node) float64 {
	switch x := n.(type) {
	case *logical.Filter:
		return baseRows(x.Input)
	case *logical.Project:
		return baseRows(x.Input)
	}
	return estimateRows(n)
}

func scanRows(s *logical.Scan) float64 {
	rows := float64(unknownRows)
	if s.Table != nil {
		if a := catalog.AbilitiesOf(s.Table); a.ReportStatistics != nil {
			if st := a.ReportStatistics(); st.RowCount >= 0 {
				rows = float64(st.RowCount)
			}
		}
	}
	if s.Limit > 0 {
		rows = math.Min(rows, float64(s.Limit))
	}
	return math.Max(1, rows)
}

// selectivity is Calcite's guess (RelMdUtil.guessSelectivity) for a
// condition, conjunct by conjunct.
func selectivity(e logical.Expr) float64 {
	c, ok := e.(*logical.Call)
	if !ok {
		return 0.25
	}
	switch c.Name {
	case "AND":
		s := 1.0
		for _, a := range c.Args {
			s *= selectivity(a)
		}
		return s
	case "OR":
		s := 0.0
		for _, a := range c.Args {
			s += selectivity(a)
		}
		return math.Min(1, s)
	case "NOT":
		if len(c.Args) == 1 {
			return 1 - selectivity(c.Args[0])
		}
	case "IS NOT NULL":
		return 0.9
	case "=":
		return 0.15
	case "<", "<=", ">", ">=":
		return 0.5
	case "IN":
		return math.Min(0.5, 0.15*float64(max(1, len(c.Args)-1)))
	}
	return 0.25
}
