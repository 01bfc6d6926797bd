package ops

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// LookupJoinSpec describes a processing-time temporal table join.
type LookupJoinSpec struct {
	// Kind is InnerJoin or LeftJoin.
	Kind logical.JoinKind
	// InputKeys and TemporalKeys are the equality keys (at least one).
	InputKeys, TemporalKeys []int
	// Input, Temporal and Out (Input ++ Temporal) are the schemas.
	Input, Temporal, Out types.Schema
	// Cond is the rest of the condition over a record of Input ++
	// Temporal; nil is TRUE.
	Cond Selector
}

// LookupJoin joins a stream with a bounded temporal table as of
// processing time, as Flink's lookup join over a fully cached lookup
// source: input 1 (the temporal table) is read to its end first, while
// the batches and markers of input 0 wait; then every row of input 0 is
// joined with the temporal rows of its key (a NULL key matches nothing)
// for which Cond holds, and keeps its row kind. A LEFT join emits a row
// without a match padded with NULLs. Watermarks and the end of input 0
// pass through; input 1's markers are consumed.
type LookupJoin struct {
	spec    LookupJoinSpec
	table   agg.GroupTable
	kts     []arrow.DataType
	out     *arrow.Schema
	cond    *arrow.Schema
	dim     []arrow.RecordBatch
	dimKeys []arrow.Array
	lists   [][]rowRef // by key id
	groups  int        // key ids of the temporal table: 0..groups-1
	dtypes  []arrow.DataType
	loaded  bool
	pending []pendingItem
	ids     []uint32
}

type pendingItem struct {
	batch  vectorized.Batch
	marker *vectorized.Marker
}

// maxProbeKeys bounds the probe keys the key table keeps besides the
// temporal table's: past it the table is rebuilt.
const maxProbeKeys = 1 << 20

// layout checks the spec and returns the Arrow schemas of the output and
// of the condition's input (input ++ temporal columns), the temporal
// table's column types and the key types (the same on both sides). Both
// lookup joins (LookupJoin, LookupFunctionJoin) open with it.
func (s LookupJoinSpec) layout() (out, cond *arrow.Schema, dtypes, kts []arrow.DataType, err error) {
	if s.Kind != logical.InnerJoin && s.Kind != logical.LeftJoin {
		return nil, nil, nil, nil, fmt.Errorf("not supported yet: %s temporal table joins", s.Kind)
	}
	if len(s.InputKeys) == 0 || len(s.InputKeys) != len(s.TemporalKeys) {
		return nil, nil, nil, nil, fmt.Errorf("internal: lookup join with %d input keys and %d temporal keys", len(s.InputKeys), len(s.TemporalKeys))
	}
	if len(s.Out) != len(s.Input)+len(s.Temporal) {
		return nil, nil, nil, nil, fmt.Errorf("internal: join output of %d columns for inputs of %d and %d", len(s.Out), len(s.Input), len(s.Temporal))
	}
	if out, err = types.ArrowSchema(s.Out); err != nil {
		return nil, nil, nil, nil, err
	}
	if cond, err = types.ArrowSchema(append(append(types.Schema{}, s.Input...), s.Temporal...)); err != nil {
		return nil, nil, nil, nil, err
	}
	for _, f := range s.Temporal {
		t, err := types.ArrowType(f.Type)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		dtypes = append(dtypes, t)
	}
	for i, k := range s.InputKeys {
		tk := s.TemporalKeys[i]
		if k < 0 || k >= len(s.Input) || tk < 0 || tk >= len(s.Temporal) {
			return nil, nil, nil, nil, fmt.Errorf("internal: lookup key %d out of range", i)
		}
		it, err := types.ArrowType(s.Input[k].Type)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if !arrow.TypeEqual(it, dtypes[tk]) {
			return nil, nil, nil, nil, fmt.Errorf("internal: lookup key %d is %s on the input and %s on the temporal table", i, it, dtypes[tk])
		}
		kts = append(kts, it)
	}
	return out, cond, dtypes, kts, nil
}

// NewLookupJoin returns a lookup join.
func NewLookupJoin(spec LookupJoinSpec) *LookupJoin { return &LookupJoin{spec: spec} }

// Open implements the multi-input operator protocol.
func (j *LookupJoin) Open(context.Context) error {
	var err error
	if j.out, j.cond, j.dtypes, j.kts, err = j.spec.layout(); err != nil {
		return err
	}
	j.table, err = agg.NewGroupTable(j.kts)
	return err
}

// Process feeds a batch of the stream (side 0) or of the temporal table
// (side 1).
func (j *LookupJoin) Process(ctx context.Context, side int, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	if side == 1 {
		return j.load(b)
	}
	if !j.loaded {
		j.pending = append(j.pending, pendingItem{batch: b})
		return nil
	}
	return j.probe(ctx, b, out)
}

