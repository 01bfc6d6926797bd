package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/planner/logical"
)

// StreamOptions tune the streaming translation.
type StreamOptions struct {
	// SinkMode returns the row kinds the sink of a table accepts; nil
	// uses DefaultSinkMode.
	SinkMode func(t *catalog.ResolvedTable) changelog.Mode
	// MiniBatch plans mini-batch and two-phase aggregation
	// (stream_minibatch.go).
	MiniBatch MiniBatchOptions
	// DistinctSplit splits DISTINCT aggregates in two levels
	// (stream_distinct_split.go).
	DistinctSplit DistinctSplitOptions
}

// DefaultSinkMode returns the row kinds the sink of t accepts, as its
// connector declared them (catalog.Abilities.SinkMode); insert-only when
// t has no resolved abilities.
func DefaultSinkMode(t *catalog.ResolvedTable) changelog.Mode {
	return catalog.AbilitiesOf(t).SinkChangelogMode()
}

// TableError is a planning error Flink raises as
// org.apache.flink.table.api.TableException; its text is Flink's.
type TableError struct{ Msg string }

// Error implements error.
func (e *TableError) Error() string { return e.Msg }

// JavaClass returns the Flink exception class.
func (e *TableError) JavaClass() string { return "org.apache.flink.table.api.TableException" }

// TranslateStream turns an optimized logical plan into a streaming
// physical plan (execution.runtime-mode = STREAMING). It translates as
// TranslateWith does and then replaces the batch-only nodes:
//
//	HashAggregate     GroupAggregate over an Exchange (hash of the group
//	                  keys, or single for a global aggregate)
//	Union             StreamUnion (Flink's Union, any changelog)
//	Sink              StreamSink, after checking that the table's sink
//	                  accepts the input's changelog (Flink's error if not)
//	Sort              Flink's error: sorting needs a time attribute
//	Limit             kept over an insert-only input
//
//	HashJoin,         StreamJoin (Flink's Join) over an Exchange per input
//	NestedLoopJoin    (hash of the keys, or single without keys)
//
// Joins bounded in time become IntervalJoin, WindowJoin, LookupJoin or
// TemporalJoin (interval_join.go).
//
// NOT IN (null-aware anti joins) is an anti join on a null-aware
// condition (stream_not_in.go); INTERSECT / EXCEPT [ALL] follow Flink's
// rewrites (stream_setop.go). ORDER BY … LIMIT (Top-N) and LIMIT over an
// updating input are not supported yet.
func TranslateStream(n logical.Node, env *Env, opts StreamOptions) (Node, error) {
	p, err := TranslateWith(n, env)
	if err != nil {
		return nil, err
	}
	if opts.SinkMode == nil {
		opts.SinkMode = DefaultSinkMode
	}
	s, err := toStream(p, opts)
	if err != nil {
		return nil, err
	}
	if err := checkInsertOnlyInputs(s); err != nil {
		return nil, err
	}
	return applyMiniBatch(applyDistinctSplit(s, opts.DistinctSplit), opts.MiniBatch), nil
}

func toStream(n Node, opts StreamOptions) (Node, error) {
	ch := n.Children()
	conv := make([]Node, len(ch))
	for i, c := range ch {
		s, err := toStream(c, opts)
		if err != nil {
			return nil, err
		}
		conv[i] = s
	}
	if j, ok, err := timeJoin(n, conv); ok { // interval_join.go
		return j, err
	}
	switch x := n.(type) {
	case *TableSourceScan:
		return normalizeUpsert(x) // changelog_normalize.go
	case *Values:
		return n, nil
	case *Correlate:
		// Stateless: each input change is joined with the function's rows
		// and keeps its row kind.
		return x.WithChildren(conv), nil
	case *Calc:
		return withCurrentWatermark(mergeWindowCalc(x.WithChildren(conv))), nil // window.go
	case *HashAggregate:
		if w, ok := windowAggregate(x, conv[0]); ok { // window.go
			return w, nil
		}
		var keys []int
		if len(x.GroupKeys) > 0 {
			keys = append(keys, x.GroupKeys...)
		}
		ex := &Exchange{Input: conv[0], Keys: keys}
		return &GroupAggregate{Input: ex, GroupKeys: x.GroupKeys, Aggs: x.Aggs, Out: x.Out}, nil
	case *Union:
		return &StreamUnion{Inputs: conv, Out: x.Out}, nil
	case *Sort:
		return nil, &TableError{Msg: "Sort on a non-time-attribute field is not supported."}
	case *SortLimit:
		return nil, fmt.Errorf("not supported yet: ORDER BY with LIMIT in streaming mode (Top-N)")
	case *Limit:
		if !conv[0].Mode().IsInsertOnly() {
			return nil, fmt.Errorf("not supported yet: LIMIT over an updating input in streaming mode")
		}
		return x.WithChildren(conv), nil
	case *HashJoin:
		if j, ok := streamNotIn(x, conv); ok { // stream_not_in.go
			return j, nil
		}
		if err := streamJoinKind(x.Kind, x.NullAwareAnti); err != nil {
			return nil, err
		}
		return &StreamJoin{
			Left: &Exchange{Input: conv[0], Keys: x.LeftKeys}, Right: &Exchange{Input: conv[1], Keys: x.RightKeys},
			Kind: x.Kind, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys, Extra: x.Extra, Out: x.Out,
		}, nil
	case *NestedLoopJoin:
		if j, ok := streamNotIn(x, conv); ok { // stream_not_in.go
			return j, nil
		}
		if err := streamJoinKind(x.Kind, x.NullAwareAnti); err != nil {
			return nil, err
		}
		return &StreamJoin{Left: &Exchange{Input: conv[0]}, Right: &Exchange{Input: conv[1]}, Kind: x.Kind, Extra: x.Cond, Out: x.Out}, nil
	case *OverAggregate, *Rank:
		return streamOver(n, conv) // over.go
	case *Match:
		return streamMatch(x, conv) // match.go
	case *SetOp:
		return streamSetOp(x, conv[0], conv[1]), nil // stream_setop.go
	case *Sink:
		in := conv[0]
		if err := checkSink(x.Table, in, opts.SinkMode(x.Table)); err != nil {
			return nil, err
		}
		return &StreamSink{Input: in, Table: x.Table, Overwrite: x.Overwrite}, nil
	case *GroupAggregate, *Exchange, *StreamUnion, *StreamSink, *StreamJoin, *IntervalJoin, *LookupJoin, *WindowJoin, *TemporalJoin,
		*WatermarkAssigner, *WindowTableFunction, *WindowAggregate, *WatermarkCalc, *Expand, *ChangelogNormalize:
		return n.WithChildren(conv), nil
	}
	return nil, fmt.Errorf("not supported yet: %s in streaming mode", n.Name())
}

