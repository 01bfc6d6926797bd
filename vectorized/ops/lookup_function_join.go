package ops

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// LookupStats count what a LookupFunctionJoin did: Hits are input rows
// whose key was answered by the cache (or by an earlier row of the same
// batch), Misses the distinct keys it asked the function for, Loads the
// function calls, Evictions the keys dropped for 'max-rows'.
type LookupStats struct {
	Hits, Misses, Loads, Evictions int64
}

// LookupFunctionJoin is a processing-time temporal join over a
// vectorized.LookupFunction (Flink's LookupJoinRunner over a connector's
// LookupFunction, with the partial cache of
// CachingLookupFunction in front): for each input batch it finds the
// distinct non-NULL keys, answers those the cache holds, asks the
// function for the others in one call, and joins every row with the rows
// of its key for which Cond holds, keeping the row's kind (a LEFT join
// pads a row without match with NULLs). Markers pass through. The cache
// is no checkpointed state: a restarted job looks keys up again.
//
// The key table doubles as the cache's index: a key's id is its entry.
// Without a cache the table is made anew for every batch.
type LookupFunctionJoin struct {
	spec    LookupJoinSpec
	fn      vectorized.LookupFunction
	cache   *vectorized.LookupCache
	now     func() time.Time
	kts     []arrow.DataType
	dtypes  []arrow.DataType
	out     *arrow.Schema
	cond    *arrow.Schema
	table   agg.GroupTable
	entries []lookupEntry
	recs    []arrow.RecordBatch
	recRows int64 // rows in recs
	live    int   // valid entries
	liveRow int64 // rows the valid entries reference
	ids     []uint32
	pending []bool
	stats   LookupStats
}

type lookupEntry struct {
	refs             []rowRef
	loaded, accessed int64 // unix nanoseconds
	valid            bool
}

// NewLookupFunctionJoin returns a lookup join over fn; cache nil means
// none ('lookup.cache' = 'NONE'). spec.Temporal is fn's schema.
func NewLookupFunctionJoin(spec LookupJoinSpec, fn vectorized.LookupFunction, cache *vectorized.LookupCache) *LookupFunctionJoin {
	return &LookupFunctionJoin{spec: spec, fn: fn, cache: cache, now: time.Now}
}

// SetClock replaces time.Now for the cache's expiry (tests).
func (j *LookupFunctionJoin) SetClock(now func() time.Time) { j.now = now }

// Stats returns the counts so far.
func (j *LookupFunctionJoin) Stats() LookupStats { return j.stats }

// Open implements vectorized.Operator.
func (j *LookupFunctionJoin) Open(ctx context.Context) error {
	var err error
	if j.out, j.cond, j.dtypes, j.kts, err = j.spec.layout(); err != nil {
		return err
	}
	if j.table, err = agg.NewGroupTable(j.kts); err != nil {
		return err
	}
	return j.fn.Open(ctx)
}

// expired reports an entry past expire-after-write or -access.
func (j *LookupFunctionJoin) expired(e *lookupEntry, now int64) bool {
	c := j.cache
	return c.ExpireAfterWrite > 0 && now-e.loaded > int64(c.ExpireAfterWrite) ||
		c.ExpireAfterAccess > 0 && now-e.accessed > int64(c.ExpireAfterAccess)
}

func (j *LookupFunctionJoin) invalidate(e *lookupEntry) {
	if e.valid {
		e.valid = false
		j.live--
		j.liveRow -= int64(len(e.refs))
	}
	e.refs = nil
}

