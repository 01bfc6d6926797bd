package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Mini-batch and two-phase (local/global) aggregation in streaming mode,
// as Flink's MiniBatchIntervalInferRule and TwoStageOptimizedAggregateRule
// plan them.

// MiniBatchOptions are table.exec.mini-batch.* and
// table.optimizer.agg-phase-strategy, already validated.
type MiniBatchOptions struct {
	// Enabled is table.exec.mini-batch.enabled.
	Enabled bool
	// IntervalMs is table.exec.mini-batch.allow-latency in milliseconds.
	IntervalMs int64
	// Size is table.exec.mini-batch.size.
	Size int64
	// Phase is table.optimizer.agg-phase-strategy: "AUTO" (or ""),
	// "ONE_PHASE" or "TWO_PHASE".
	Phase string
}

// MiniBatchAssigner closes mini-batch bundles (Flink's
// StreamPhysicalMiniBatchAssigner): rows pass unchanged, and an
// EndOfBundle marker follows every IntervalMs of processing time or Size
// rows, whichever comes first. It sits right above each source of a plan
// that has a mini-batch aggregate.
type MiniBatchAssigner struct {
	Input      Node
	IntervalMs int64
	Size       int64
	// RowTime closes bundles on watermarks (Flink's mode RowTime) instead
	// of processing time: the assigner sits above the WatermarkAssigner
	// and forwards a watermark (after an EndOfBundle) once it advanced
	// into a later interval.
	RowTime bool
}

// LocalGroupAggregate is the local half of a two-phase streaming GROUP BY
// (Flink's StreamPhysicalLocalGroupAggregate): per bundle it
// pre-aggregates its rows into partial accumulator state per group and
// emits one insert row per group — the group columns, then the state
// columns of every call (AVG has two: sum and count) — and forgets the
// bundle.
type LocalGroupAggregate struct {
	Input     Node
	GroupKeys []int
	Aggs      []logical.AggCall
	Out       types.Schema
}

// GlobalGroupAggregate is the global half of a two-phase streaming GROUP
// BY (Flink's StreamPhysicalGlobalGroupAggregate): it merges the partial
// states of its input (a LocalGroupAggregate's rows, after an Exchange)
// into its per-group state and emits one net change per group and bundle.
// GroupKeys index its input (the local's leading columns); StateCols[i]
// are the input columns holding the state of Aggs[i]; Aggs keep the
// arguments of the original call (over the local's input) for EXPLAIN and
// the accumulator types.
type GlobalGroupAggregate struct {
	Input     Node
	GroupKeys []int
	Aggs      []logical.AggCall
	StateCols [][]int
	// DistinctCols[i] is the input column of the distinct values of a
	// DISTINCT call Aggs[i] (logical.DistinctLayout), -1 for other calls.
	DistinctCols []int
	// LocalIn is the schema of the local aggregate's input (the types of
	// the original arguments).
	LocalIn types.Schema
	Out     types.Schema
}

// Schema implements Node.
func (n *MiniBatchAssigner) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *LocalGroupAggregate) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *GlobalGroupAggregate) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *MiniBatchAssigner) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *LocalGroupAggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *GlobalGroupAggregate) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *MiniBatchAssigner) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *LocalGroupAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *GlobalGroupAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *MiniBatchAssigner) Name() string { return "MiniBatchAssigner" }

// Name implements Node.
func (n *LocalGroupAggregate) Name() string { return "LocalGroupAggregate" }

// Name implements Node.
func (n *GlobalGroupAggregate) Name() string { return "GlobalGroupAggregate" }

// Mode implements Node.
func (n *MiniBatchAssigner) Mode() changelog.Mode { return n.Input.Mode() }

// Mode implements Node: partial states are inserts.
func (n *LocalGroupAggregate) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node: the local input is insert-only, so groups never
// disappear.
func (n *GlobalGroupAggregate) Mode() changelog.Mode {
	return changelog.ModeInsert | changelog.ModeUpdateBefore | changelog.ModeUpdateAfter
}

var (
	_ Node = (*MiniBatchAssigner)(nil)
	_ Node = (*LocalGroupAggregate)(nil)
	_ Node = (*GlobalGroupAggregate)(nil)
)

func groupItems(in []string, groupKeys []int, out types.Schema) (sel, keys []string) {
	keys = make([]string, len(groupKeys))
	for i, k := range groupKeys {
		keys[i] = colName(in, k)
		item := keys[i]
		if i < len(out) && out[i].Name != keys[i] {
			item += " AS " + out[i].Name
		}
		sel = append(sel, item)
	}
	return sel, keys
}

