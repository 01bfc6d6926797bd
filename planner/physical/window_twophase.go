package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Two-phase window aggregation (Flink's TwoStageOptimizedWindowAggregateRule)
// and the event-time mode of the MiniBatchAssigner (Flink's
// MiniBatchIntervalInferRule).

// SliceEndName is the name of the column that carries a partial window
// state's window end from LocalWindowAggregate to GlobalWindowAggregate.
const SliceEndName = "$slice_end"

// LocalWindowAggregate is the local half of a two-phase window aggregation
// (Flink's StreamPhysicalLocalWindowAggregate): it assigns the windows of
// its rows, pre-aggregates them per key and window into accumulator state
// and emits, when a window may fire (on the watermark), at the end of a
// bundle, before a checkpoint barrier and at the end of the input, one
// insert row per key and window: the group columns, the state columns of
// every call, then $slice_end (the window end, BIGINT milliseconds of the
// windows' wall clock). It keeps nothing across a flush.
type LocalWindowAggregate struct {
	Input     Node
	GroupKeys []int
	Aggs      []logical.AggCall
	// Window is the window; TimeCol indexes Input.
	Window logical.WindowSpec
	// Size closes a bundle after this many input rows (<= 0: markers only).
	Size int64
	Out  types.Schema
}

// GlobalWindowAggregate is the global half of a two-phase window
// aggregation (Flink's StreamPhysicalGlobalWindowAggregate): it merges the
// partial states of its input (a LocalWindowAggregate's rows after an
// Exchange) per key and window and, when the watermark passes a window's
// end, emits the window's rows as WindowAggregate does: the group keys,
// the aggregates, window_start, window_end and, with WindowTime,
// window_time.
type GlobalWindowAggregate struct {
	Input Node
	// GroupKeys index Input (the local's leading columns).
	GroupKeys []int
	// Aggs keep the arguments of the original calls (over LocalIn).
	Aggs []logical.AggCall
	// StateCols[i] are the Input columns holding the state of Aggs[i].
	StateCols [][]int
	// DistinctCols[i] is the Input column of the distinct values of a
	// DISTINCT call Aggs[i] (logical.DistinctLayout), -1 for other calls.
	DistinctCols []int
	// SliceEnd is the Input column $slice_end.
	SliceEnd int
	// Window is the window; TimeCol indexes LocalIn.
	Window logical.WindowSpec
	// LocalIn is the schema of the local aggregate's input.
	LocalIn    types.Schema
	WindowTime bool
	Out        types.Schema
}

// Schema implements Node.
func (n *LocalWindowAggregate) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *GlobalWindowAggregate) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *LocalWindowAggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *GlobalWindowAggregate) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *LocalWindowAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *GlobalWindowAggregate) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *LocalWindowAggregate) Name() string { return "LocalWindowAggregate" }

// Name implements Node.
func (n *GlobalWindowAggregate) Name() string { return "GlobalWindowAggregate" }

// Mode implements Node: partial states are inserts.
func (n *LocalWindowAggregate) Mode() changelog.Mode { return changelog.InsertOnly }

// Mode implements Node: a window's result is final when it fires.
func (n *GlobalWindowAggregate) Mode() changelog.Mode { return changelog.InsertOnly }

var (
	_ Node = (*LocalWindowAggregate)(nil)
	_ Node = (*GlobalWindowAggregate)(nil)
)

func windowAggAttrs(keys []string, window string, sel []string) string {
	s := ""
	if len(keys) > 0 {
		s = "groupBy=[" + strings.Join(keys, ", ") + "], "
	}
	return s + "window=[" + window + "], select=[" + strings.Join(sel, ", ") + "]"
}

// sliceWindowString prints a window over slice ends as Flink's
// SliceAttachedWindowingStrategy does: TUMBLE(slice_end=[$slice_end], …).
func sliceWindowString(w logical.WindowSpec, sliceEnd string) string {
	s := w.String()
	prefix := fmt.Sprintf("%s(time_col=[%s], ", w.Kind, w.TimeName)
	if rest, ok := strings.CutPrefix(s, prefix); ok {
		return fmt.Sprintf("%s(slice_end=[%s], %s", w.Kind, sliceEnd, rest)
	}
	return s
}

// windowTwoPhaseOn reports whether window aggregations split into local
// and global phases: TWO_PHASE always, AUTO with mini-batch on (Flink's
// AUTO splits rowtime window aggregations even without mini-batch; tablerun
// keeps them in one phase then), never with ONE_PHASE.
func windowTwoPhaseOn(o MiniBatchOptions) bool {
	switch strings.ToUpper(o.Phase) {
	case "TWO_PHASE":
		return true
	case "ONE_PHASE":
		return false
	}
	return o.Enabled
}

// splitWindowAggregates splits every window aggregation of a plan that
// can split (SplitWindowAggregate) into its local and global phases.
func splitWindowAggregates(n Node, o MiniBatchOptions) Node {
	ch := n.Children()
	if len(ch) == 0 {
		return n
	}
	conv := make([]Node, len(ch))
	for i, c := range ch {
		conv[i] = splitWindowAggregates(c, o)
	}
	n = n.WithChildren(conv)
	if w, ok := n.(*WindowAggregate); ok {
		return twoPhaseWindow(w, o)
	}
	return n
}