// Process implements vectorized.Operator.
func (j *LookupFunctionJoin) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	rec := b.Rec
	if int(rec.NumCols()) != len(j.spec.Input) {
		return fmt.Errorf("internal: join input of %d columns, want %d", rec.NumCols(), len(j.spec.Input))
	}
	if j.cache == nil {
		t, err := agg.NewGroupTable(j.kts)
		if err != nil {
			return err
		}
		j.table, j.entries, j.recs, j.live, j.liveRow, j.recRows = t, j.entries[:0], nil, 0, 0, 0
	}
	keys := make([]arrow.Array, len(j.spec.InputKeys))
	for i, k := range j.spec.InputKeys {
		keys[i] = rec.Column(k)
	}
	ids := resize(j.ids, n)
	j.ids = ids
	if err := j.table.Insert(keys, n, ids); err != nil {
		return err
	}
	if g := j.table.Len(); g > len(j.entries) {
		j.entries = append(j.entries, make([]lookupEntry, g-len(j.entries))...)
	}
	if g := j.table.Len(); g > len(j.pending) {
		j.pending = append(j.pending, make([]bool, g-len(j.pending))...)
	}
	now := j.now().UnixNano()
	var missRows []int32
	var missIDs []uint32
	for i, g := range ids {
		if nullAt(keys, i) {
			continue
		}
		e := &j.entries[g]
		if e.valid && j.cache != nil && j.expired(e, now) {
			j.invalidate(e)
		}
		if e.valid || j.pending[g] {
			j.stats.Hits++
			e.accessed = now
			continue
		}
		j.pending[g] = true
		missRows = append(missRows, int32(i))
		missIDs = append(missIDs, g)
	}
	if len(missRows) > 0 {
		if err := j.load(ctx, keys, missRows, missIDs, now); err != nil {
			return err
		}
	}
	err := j.join(ctx, b, ids, keys, out)
	if j.cache != nil {
		for _, g := range missIDs {
			e := &j.entries[g]
			if e.valid && len(e.refs) == 0 && !j.cache.CacheMissingKey {
				j.invalidate(e)
			}
		}
		if err == nil {
			err = j.evict()
		}
	}
	return err
}

// load asks the function for the keys of rows missRows (ids missIDs).
func (j *LookupFunctionJoin) load(ctx context.Context, keys []arrow.Array, missRows []int32, missIDs []uint32, now int64) error {
	ks := make([]arrow.Array, len(keys))
	for i, k := range keys {
		a, err := GatherArray(k, missRows)
		if err != nil {
			return err
		}
		ks[i] = a
	}
	rows, of, err := j.fn.Lookup(ctx, ks)
	for _, a := range ks {
		a.Release()
	}
	for _, g := range missIDs {
		j.pending[g] = false
	}
	if err != nil {
		return err
	}
	j.stats.Loads++
	j.stats.Misses += int64(len(missIDs))
	if int(rows.NumCols()) != len(j.spec.Temporal) || len(of) != int(rows.NumRows()) {
		return fmt.Errorf("internal: lookup returned %d columns and %d key indexes for %d rows", rows.NumCols(), len(of), rows.NumRows())
	}
	recNo := int32(len(j.recs))
	j.recs = append(j.recs, rows)
	j.recRows += rows.NumRows()
	for _, g := range missIDs {
		e := &j.entries[g]
		e.refs, e.valid, e.loaded, e.accessed = e.refs[:0], true, now, now
		j.live++
	}
	for r, k := range of {
		if k < 0 || int(k) >= len(missIDs) {
			return fmt.Errorf("internal: lookup row of key %d of %d", k, len(missIDs))
		}
		e := &j.entries[missIDs[k]]
		e.refs = append(e.refs, rowRef{batch: recNo, row: int32(r)})
	}
	j.liveRow += int64(len(of))
	return nil
}