// checkSink fails as Flink does when the sink cannot take the row kinds
// its input produces, naming the node that produces them:
//
//	Table sink 'cat.db.t' doesn't support consuming update changes which is
//	produced by node GroupAggregate(groupBy=[a], select=[a, COUNT(*) AS c])
func checkSink(t *catalog.ResolvedTable, in Node, accepts changelog.Mode) error {
	name := "sink"
	if t != nil {
		name = t.ID.Summary()
	}
	return checkConsumer("Table sink '"+name+"'", in, accepts)
}

// CheckAppendOnly fails as Flink does when a consumer that takes inserts
// only gets a plan that produces updates. consumer names it as Flink's
// error does, e.g. "Table sink '*anonymous_datastream_sink$1*'" for
// toDataStream.
func CheckAppendOnly(consumer string, plan Node) error {
	return checkConsumer(consumer, plan, changelog.InsertOnly)
}

func checkConsumer(consumer string, in Node, accepts changelog.Mode) error {
	produced := in.Mode()
	var kinds []string
	if produced&(changelog.ModeUpdateBefore|changelog.ModeUpdateAfter) != 0 && accepts&changelog.ModeUpdateAfter == 0 {
		kinds = append(kinds, "update")
	}
	if produced&changelog.ModeDelete != 0 && accepts&changelog.ModeDelete == 0 {
		kinds = append(kinds, "delete")
	}
	if len(kinds) == 0 {
		return nil
	}
	p := changeProducer(in)
	return &TableError{Msg: fmt.Sprintf("%s doesn't support consuming %s changes which is produced by node %s(%s)",
		consumer, strings.Join(kinds, " and "), p.Name(), p.Explain(false))}
}

// changeProducer returns the node Flink names when a sink cannot take the
// updates of n: the insert-only requirement passes down through the nodes
// that forward row kinds (Calc, Exchange, Union) and stops at the first
// node that produces updates itself (an aggregate, a join).
func changeProducer(n Node) Node {
	switch n.(type) {
	case *Calc, *Exchange, *StreamUnion, *Limit, *WatermarkAssigner, *WindowTableFunction:
		for _, c := range n.Children() {
			if !c.Mode().IsInsertOnly() {
				return changeProducer(c)
			}
		}
	}
	return n
}

// checkInsertOnlyInputs fails as Flink's changelog mode inference does
// when a node that takes inserts only (an interval or window join) gets
// an updating input, e.g. a debezium-json source; the requester is named
// by its planner class, as Flink's getNodeName leaves it:
//
//	StreamPhysicalWindowJoin doesn't support consuming update and delete
//	changes which is produced by node TableSourceScan(…)
//
// (Window aggregations take changelog input since Flink 1.19.)
func checkInsertOnlyInputs(n Node) error {
	switch n.(type) {
	case *IntervalJoin, *WindowJoin:
		for _, c := range n.Children() {
			if err := checkConsumer("StreamPhysical"+n.Name(), c, changelog.InsertOnly); err != nil {
				return err
			}
		}
	}
	for _, c := range n.Children() {
		if err := checkInsertOnlyInputs(c); err != nil {
			return err
		}
	}
	return nil
}

// CheckBatchSources fails as Flink's DynamicSourceUtils does when a batch
// plan scans a table whose source produces more than inserts (a changelog
// format such as debezium-json).
func CheckBatchSources(n Node) error {
	if m, ok := n.(*Match); ok {
		if err := checkBatchMatch(m); err != nil { // match.go
			return err
		}
	}
	if s, ok := n.(*TableSourceScan); ok && !s.Mode().IsInsertOnly() {
		name := "table"
		if s.Table != nil {
			name = s.Table.ID.Summary()
		}
		return &TableError{Msg: fmt.Sprintf("Querying a table in batch mode is currently only possible for INSERT-only table sources. But the source for table '%s' produces other changelog messages than just INSERT.", name)}
	}
	for _, c := range n.Children() {
		if err := CheckBatchSources(c); err != nil {
			return err
		}
	}
	return nil
}

// streamJoinKind rejects the joins the streaming runtime cannot run yet.
func streamJoinKind(k logical.JoinKind, nullAwareAnti bool) error {
	if nullAwareAnti {
		return fmt.Errorf("not supported yet: NOT IN subqueries in streaming mode")
	}
	return nil
}