func aggAttrs(keys, sel []string) string {
	s := ""
	if len(keys) > 0 {
		s = "groupBy=[" + strings.Join(keys, ", ") + "], "
	}
	return s + "select=[" + strings.Join(sel, ", ") + "]"
}

// stateKinds names the accumulator fields of a splittable call as Flink
// does (count1 for COUNT(*), count, sum, (sum, count) for AVG, min, max).
func stateKinds(a logical.AggCall) []string {
	if a.User {
		// a user-defined function's accumulator, named after it (the last
		// part of its identifier) as Flink names the buffer of an
		// AggregateFunction
		return []string{a.Name[strings.LastIndex(a.Name, ".")+1:]}
	}
	switch strings.ToUpper(a.Name) {
	case "COUNT":
		if len(a.Args) == 0 {
			return []string{"count1"}
		}
		return []string{"count"}
	case "SUM":
		return []string{"sum"}
	case "AVG":
		return []string{"sum", "count"}
	case "MIN":
		return []string{"min"}
	case "MAX":
		return []string{"max"}
	}
	return nil
}

// stateTypes returns the types of the partial state of a splittable call
// over input in, matching the Merger state of vectorized/agg; ok is false
// when the call cannot split.
func stateTypes(a logical.AggCall, in types.Schema) ([]types.Type, bool) {
	if a.Distinct {
		return nil, false
	}
	if a.User {
		// a user-defined aggregate splits when its accumulators merge: the
		// partial state is the exported accumulator (NULL: no row yet)
		return []types.Type{types.BytesT}, a.Mergeable
	}
	bigint := types.Type{Kind: types.BigInt, NotNull: true}
	name := strings.ToUpper(a.Name)
	if name == "COUNT" {
		return []types.Type{bigint}, true
	}
	if len(a.Args) != 1 || a.Args[0] < 0 || a.Args[0] >= len(in) {
		return nil, false
	}
	t := in[a.Args[0]].Type
	t.NotNull = false
	sum := func() (types.Type, bool) {
		switch t.Kind {
		case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
			return types.Type{Kind: types.BigInt}, true
		case types.Float, types.Double:
			if name == "AVG" {
				return types.Type{Kind: types.Double}, true
			}
			return t, true
		case types.Decimal:
			return types.Type{Kind: types.Decimal, Precision: 38, Scale: t.Scale}, true
		}
		return types.Type{}, false
	}
	switch name {
	case "SUM":
		s, ok := sum()
		return []types.Type{s}, ok
	case "AVG":
		s, ok := sum()
		return []types.Type{s, bigint}, ok
	case "MIN", "MAX":
		switch t.Kind {
		case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
			types.Decimal, types.Char, types.VarChar, types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
			return []types.Type{t}, true
		}
	}
	return nil, false
}

// applyMiniBatch rewrites a streaming plan for mini-batch: every
// GroupAggregate buffers bundles, a MiniBatchAssigner goes above every
// source below one, and with the phase strategy AUTO or TWO_PHASE an
// aggregate whose calls can all split over an insert-only input becomes
// LocalGroupAggregate → Exchange → GlobalGroupAggregate; window
// aggregations split into LocalWindowAggregate → Exchange →
// GlobalWindowAggregate (window_twophase.go). Without mini-batch only
// TWO_PHASE changes the plan, splitting window aggregations (Flink splits
// GROUP BY aggregates only with mini-batch on).
func applyMiniBatch(n Node, o MiniBatchOptions) Node {
	if !o.Enabled {
		if windowTwoPhaseOn(o) { // window_twophase.go
			return splitWindowAggregates(n, o)
		}
		return n
	}
	return miniBatchRewrite(n, o, miniBatchProcTime, false)
}

// miniBatchRewrite rewrites n whose parent asks for mode; under is set
// below a mini-batch aggregate (a MiniBatchAssigner goes above the
// WatermarkAssigner or source of such a subtree, in RowTime mode below an
// event-time node, as Flink's MiniBatchIntervalInferRule places it).
func miniBatchRewrite(n Node, o MiniBatchOptions, mode miniBatchMode, under bool) Node {
	mode = inferMiniBatchMode(n, mode) // window_twophase.go
	if w, ok := n.(*WindowAggregate); ok {
		c := *w
		c.Input = miniBatchRewrite(w.Input, o, mode, true)
		return twoPhaseWindow(&c, o)
	}
	if _, ok := n.(*WatermarkAssigner); ok && under {
		return &MiniBatchAssigner{Input: n, IntervalMs: o.IntervalMs, Size: o.Size, RowTime: mode == miniBatchRowTime}
	}
	if g, ok := n.(*GroupAggregate); ok {
		under = true
		in := miniBatchRewrite(g.Input, o, mode, under)
		if two := twoPhase(g, in, o); two != nil {
			return two
		}
		c := *g
		c.Input = in
		c.MiniBatchSize = o.Size
		return &c
	}
	ch := n.Children()
	if len(ch) == 0 {
		if _, ok := n.(*TableSourceScan); ok && under {
			return &MiniBatchAssigner{Input: n, IntervalMs: o.IntervalMs, Size: o.Size, RowTime: mode == miniBatchRowTime}
		}
		return n
	}
	conv := make([]Node, len(ch))
	for i, c := range ch {
		conv[i] = miniBatchRewrite(c, o, mode, under)
	}
	return n.WithChildren(conv)
}

