package ops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// MatchElem is one pattern variable of a Match (physical.MatchElem):
// Min..Max consecutive rows (Max -1: unbounded), Greedy loops, Cond the
// DEFINE condition over the accesses (nil: true).
type MatchElem struct {
	Var    string
	Min    int
	Max    int
	Greedy bool
	Cond   logical.Expr
}

// MatchSkip is the AFTER MATCH SKIP strategy.
type MatchSkip uint8

// The AFTER MATCH SKIP strategies.
const (
	SkipToNextRow MatchSkip = iota
	SkipPastLastRow
	SkipToFirst
	SkipToLast
)

// MatchSpec describes a Match operator.
type MatchSpec struct {
	In, Out types.Schema
	Arrow   *arrow.Schema
	// Partition are the PARTITION BY columns, Order the ORDER BY keys
	// (the first a time attribute).
	Partition []int
	Order     []logical.SortKey
	// Rowtime: rows wait for the watermark and are matched in event-time
	// order; Batch: all rows are matched at the end of the input (event
	// time order); neither: rows are matched as they arrive.
	Rowtime, Batch bool
	Elems          []MatchElem
	Accesses       []logical.MatchAccess
	Measures       []logical.Expr
	Skip           MatchSkip
	SkipVar        string
	// Within bounds a match's time span in milliseconds (0: none).
	Within int64
	Funcs  *function.Registry
	Eval   *function.EvalContext
}

// matchEvent is a row the NFA has seen: seq orders the rows of the
// operator (Flink's EventId), ts is its time in milliseconds.
type matchEvent struct {
	seq int64
	ts  int64
	row []any
}

// matchStep maps one row of a (partial) match to pattern element elem.
type matchStep struct {
	ev   *matchEvent
	elem int
}

// matchState is one computation state of Flink's NFA: the pattern
// position (element elem has taken count rows; elem == len(Elems) is the
// final state) and the rows mapped so far.
type matchState struct {
	elem, count int
	path        []matchStep
}

func (s *matchState) start() int64   { return s.path[0].ev.seq }
func (s *matchState) startTs() int64 { return s.path[0].ev.ts }

// matchPart is the NFA state of one partition: partial matches and
// completed matches waiting for earlier partial matches (Flink's
// NFAState), both ordered by their first row.
type matchPart struct {
	partials  []*matchState
	completed []*matchState
}

// Match runs MATCH_RECOGNIZE in ONE ROW PER MATCH mode as Flink's
// CepOperator with the NFA the planner's pattern compiles to: per
// partition, every row advances each partial match (taking the row into
// a variable whose DEFINE holds, or proceeding to the next variable) and
// starts a new one; a completed match is emitted once no partial match
// that started earlier is alive, and the AFTER MATCH SKIP strategy then
// discards the matches it excludes. Event-time rows wait for the
// watermark and are matched in time order; late rows are dropped.
type Match struct {
	spec    MatchSpec
	buf     rowBuffer
	parts   map[string]*matchPart
	pending [][]any // event time: rows waiting for the watermark
	order   rowOrder
	timeCol int
	seq     int64
	wm      int64
	hasWM   bool
	defUses [][]int // per element: the accesses its condition reads
	msrUses []int   // the accesses the measures read
	skipEl  int     // element of SKIP TO FIRST/LAST
}

var _ vectorized.Operator = (*Match)(nil)

// NewMatch returns a Match operator.
func NewMatch(spec MatchSpec) (*Match, error) {
	m := &Match{spec: spec, buf: rowBuffer{schema: spec.Out, out: spec.Arrow}, parts: map[string]*matchPart{},
		order: newRowOrder(spec.Order, spec.In), timeCol: spec.Order[0].Index, skipEl: -1}
	for _, e := range spec.Elems {
		m.defUses = append(m.defUses, exprRefs(e.Cond))
	}
	seen := map[int]bool{}
	for _, e := range spec.Measures {
		for _, i := range exprRefs(e) {
			if !seen[i] {
				seen[i] = true
				m.msrUses = append(m.msrUses, i)
			}
		}
	}
	if spec.Skip == SkipToFirst || spec.Skip == SkipToLast {
		for i, e := range spec.Elems {
			if e.Var == spec.SkipVar {
				m.skipEl = i
			}
		}
	}
	for _, a := range spec.Accesses {
		if a.Kind == logical.MatchAgg {
			switch a.Agg {
			case "COUNT", "SUM", "AVG", "MIN", "MAX":
			default:
				return nil, fmt.Errorf("not supported yet: aggregate function %s in MATCH_RECOGNIZE", a.Agg)
			}
		}
	}
	return m, nil
}

