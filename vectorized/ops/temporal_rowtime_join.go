package ops

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// TemporalJoinSpec describes an event-time temporal table join.
type TemporalJoinSpec struct {
	// Kind is InnerJoin or LeftJoin.
	Kind logical.JoinKind
	// LeftKeys and RightKeys are the equality keys (the right ones hold
	// the versioned table's primary key).
	LeftKeys, RightKeys []int
	// Left, Right and Out (Left ++ Right) are the schemas.
	Left, Right, Out types.Schema
	// Cond is the rest of the condition over Left ++ Right; nil is TRUE.
	Cond Selector
	// LeftTime and RightTime are the rowtime columns.
	LeftTime, RightTime int
}

// TemporalJoin is Flink's event-time temporal table join
// (TemporalRowTimeJoinOperator). Right rows are versions of the rows of
// their key, valid from their rowtime on; a -U or -D version ends the
// row. Left rows wait until the watermark (the minimum of both inputs')
// reaches their time; then, in the order of their times, each is joined
// with the version of its key valid at its time (the latest at or before
// it; among versions of the same time the last to arrive) when Cond holds
// for the pair; a LEFT join emits a left row without one padded with
// NULLs. Afterwards only the latest version at or before the watermark
// and the later ones are kept. The output is insert-only. At the end of
// the inputs the waiting left rows are joined with the latest versions.
type TemporalJoin struct {
	spec    TemporalJoinSpec
	table   agg.GroupTable
	markers *inputMarkers
	out     *arrow.Schema
	cond    *arrow.Schema
	ltypes  []arrow.DataType
	rtypes  []arrow.DataType
	wm      int64
	seq     int64

	lbatches []arrow.RecordBatch
	llive    []int32
	waiting  []tjLeft

	rbatches []arrow.RecordBatch
	rlive    []int32
	versions [][]tjVersion // by key id, ordered by (t, seq)
}

type tjLeft struct {
	ref    rowRef
	t      int64
	key    uint32
	hasKey bool
	seq    int64
}

type tjVersion struct {
	ref  rowRef
	t    int64
	seq  int64
	gone bool // a -U or -D version
}

// NewTemporalJoin returns an event-time temporal join.
func NewTemporalJoin(spec TemporalJoinSpec) *TemporalJoin {
	return &TemporalJoin{spec: spec, markers: newInputMarkers(2), wm: math.MinInt64}
}

// Open implements the multi-input operator protocol.
func (j *TemporalJoin) Open(context.Context) error {
	s := j.spec
	if s.Kind != logical.InnerJoin && s.Kind != logical.LeftJoin {
		return fmt.Errorf("not supported yet: %s temporal table joins", s.Kind)
	}
	if len(s.LeftKeys) == 0 || len(s.LeftKeys) != len(s.RightKeys) {
		return fmt.Errorf("internal: temporal join with %d left keys and %d right keys", len(s.LeftKeys), len(s.RightKeys))
	}
	if len(s.Out) != len(s.Left)+len(s.Right) {
		return fmt.Errorf("internal: join output of %d columns for inputs of %d and %d", len(s.Out), len(s.Left), len(s.Right))
	}
	if s.LeftTime < 0 || s.LeftTime >= len(s.Left) || s.RightTime < 0 || s.RightTime >= len(s.Right) {
		return fmt.Errorf("internal: temporal join time column out of range")
	}
	var err error
	if j.out, err = types.ArrowSchema(s.Out); err != nil {
		return err
	}
	if j.cond, err = types.ArrowSchema(append(append(types.Schema{}, s.Left...), s.Right...)); err != nil {
		return err
	}
	for _, side := range []struct {
		in  types.Schema
		dst *[]arrow.DataType
	}{{s.Left, &j.ltypes}, {s.Right, &j.rtypes}} {
		for _, f := range side.in {
			t, err := types.ArrowType(f.Type)
			if err != nil {
				return err
			}
			*side.dst = append(*side.dst, t)
		}
	}
	for i, k := range s.LeftKeys {
		if rk := s.RightKeys[i]; k < 0 || k >= len(s.Left) || rk < 0 || rk >= len(s.Right) {
			return fmt.Errorf("internal: temporal join key %d out of range", i)
		}
	}
	j.table, err = joinKeyTable(j.ltypes, j.rtypes, s.LeftKeys, s.RightKeys) // stream_join.go
	return err
}