// load keeps a batch of the temporal table.
func (j *LookupJoin) load(b vectorized.Batch) error {
	if j.loaded {
		return fmt.Errorf("internal: temporal table rows after its end")
	}
	for i := range b.NumRows() {
		if b.Kind(i).IsRetraction() {
			return fmt.Errorf("not supported yet: processing-time temporal joins against a table with updates")
		}
	}
	rec := b.Rec
	if int(rec.NumCols()) != len(j.spec.Temporal) {
		return fmt.Errorf("internal: temporal table of %d columns, want %d", rec.NumCols(), len(j.spec.Temporal))
	}
	n := b.NumRows()
	ids := resize(j.ids, n)
	j.ids = ids
	keys := make([]arrow.Array, len(j.spec.TemporalKeys))
	for i, k := range j.spec.TemporalKeys {
		keys[i] = rec.Column(k)
	}
	if err := j.table.Insert(keys, n, ids); err != nil {
		return err
	}
	if g := j.table.Len(); g > len(j.lists) {
		j.lists = append(j.lists, make([][]rowRef, g-len(j.lists))...)
	}
	batchNo := int32(len(j.dim))
	j.dim = append(j.dim, rec)
	for i, g := range ids {
		if nullAt(keys, i) {
			continue
		}
		j.lists[g] = append(j.lists[g], rowRef{batch: batchNo, row: int32(i)})
	}
	return nil
}

func nullAt(cols []arrow.Array, i int) bool {
	for _, c := range cols {
		if c.IsNull(i) {
			return true
		}
	}
	return false
}

// rebuild drops the probe keys from the key table: the temporal table's
// keys are inserted again in the same order, so their ids stay.
func (j *LookupJoin) rebuild() error {
	t, err := agg.NewGroupTable(j.kts)
	if err != nil {
		return err
	}
	for _, rec := range j.dim {
		keys := make([]arrow.Array, len(j.spec.TemporalKeys))
		for i, k := range j.spec.TemporalKeys {
			keys[i] = rec.Column(k)
		}
		n := int(rec.NumRows())
		j.ids = resize(j.ids, n)
		if err := t.Insert(keys, n, j.ids); err != nil {
			return err
		}
	}
	j.table = t
	return nil
}

// probe joins a batch of the stream.
func (j *LookupJoin) probe(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	rec := b.Rec
	n := b.NumRows()
	if int(rec.NumCols()) != len(j.spec.Input) {
		return fmt.Errorf("internal: join input of %d columns, want %d", rec.NumCols(), len(j.spec.Input))
	}
	if j.table.Len() > j.groups+maxProbeKeys {
		if err := j.rebuild(); err != nil {
			return err
		}
	}
	ids := resize(j.ids, n)
	j.ids = ids
	keys := make([]arrow.Array, len(j.spec.InputKeys))
	for i, k := range j.spec.InputKeys {
		keys[i] = rec.Column(k)
	}
	if err := j.table.Insert(keys, n, ids); err != nil {
		return err
	}
	var rows []int32
	var refs []rowRef
	start := make([]int32, n+1)
	for i, g := range ids {
		start[i] = int32(len(rows))
		if int(g) >= j.groups || nullAt(keys, i) {
			continue
		}
		for _, r := range j.lists[g] {
			rows = append(rows, int32(i))
			refs = append(refs, r)
		}
	}
	start[n] = int32(len(rows))
	var ok []bool
	if j.spec.Cond != nil && len(rows) > 0 {
		cols, err := j.columns(rec, rows, refs)
		if err != nil {
			return err
		}
		pairs, err := NewRecord(j.cond, cols, int64(len(rows)))
		if err != nil {
			return err
		}
		sel, err := j.spec.Cond.Select(pairs)
		if err != nil {
			return err
		}
		ok = make([]bool, len(rows))
		for _, s := range sel {
			ok[s] = true
		}
	}
	left := j.spec.Kind == logical.LeftJoin
	var mine []int32
	var theirs []rowRef
	for i := range n {
		matched := false
		for p := start[i]; p < start[i+1]; p++ {
			if ok != nil && !ok[p] {
				continue
			}
			matched = true
			mine = append(mine, int32(i))
			theirs = append(theirs, refs[p])
		}
		if left && !matched {
			mine = append(mine, int32(i))
			theirs = append(theirs, noRef)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	cols, err := j.columns(rec, mine, theirs)
	if err != nil {
		return err
	}
	outRec, err := NewRecord(j.out, cols, int64(len(mine)))
	if err != nil {
		return err
	}
	res := vectorized.Batch{Rec: outRec}
	if b.Kinds != nil {
		res.Kinds = make([]changelog.RowKind, len(mine))
		for k, i := range mine {
			res.Kinds[k] = b.Kinds[i]
		}
	}
	return out.Emit(ctx, res)
}

// columns gathers Input ++ Temporal columns of (input row, temporal row)
// pairs.
func (j *LookupJoin) columns(rec arrow.RecordBatch, rows []int32, refs []rowRef) ([]arrow.Array, error) {
	var cols []arrow.Array
	for c := range j.spec.Input {
		a, err := GatherArray(rec.Column(c), rows)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	for c, f := range j.spec.Temporal {
		a, err := gatherRefs(j.dim, c, f.Type, j.dtypes[c], refs)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return cols, nil
}

// OnMarker handles a marker: the end of the temporal table releases the
// waiting stream; the stream's markers pass through in order.
func (j *LookupJoin) OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error {
	if side == 1 {
		if m.Kind != vectorized.EndOfInput || j.loaded {
			return nil
		}
		j.loaded = true
		j.groups = j.table.Len()
		pending := j.pending
		j.pending = nil
		for _, it := range pending {
			var err error
			if it.marker != nil {
				err = out.EmitMarker(ctx, *it.marker)
			} else {
				err = j.probe(ctx, it.batch, out)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	if !j.loaded {
		j.pending = append(j.pending, pendingItem{marker: &m})
		return nil
	}
	return out.EmitMarker(ctx, m)
}

// Close releases the state.
func (j *LookupJoin) Close() error {
	j.dim, j.lists, j.pending, j.table = nil, nil, nil, nil
	return nil
}