// exprRefs lists the column indexes e reads.
func exprRefs(e logical.Expr) []int {
	if e == nil {
		return nil
	}
	var out []int
	seen := map[int]bool{}
	logical.Walk(e, func(x logical.Expr) bool {
		if c, ok := x.(*logical.ColumnRef); ok && !seen[c.Index] {
			seen[c.Index] = true
			out = append(out, c.Index)
		}
		return true
	})
	return out
}

// Open implements vectorized.Operator.
func (m *Match) Open(context.Context) error { return nil }

// Close implements vectorized.Operator.
func (m *Match) Close() error { return nil }

// Process implements vectorized.Operator.
func (m *Match) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	rows := types.RecordRows(b.Rec, m.spec.In)
	for i := range rows {
		if b.Kind(i) != changelog.Insert {
			return fmt.Errorf("Match doesn't support consuming update and delete changes")
		}
	}
	if m.spec.Batch || m.spec.Rowtime {
		for _, r := range rows {
			if r[m.timeCol] == nil {
				continue // no event time: never matched (Flink fails on it)
			}
			if m.spec.Rowtime && m.hasWM && eventMs(r[m.timeCol]) <= m.wm {
				continue // late: dropped as Flink's CepOperator does
			}
			m.pending = append(m.pending, r)
		}
		return nil
	}
	now := time.Now().UnixMilli()
	for _, r := range rows {
		if err := m.processRow(r, now); err != nil {
			return err
		}
	}
	return m.buf.flush(ctx, out)
}