// keyIDs maps the keys of rec to ids; null[i] marks a NULL key.
func (j *TemporalJoin) keyIDs(rec arrow.RecordBatch, keys []int) ([]uint32, []bool, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(keys))
	for i, k := range keys {
		cols[i] = rec.Column(k)
	}
	ids := make([]uint32, n)
	if err := j.table.Insert(cols, n, ids); err != nil {
		return nil, nil, err
	}
	if g := j.table.Len(); g > len(j.versions) {
		j.versions = append(j.versions, make([][]tjVersion, g-len(j.versions))...)
	}
	null := make([]bool, n)
	for i := range n {
		null[i] = nullAt(cols, i)
	}
	return ids, null, nil
}

// Process feeds a batch of the left (0) or the right (1) input.
func (j *TemporalJoin) Process(ctx context.Context, side int, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	if side == 0 {
		return j.addLeft(b)
	}
	return j.addRight(b)
}

func (j *TemporalJoin) addLeft(b vectorized.Batch) error {
	rec := b.Rec
	for i := range b.NumRows() {
		if b.Kind(i).IsRetraction() {
			return fmt.Errorf("internal: the left input of a temporal join must be insert-only, got %s", b.Kind(i))
		}
	}
	ids, null, err := j.keyIDs(rec, j.spec.LeftKeys)
	if err != nil {
		return err
	}
	batchNo := int32(len(j.lbatches))
	j.lbatches = append(j.lbatches, rec)
	j.llive = append(j.llive, int32(len(ids)))
	tc := rec.Column(j.spec.LeftTime)
	for i, g := range ids {
		t, ok, err := eventMillis(tc, i)
		if err != nil {
			return err
		}
		if !ok {
			t = math.MinInt64 // joins nothing, as soon as possible
		}
		j.seq++
		j.waiting = append(j.waiting, tjLeft{ref: rowRef{batch: batchNo, row: int32(i)}, t: t, key: g, hasKey: ok && !null[i], seq: j.seq})
	}
	return nil
}

func (j *TemporalJoin) addRight(b vectorized.Batch) error {
	rec := b.Rec
	ids, null, err := j.keyIDs(rec, j.spec.RightKeys)
	if err != nil {
		return err
	}
	batchNo := int32(len(j.rbatches))
	j.rbatches = append(j.rbatches, rec)
	j.rlive = append(j.rlive, 0)
	tc := rec.Column(j.spec.RightTime)
	for i, g := range ids {
		t, ok, err := eventMillis(tc, i)
		if err != nil {
			return err
		}
		if !ok || null[i] {
			continue
		}
		j.seq++
		k := b.Kind(i)
		v := tjVersion{ref: rowRef{batch: batchNo, row: int32(i)}, t: t, seq: j.seq,
			gone: k == changelog.UpdateBefore || k == changelog.Delete}
		vs := append(j.versions[g], v)
		for p := len(vs) - 1; p > 0 && vs[p-1].t > vs[p].t; p-- { // keep (t, seq) order
			vs[p-1], vs[p] = vs[p], vs[p-1]
		}
		j.versions[g] = vs
		j.rlive[batchNo]++
	}
	if j.rlive[batchNo] == 0 {
		j.rbatches[batchNo] = nil
	}
	return nil
}

// versionAt returns the version of key g valid at time t.
func (j *TemporalJoin) versionAt(g uint32, t int64) (rowRef, bool) {
	vs := j.versions[g]
	p := sort.Search(len(vs), func(i int) bool { return vs[i].t > t }) - 1
	if p < 0 || vs[p].gone {
		return noRef, false
	}
	return vs[p].ref, true
}

// advance joins the left rows at or before wm and drops the versions no
// later left row can see.
func (j *TemporalJoin) advance(ctx context.Context, wm int64, out vectorized.Collector) error {
	var due, keep []tjLeft
	for _, l := range j.waiting {
		if l.t <= wm {
			due = append(due, l)
		} else {
			keep = append(keep, l)
		}
	}
	j.waiting = keep
	if len(due) > 0 {
		sort.Slice(due, func(a, b int) bool {
			if due[a].t != due[b].t {
				return due[a].t < due[b].t
			}
			return due[a].seq < due[b].seq
		})
		if err := j.emit(ctx, due, out); err != nil {
			return err
		}
	}
	if wm == math.MaxInt64 {
		return nil
	}
	for g, vs := range j.versions {
		p := sort.Search(len(vs), func(i int) bool { return vs[i].t > wm }) - 1
		if p <= 0 {
			continue
		}
		for _, v := range vs[:p] {
			if j.rlive[v.ref.batch]--; j.rlive[v.ref.batch] == 0 {
				j.rbatches[v.ref.batch] = nil
			}
		}
		j.versions[g] = append(vs[:0:0], vs[p:]...)
	}
	return nil
}