// twoPhase returns the local/global form of g over its rewritten input
// (an Exchange), or nil when it does not apply.
func twoPhase(g *GroupAggregate, in Node, o MiniBatchOptions) Node {
	if strings.EqualFold(o.Phase, "ONE_PHASE") {
		return nil
	}
	ex, ok := in.(*Exchange)
	if !ok {
		return nil
	}
	if g.Split != nil && g.Split.Type == "PARTIAL" {
		// the partial level of a split DISTINCT stays one (mini-batch)
		// phase: Flink merges it with the final level's local phase into
		// an IncrementalGroupAggregate, which tablerun does not have
		return nil
	}
	_, global, ok := SplitGroupAggregate(g, ex.Input)
	if !ok {
		return nil
	}
	return global
}

// splitCallStates appends to out the partial-state columns of every call
// of a two-phase aggregate over input in — per call its accumulator
// fields, then one shared distinct column per argument list of the
// DISTINCT calls (logical.DistinctLayout) — and returns each call's state
// columns and distinct column (-1: none). ok is false when a call cannot
// split.
func splitCallStates(aggs []logical.AggCall, in types.Schema, out *types.Schema) (stateCols [][]int, distinctCols []int, ok bool) {
	dcol, _, dargs, ok := logical.DistinctLayout(aggs)
	if !ok {
		return nil, nil, false
	}
	idx := 0
	for _, a := range aggs {
		plain := a
		if a.Distinct {
			// the call's state over the bundle's distinct values; the
			// values themselves go into the shared distinct column
			if a.User || !distinctArgsSplit(a.Args, in) {
				return nil, nil, false
			}
			plain.Distinct = false
		}
		ts, ok := stateTypes(plain, in)
		if !ok {
			return nil, nil, false
		}
		var cols []int
		for j, t := range ts {
			cols = append(cols, len(*out))
			*out = append(*out, types.Field{Name: fmt.Sprintf("%s$%d", stateKinds(a)[j], idx), Type: t})
			idx++
		}
		stateCols = append(stateCols, cols)
	}
	first := len(*out)
	for k := range dargs {
		*out = append(*out, types.Field{Name: fmt.Sprintf("distinct$%d", k), Type: logical.DistinctStateType()})
	}
	for _, k := range dcol {
		if k >= 0 {
			k += first
		}
		distinctCols = append(distinctCols, k)
	}
	return stateCols, distinctCols, true
}

// localAggItems prints the calls of a local phase as Flink does —
// "SUM(v) AS sum$1", "AVG(v) AS (sum$2, count$3)", a DISTINCT call as
// "COUNT(distinct$0 v) AS count$0" — then its distinct columns
// ("DISTINCT(v) AS distinct$0"); the calls' state columns start at column
// col of out.
func localAggItems(aggs []logical.AggCall, in []string, out types.Schema, col int) []string {
	var sel []string
	dcol, _, dargs, _ := logical.DistinctLayout(aggs)
	for i, a := range aggs {
		names := out[col : col+len(stateKinds(a))].Names()
		col += len(names)
		target := names[0]
		if len(names) > 1 {
			target = "(" + strings.Join(names, ", ") + ")"
		}
		call := AggString(a, in)
		if a.Distinct && i < len(dcol) && dcol[i] >= 0 {
			b := a
			b.Distinct = false
			call = AggString(b, in)
			open := strings.Index(call, "(")
			call = call[:open+1] + fmt.Sprintf("distinct$%d ", dcol[i]) + call[open+1:]
		}
		sel = append(sel, call+" AS "+target)
	}
	for k, args := range dargs {
		names := make([]string, len(args))
		for j, c := range args {
			names[j] = colName(in, c)
		}
		sel = append(sel, fmt.Sprintf("DISTINCT(%s) AS distinct$%d", strings.Join(names, ", "), k))
	}
	return sel
}