// OnMarker implements vectorized.Operator.
func (m *Match) OnMarker(ctx context.Context, mk vectorized.Marker, out vectorized.Collector) error {
	switch {
	case mk.Kind == vectorized.EndOfInput && (m.spec.Batch || m.spec.Rowtime):
		if err := m.release(false, 0); err != nil {
			return err
		}
		if err := m.buf.flush(ctx, out); err != nil {
			return err
		}
	case mk.Kind == vectorized.Watermark && m.spec.Rowtime:
		m.wm, m.hasWM = mk.Watermark, true
		if err := m.release(true, mk.Watermark); err != nil {
			return err
		}
		if err := m.buf.flush(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, mk)
}

// release matches the pending rows at or before the watermark (all of
// them at the end of the input) in event-time order, ties by the other
// ORDER BY keys and then by arrival, as Flink's CepOperator.onEventTime;
// then it advances every partition's time to the watermark.
func (m *Match) release(upTo bool, wm int64) error {
	var ready, keep [][]any
	for _, r := range m.pending {
		if upTo && eventMs(r[m.timeCol]) > wm {
			keep = append(keep, r)
			continue
		}
		ready = append(ready, r)
	}
	m.pending = keep
	slices.SortStableFunc(ready, func(a, b []any) int {
		ta, tb := eventMs(a[m.timeCol]), eventMs(b[m.timeCol])
		if ta != tb {
			if ta < tb {
				return -1
			}
			return 1
		}
		return m.order.compare(a, b)
	})
	for i := 0; i < len(ready); {
		// rows of one timestamp: advance time once, then match them
		ts := eventMs(ready[i][m.timeCol])
		j := i
		for j < len(ready) && eventMs(ready[j][m.timeCol]) == ts {
			j++
		}
		for _, r := range ready[i:j] {
			if err := m.processRow(r, ts); err != nil {
				return err
			}
		}
		i = j
	}
	if upTo {
		for _, p := range m.parts {
			if err := m.advance(p, wm); err != nil {
				return err
			}
		}
		m.dropEmpty()
	}
	return nil
}

func (m *Match) dropEmpty() {
	for k, p := range m.parts {
		if len(p.partials) == 0 && len(p.completed) == 0 {
			delete(m.parts, k)
		}
	}
}

// processRow runs one row through its partition's NFA at time ts
// (CepOperator.processEvent after advanceTime).
func (m *Match) processRow(r []any, ts int64) error {
	k := keyOf(r, m.spec.Partition)
	p := m.parts[k]
	if p == nil {
		p = &matchPart{}
		m.parts[k] = p
	}
	if err := m.advance(p, ts); err != nil {
		return err
	}
	ev := &matchEvent{seq: m.seq, ts: ts, row: r}
	m.seq++
	var next, done []*matchState
	for _, s := range append(p.partials, &matchState{}) {
		res, err := m.step(s, ev)
		if err != nil {
			return err
		}
		for _, n := range res {
			if n.elem == len(m.spec.Elems) {
				done = append(done, n)
			} else {
				next = append(next, n)
			}
		}
	}
	byStart := func(a, b *matchState) int {
		switch {
		case a.start() < b.start():
			return -1
		case a.start() > b.start():
			return 1
		}
		return 0
	}
	slices.SortStableFunc(next, byStart)
	p.partials = next
	p.completed = append(p.completed, done...)
	slices.SortStableFunc(p.completed, byStart)
	if err := m.emitReady(p, ts); err != nil {
		return err
	}
	if len(p.partials) == 0 && len(p.completed) == 0 {
		delete(m.parts, k)
	}
	return nil
}

// advance drops the partial matches WITHIN has timed out at ts and emits
// the completed matches they held back (NFA.advanceTime).
func (m *Match) advance(p *matchPart, ts int64) error {
	if m.spec.Within <= 0 {
		return nil
	}
	kept := p.partials[:0]
	changed := false
	for _, s := range p.partials {
		if ts-s.startTs() >= m.spec.Within {
			changed = true
			continue
		}
		kept = append(kept, s)
	}
	p.partials = kept
	if changed {
		return m.emitReady(p, ts)
	}
	return nil
}

// emitReady emits the completed matches no earlier partial match holds
// back, applying the skip strategy after each (Flink's
// processMatchesAccordingToSkipStrategy).
func (m *Match) emitReady(p *matchPart, ts int64) error {
	for len(p.completed) > 0 && (len(p.partials) == 0 || p.completed[0].start() <= p.partials[0].start()) {
		c := p.completed[0]
		p.completed = p.completed[1:]
		pid, strict, err := m.pruningID(c)
		if err != nil {
			return err
		}
		prune := func(ss []*matchState) []*matchState {
			out := ss[:0]
			for _, s := range ss {
				if s.start() < pid || (!strict && s.start() == pid) {
					continue
				}
				out = append(out, s)
			}
			return out
		}
		p.partials = prune(p.partials)
		p.completed = prune(p.completed)
		if err := m.emit(c, ts); err != nil {
			return err
		}
	}
	return nil
}

// pruningID returns the event id the skip strategy prunes up to: states
// that started before it (at or before it unless strict) are discarded.
func (m *Match) pruningID(c *matchState) (int64, bool, error) {
	switch m.spec.Skip {
	case SkipToNextRow:
		return c.start(), false, nil
	case SkipPastLastRow:
		return c.path[len(c.path)-1].ev.seq, false, nil
	}
	var id int64 = -1
	for _, st := range c.path {
		if st.elem != m.skipEl {
			continue
		}
		if id < 0 || m.spec.Skip == SkipToLast {
			id = st.ev.seq
		}
	}
	if id < 0 {
		return 0, false, fmt.Errorf("Could not skip to %s. No such element in the found match %s", m.spec.SkipVar, m.matchString(c))
	}
	if id == c.start() {
		return 0, false, fmt.Errorf("Could not skip to first element of a match.")
	}
	return id, true, nil
}

func (m *Match) matchString(c *matchState) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, el := range m.spec.Elems {
		var seqs []string
		for _, st := range c.path {
			if st.elem == i {
				seqs = append(seqs, fmt.Sprint(st.ev.seq))
			}
		}
		if len(seqs) == 0 {
			continue
		}
		if b.Len() > 1 {
			b.WriteString(", ")
		}
		b.WriteString(el.Var + "=[" + strings.Join(seqs, ", ") + "]")
	}
	b.WriteByte('}')
	return b.String()
}

// step computes the states that follow s when ev arrives (Flink's
// NFA.computeNextStates with strict contiguity): every element reachable
// from s's position by proceeding (past elements that have their minimum
// of rows; the element after a greedy one moves only with a row the
// greedy one's condition rejects) that takes ev gives a new state; a new
// state from which the final state is reachable by proceeding also
// completes a match. s without rows is the start state.
func (m *Match) step(s *matchState, ev *matchEvent) ([]*matchState, error) {
	n := len(m.spec.Elems)
	var out []*matchState
	i, c := s.elem, s.count
	for i < n {
		el := m.spec.Elems[i]
		if c == 0 && i > 0 && m.spec.Elems[i-1].Greedy {
			// Flink's updateWithGreedyCondition: every transition of the
			// state after a greedy loop or range also needs a row the
			// loop's condition rejects
			blocked, err := m.cond(i-1, s.path, ev)
			if err != nil {
				return nil, err
			}
			if blocked {
				break
			}
		}
		canTake := el.Max < 0 || c < el.Max
		takes := false
		if canTake {
			ok, err := m.cond(i, s.path, ev)
			if err != nil {
				return nil, err
			}
			takes = ok
		}
		if takes {
			ns := &matchState{elem: i, count: c + 1, path: append(slices.Clip(s.path), matchStep{ev: ev, elem: i})}
			m.normalize(ns)
			out = append(out, ns)
			if ns.elem < n && m.reachesFinal(ns) {
				out = append(out, &matchState{elem: n, path: ns.path})
			}
		}
		if c < el.Min {
			break
		}
		i, c = i+1, 0
	}
	return out, nil
}