// emit joins due left rows (in order) and emits the result.
func (j *TemporalJoin) emit(ctx context.Context, due []tjLeft, out vectorized.Collector) error {
	lrefs := make([]rowRef, len(due))
	rrefs := make([]rowRef, len(due))
	for i, l := range due {
		lrefs[i] = l.ref
		rrefs[i] = noRef
		if l.hasKey {
			rrefs[i], _ = j.versionAt(l.key, l.t)
		}
	}
	cols, err := j.columns(lrefs, rrefs)
	if err != nil {
		return err
	}
	n := len(due)
	pairs, err := NewRecord(j.cond, cols, int64(n))
	if err != nil {
		return err
	}
	ok := make([]bool, n)
	for i := range ok {
		ok[i] = rrefs[i] != noRef
	}
	if j.spec.Cond != nil {
		sel, err := j.spec.Cond.Select(pairs)
		if err != nil {
			return err
		}
		pass := make([]bool, n)
		for _, s := range sel {
			pass[s] = true
		}
		for i := range ok {
			ok[i] = ok[i] && pass[i]
		}
	}
	var keepL, keepR []rowRef
	same := true // the output rows are the pairs gathered above
	for i := range due {
		switch {
		case ok[i]:
			keepL, keepR = append(keepL, lrefs[i]), append(keepR, rrefs[i])
		case j.spec.Kind == logical.LeftJoin:
			keepL, keepR = append(keepL, lrefs[i]), append(keepR, noRef)
			same = same && rrefs[i] == noRef
		default:
			same = false
		}
		if j.llive[due[i].ref.batch]--; j.llive[due[i].ref.batch] == 0 {
			defer func(b int32) { j.lbatches[b] = nil }(due[i].ref.batch)
		}
	}
	if len(keepL) == 0 {
		return nil
	}
	if !same {
		if cols, err = j.columns(keepL, keepR); err != nil {
			return err
		}
	}
	rec, err := NewRecord(j.out, cols, int64(len(keepL)))
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec})
}

// columns gathers Left ++ Right columns of row pairs (noRef: NULLs).
func (j *TemporalJoin) columns(l, r []rowRef) ([]arrow.Array, error) {
	var cols []arrow.Array
	for c, f := range j.spec.Left {
		a, err := gatherRefs(j.lbatches, c, f.Type, j.ltypes[c], l)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	for c, f := range j.spec.Right {
		a, err := gatherRefs(j.rbatches, c, f.Type, j.rtypes[c], r)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return cols, nil
}

// OnMarker handles a marker of one input: the minimum watermark of both
// joins the left rows it passed before it is forwarded; the end of both
// inputs joins the rest.
func (j *TemporalJoin) OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error {
	return j.markers.onMarker(ctx, side, m, &tjMarkers{j: j, out: out})
}

type tjMarkers struct {
	j   *TemporalJoin
	out vectorized.Collector
}

// Emit implements vectorized.Collector.
func (c *tjMarkers) Emit(ctx context.Context, b vectorized.Batch) error { return c.out.Emit(ctx, b) }

// EmitMarker implements vectorized.Collector.
func (c *tjMarkers) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	switch m.Kind {
	case vectorized.Watermark:
		c.j.wm = max(c.j.wm, m.Watermark)
		if err := c.j.advance(ctx, c.j.wm, c.out); err != nil {
			return err
		}
	case vectorized.EndOfInput:
		if err := c.j.advance(ctx, math.MaxInt64, c.out); err != nil {
			return err
		}
	}
	return c.out.EmitMarker(ctx, m)
}

// Close releases the state.
func (j *TemporalJoin) Close() error {
	j.lbatches, j.rbatches, j.waiting, j.versions, j.table = nil, nil, nil, nil, nil
	return nil
}