// globalAggItems prints the calls of a global phase as Flink does:
// "SUM(sum$1) AS s", "AVG((sum$2, count$3)) AS a", a DISTINCT call as
// "COUNT(distinct$0 count$0) AS c".
func globalAggItems(aggs []logical.AggCall, stateCols [][]int, distinctCols []int, in []string) []string {
	var sel []string
	for i, a := range aggs {
		names := make([]string, len(stateCols[i]))
		for j, c := range stateCols[i] {
			names[j] = colName(in, c)
		}
		arg := names[0]
		if len(names) > 1 {
			arg = "(" + strings.Join(names, ", ") + ")"
		}
		name := strings.ToUpper(a.Name)
		if a.User {
			name = a.Name
		}
		if i < len(distinctCols) && distinctCols[i] >= 0 {
			arg = colName(in, distinctCols[i]) + " " + arg
		}
		sel = append(sel, name+"("+arg+") AS "+a.Alias)
	}
	return sel
}

// distinctArgsSplit reports whether DISTINCT values of the argument
// columns args of in can cross phases: scalar types with a value encoding.
func distinctArgsSplit(args []int, in types.Schema) bool {
	for _, a := range args {
		if a < 0 || a >= len(in) {
			return false
		}
		switch in[a].Type.Kind {
		case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
			types.Decimal, types.Char, types.VarChar, types.Binary, types.VarBinary, types.Date, types.Time,
			types.Timestamp, types.TimestampLTZ:
		default:
			return false
		}
	}
	return len(args) > 0
}

// SplitGroupAggregate splits the aggregate g over input src into a
// LocalGroupAggregate over src and a GlobalGroupAggregate over an Exchange
// (hash of the group columns, single without) of the local's output. ok
// is false when it cannot split: an updating input, a call that is not
// COUNT, SUM, AVG, MIN, MAX or a user-defined aggregate that defines
// merge, a DISTINCT call of a user-defined aggregate or over arguments of
// a nested type. SELECT DISTINCT (keys, no calls) splits too. DISTINCT
// calls keep their values in shared distinct columns after the state
// columns (logical.DistinctLayout), as Flink's "DISTINCT(x) AS distinct$0".
func SplitGroupAggregate(g *GroupAggregate, src Node) (local *LocalGroupAggregate, global *GlobalGroupAggregate, ok bool) {
	if len(g.Aggs)+len(g.GroupKeys) == 0 || !src.Mode().IsInsertOnly() {
		return nil, nil, false
	}
	inSchema := src.Schema()
	local = &LocalGroupAggregate{Input: src, GroupKeys: g.GroupKeys, Aggs: g.Aggs}
	for i := range g.GroupKeys {
		local.Out = append(local.Out, g.Out[i])
	}
	global = &GlobalGroupAggregate{Aggs: g.Aggs, LocalIn: inSchema, Out: g.Out}
	stateCols, distinctCols, ok := splitCallStates(g.Aggs, inSchema, &local.Out)
	if !ok {
		return nil, nil, false
	}
	global.StateCols, global.DistinctCols = stateCols, distinctCols
	var keys []int
	for i := range g.GroupKeys {
		keys = append(keys, i)
		global.GroupKeys = append(global.GroupKeys, i)
	}
	global.Input = &Exchange{Input: local, Keys: keys}
	return local, global, true
}

// Explain implements Node.
func (x *MiniBatchAssigner) Explain(execution bool) string {
	mode := "ProcTime"
	if x.RowTime {
		mode = "RowTime"
	}
	return fmt.Sprintf("interval=[%dms], mode=[%s]", x.IntervalMs, mode)
}

// Explain implements Node.
func (x *LocalGroupAggregate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	sel, keys := groupItems(in, x.GroupKeys, x.Out)
	sel = append(sel, localAggItems(x.Aggs, in, x.Out, len(x.GroupKeys))...)
	return aggAttrs(keys, sel)
}

// Explain implements Node.
func (x *GlobalGroupAggregate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	sel, keys := groupItems(in, x.GroupKeys, x.Out)
	sel = append(sel, globalAggItems(x.Aggs, x.StateCols, x.DistinctCols, in)...)
	return aggAttrs(keys, sel)
}

// Capabilities (node.go).

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *MiniBatchAssigner) Stateless() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *MiniBatchAssigner) ParallelSafe() bool { return true }

// StreamOnly implements StreamOnly.
func (n *MiniBatchAssigner) StreamOnly() bool { return true }

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *LocalGroupAggregate) Stateless() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *LocalGroupAggregate) ParallelSafe() bool { return true }

// StreamOnly implements StreamOnly.
func (n *LocalGroupAggregate) StreamOnly() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *GlobalGroupAggregate) ParallelSafe() bool { return true }

// StreamOnly implements StreamOnly.
func (n *GlobalGroupAggregate) StreamOnly() bool { return true }