// normalize moves a state whose element has taken its maximum to the
// next element.
func (m *Match) normalize(s *matchState) {
	for s.elem < len(m.spec.Elems) {
		el := m.spec.Elems[s.elem]
		if el.Max >= 0 && s.count >= el.Max {
			s.elem, s.count = s.elem+1, 0
			continue
		}
		return
	}
}

// reachesFinal reports whether the final state follows s by proceeding
// only (Flink's findFinalStateAfterProceed, which does not look through
// greedy states).
func (m *Match) reachesFinal(s *matchState) bool {
	i, c := s.elem, s.count
	for i < len(m.spec.Elems) {
		el := m.spec.Elems[i]
		if c < el.Min || el.Greedy {
			return false
		}
		i, c = i+1, 0
	}
	return true
}

// cond evaluates the DEFINE condition of element i for ev after path.
func (m *Match) cond(i int, path []matchStep, ev *matchEvent) (bool, error) {
	el := m.spec.Elems[i]
	if el.Cond == nil {
		return true, nil
	}
	vals := make([]any, len(m.spec.Accesses))
	for _, a := range m.defUses[i] {
		v, err := m.access(a, path, i, ev, 0)
		if err != nil {
			return false, err
		}
		vals[a] = v
	}
	v, err := logical.Eval(m.spec.Eval, m.spec.Funcs, el.Cond, vals)
	if err != nil {
		return false, err
	}
	b, _ := v.(bool)
	return b, nil
}

// rowsOf returns the rows of variable v ("" for all) in path, with cur
// added when it is being mapped to element curEl and v is its variable
// or the default one.
func (m *Match) rowsOf(v string, path []matchStep, curEl int, cur *matchEvent) [][]any {
	var rows [][]any
	for _, st := range path {
		if v == "" || m.spec.Elems[st.elem].Var == v {
			rows = append(rows, st.ev.row)
		}
	}
	if cur != nil && (v == "" || m.spec.Elems[curEl].Var == v) {
		rows = append(rows, cur.row)
	}
	return rows
}

// access computes access a over the rows of a (partial) match.
func (m *Match) access(ai int, path []matchStep, curEl int, cur *matchEvent, ts int64) (any, error) {
	a := m.spec.Accesses[ai]
	switch a.Kind {
	case logical.MatchRowtime:
		if a.T.Kind == types.TimestampLTZ || a.T.Kind == types.Timestamp {
			return ts * 1000, nil
		}
		return ts, nil
	case logical.MatchProctime:
		return time.Now().UnixMilli() * 1000, nil
	}
	rows := m.rowsOf(a.Var, path, curEl, cur)
	eval := func(r []any) (any, error) {
		if a.Arg == nil {
			return true, nil
		}
		return logical.Eval(m.spec.Eval, m.spec.Funcs, a.Arg, r)
	}
	switch a.Kind {
	case logical.MatchLast, logical.MatchFirst:
		i := a.Offset
		if a.Kind == logical.MatchLast {
			i = len(rows) - 1 - a.Offset
		}
		if i < 0 || i >= len(rows) {
			return nil, nil
		}
		return eval(rows[i])
	case logical.MatchAgg:
		vals := make([]any, 0, len(rows))
		for _, r := range rows {
			v, err := eval(r)
			if err != nil {
				return nil, err
			}
			if v != nil {
				vals = append(vals, v)
			}
		}
		return matchAggregate(a, vals)
	}
	return nil, fmt.Errorf("internal: MATCH_RECOGNIZE access kind %d", a.Kind)
}

// emit adds the output row of completed match c: the partition columns,
// then the measures.
func (m *Match) emit(c *matchState, ts int64) error {
	vals := make([]any, len(m.spec.Accesses))
	for _, a := range m.msrUses {
		v, err := m.access(a, c.path, -1, nil, ts)
		if err != nil {
			return err
		}
		vals[a] = v
	}
	first := c.path[0].ev.row
	row := make([]any, 0, len(m.spec.Out))
	for _, k := range m.spec.Partition {
		row = append(row, first[k])
	}
	for _, e := range m.spec.Measures {
		v, err := logical.Eval(m.spec.Eval, m.spec.Funcs, e, vals)
		if err != nil {
			return err
		}
		row = append(row, v)
	}
	m.buf.add(changelog.Insert, row)
	return nil
}