// join emits the joined rows of a batch.
func (j *LookupFunctionJoin) join(ctx context.Context, b vectorized.Batch, ids []uint32, keys []arrow.Array, out vectorized.Collector) error {
	n := b.NumRows()
	var rows []int32
	var refs []rowRef
	start := make([]int32, n+1)
	for i, g := range ids {
		start[i] = int32(len(rows))
		if nullAt(keys, i) {
			continue
		}
		for _, r := range j.entries[g].refs {
			rows = append(rows, int32(i))
			refs = append(refs, r)
		}
	}
	start[n] = int32(len(rows))
	var ok []bool
	if j.spec.Cond != nil && len(rows) > 0 {
		cols, err := j.columns(b.Rec, rows, refs)
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
	mine := make([]int32, 0, n)
	theirs := make([]rowRef, 0, n)
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
	cols, err := j.columns(b.Rec, mine, theirs)
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

func (j *LookupFunctionJoin) columns(rec arrow.RecordBatch, rows []int32, refs []rowRef) ([]arrow.Array, error) {
	var cols []arrow.Array
	for c := range j.spec.Input {
		a, err := GatherArray(rec.Column(c), rows)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	for c, f := range j.spec.Temporal {
		a, err := gatherRefs(j.recs, c, f.Type, j.dtypes[c], refs)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return cols, nil
}

// evict keeps at most max-rows keys (dropping the least recently read
// down to 90 % of it, so that the sort runs once per tenth of the cache)
// and compacts the key table and the kept rows when dropped ones
// dominate.
func (j *LookupFunctionJoin) evict() error {
	if max := j.cache.MaxRows; max > 0 && int64(j.live) > max {
		keep := max - max/10
		var order []uint32
		for g := range j.entries {
			if j.entries[g].valid {
				order = append(order, uint32(g))
			}
		}
		sort.Slice(order, func(a, b int) bool { return j.entries[order[a]].accessed < j.entries[order[b]].accessed })
		for _, g := range order[:int64(len(order))-keep] {
			j.invalidate(&j.entries[g])
			j.stats.Evictions++
		}
	}
	if j.table.Len() > 2*j.live+4096 || j.recRows > 2*j.liveRow+4096 {
		return j.compact()
	}
	return nil
}

// compact rebuilds the key table with the valid entries only and gathers
// their rows into one record.
func (j *LookupFunctionJoin) compact() error {
	all := j.table.Keys(vectorized.Mem)
	defer func() {
		for _, a := range all {
			a.Release()
		}
	}()
	var keep []int32
	var refs []rowRef
	for g := range j.entries {
		if e := &j.entries[g]; e.valid {
			keep = append(keep, int32(g))
			refs = append(refs, e.refs...)
		}
	}
	t, err := agg.NewGroupTable(j.kts)
	if err != nil {
		return err
	}
	entries := make([]lookupEntry, len(keep))
	if len(keep) > 0 {
		ks := make([]arrow.Array, len(all))
		for i, a := range all {
			if ks[i], err = GatherArray(a, keep); err != nil {
				return err
			}
		}
		ids := make([]uint32, len(keep))
		err = t.Insert(ks, len(keep), ids)
		for _, a := range ks {
			a.Release()
		}
		if err != nil {
			return err
		}
		cols := make([]arrow.Array, len(j.spec.Temporal))
		for c, f := range j.spec.Temporal {
			if cols[c], err = gatherRefs(j.recs, c, f.Type, j.dtypes[c], refs); err != nil {
				return err
			}
		}
		as, err := types.ArrowSchema(j.spec.Temporal)
		if err != nil {
			return err
		}
		rec, err := NewRecord(as, cols, int64(len(refs)))
		if err != nil {
			return err
		}
		next := int32(0)
		for i, g := range keep {
			old := j.entries[g]
			e := &entries[ids[i]]
			e.valid, e.loaded, e.accessed = true, old.loaded, old.accessed
			e.refs = make([]rowRef, len(old.refs))
			for r := range old.refs {
				e.refs[r] = rowRef{batch: 0, row: next}
				next++
			}
		}
		j.recs = []arrow.RecordBatch{rec}
	} else {
		j.recs = nil
	}
	j.table, j.entries = t, entries
	j.pending = make([]bool, len(entries))
	j.recRows = int64(len(refs))
	j.liveRow = j.recRows
	return nil
}

// OnMarker implements vectorized.Operator: markers pass through.
func (j *LookupFunctionJoin) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (j *LookupFunctionJoin) Close() error {
	j.recs, j.entries, j.table = nil, nil, nil
	if j.fn != nil {
		return j.fn.Close()
	}
	return nil
}

var _ vectorized.Operator = (*LookupFunctionJoin)(nil)