// twoPhaseWindow returns the local/global form of w when the options ask
// for two phases and it can split, else w.
func twoPhaseWindow(w *WindowAggregate, o MiniBatchOptions) Node {
	if !windowTwoPhaseOn(o) {
		return w
	}
	ex, ok := w.Input.(*Exchange)
	if !ok {
		return w
	}
	size := int64(0)
	if o.Enabled {
		size = o.Size
	}
	_, global, ok := SplitWindowAggregate(w, ex.Input, size)
	if !ok {
		return w
	}
	return global
}

// SplitWindowAggregate splits the window aggregation w over input src into
// a LocalWindowAggregate over src (closing a bundle after size rows; <= 0:
// on markers only) and a GlobalWindowAggregate over an Exchange (hash of
// the group columns, single without) of the local's output. ok is false
// when it cannot split, as Flink's rule: a processing-time or SESSION
// window, an updating input, or a call that is not COUNT, SUM, AVG, MIN,
// MAX or a user-defined aggregate with merge. DISTINCT calls ship their
// values in distinct columns before $slice_end, as in
// SplitGroupAggregate.
func SplitWindowAggregate(w *WindowAggregate, src Node, size int64) (local *LocalWindowAggregate, global *GlobalWindowAggregate, ok bool) {
	if w.Window.Proctime || w.Window.Kind == logical.Session || !src.Mode().IsInsertOnly() {
		return nil, nil, false
	}
	in := src.Schema()
	local = &LocalWindowAggregate{Input: src, GroupKeys: w.GroupKeys, Aggs: w.Aggs, Window: w.Window, Size: size}
	for _, k := range w.GroupKeys {
		if k < 0 || k >= len(in) {
			return nil, nil, false
		}
		local.Out = append(local.Out, in[k])
	}
	global = &GlobalWindowAggregate{Aggs: w.Aggs, Window: w.Window, LocalIn: in, WindowTime: w.WindowTime, Out: w.Out}
	stateCols, distinctCols, ok := splitCallStates(w.Aggs, in, &local.Out)
	if !ok {
		return nil, nil, false
	}
	global.StateCols, global.DistinctCols = stateCols, distinctCols
	global.SliceEnd = len(local.Out)
	local.Out = append(local.Out, types.Field{Name: SliceEndName, Type: types.Type{Kind: types.BigInt, NotNull: true}})
	keys := make([]int, len(w.GroupKeys))
	for i := range keys {
		keys[i] = i
	}
	global.GroupKeys = keys
	global.Input = &Exchange{Input: local, Keys: keys}
	return local, global, true
}

// miniBatchMode is the mode a MiniBatchAssigner inferred for a subtree
// gets (Flink's MiniBatchMode).
type miniBatchMode uint8

const (
	miniBatchNone miniBatchMode = iota
	miniBatchProcTime
	miniBatchRowTime
)

// requiresWatermark reports whether n works on event time (Flink's
// requireWatermark): its subtree's mini-batches then close on watermarks.
func requiresWatermark(n Node) bool {
	switch x := n.(type) {
	case *WindowAggregate:
		return !x.Window.Proctime
	case *GlobalWindowAggregate:
		return !x.Window.Proctime
	case *LocalWindowAggregate:
		return !x.Window.Proctime
	case *WindowTableFunction:
		return !x.Window.Proctime && !isProctime(x.Input, x.Window.TimeCol)
	case *IntervalJoin:
		return x.IsRowTime
	case *OverAggregate:
		return x.Rowtime
	case *WindowJoin, *TemporalJoin:
		return true
	}
	return false
}

// inferMiniBatchMode merges the mode a parent asks of n with n's own
// need: below an event-time node bundles close on watermarks.
func inferMiniBatchMode(n Node, mode miniBatchMode) miniBatchMode {
	if mode != miniBatchNone && requiresWatermark(n) {
		return miniBatchRowTime
	}
	return mode
}

// Explain implements Node.
func (x *LocalWindowAggregate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	var keys []string
	for _, k := range x.GroupKeys {
		keys = append(keys, colName(in, k))
	}
	sel := append([]string(nil), keys...)
	sel = append(sel, localAggItems(x.Aggs, in, x.Out, len(x.GroupKeys))...)
	sel = append(sel, "slice_end('w$) AS "+SliceEndName)
	return windowAggAttrs(keys, x.Window.String(), sel)
}

// Explain implements Node.
func (x *GlobalWindowAggregate) Explain(execution bool) string {
	in := uniquify(x.Input.Schema().Names())
	var keys []string
	for _, k := range x.GroupKeys {
		keys = append(keys, colName(in, k))
	}
	sel := append([]string(nil), keys...)
	sel = append(sel, globalAggItems(x.Aggs, x.StateCols, x.DistinctCols, in)...)
	nk := len(x.GroupKeys) + len(x.Aggs)
	sel = append(sel, "start('w$) AS "+x.Out[nk].Name, "end('w$) AS "+x.Out[nk+1].Name)
	if x.WindowTime {
		sel = append(sel, "rowtime('w$) AS "+x.Out[nk+2].Name)
	}
	return windowAggAttrs(keys, sliceWindowString(x.Window, colName(in, x.SliceEnd)), sel)
}

// Capabilities (node.go).

// Stateless implements Stateless: the operator keeps nothing across a
// checkpoint barrier.
func (n *LocalWindowAggregate) Stateless() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *LocalWindowAggregate) ParallelSafe() bool { return true }

// ParallelSafe implements ParallelSafe.
func (n *GlobalWindowAggregate) ParallelSafe() bool { return true }
