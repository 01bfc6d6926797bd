package ops

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// fakeLookup answers keys from a map of key → names, counting calls
// and keys.
type fakeLookup struct {
	dim         map[int32][]string
	calls, keys int
}

var fakeSchema = types.Schema{{Name: "id", Type: types.IntT}, {Name: "name", Type: types.StringT}}

func (f *fakeLookup) Open(context.Context) error { return nil }
func (f *fakeLookup) Close() error               { return nil }
func (f *fakeLookup) Lookup(_ context.Context, keys []arrow.Array) (arrow.RecordBatch, []int32, error) {
	f.calls++
	f.keys += keys[0].Len()
	var rows [][]any
	var of []int32
	for i := range keys[0].Len() {
		k := types.GetValue(keys[0], i, types.IntT)
		if k == nil {
			return nil, nil, fmt.Errorf("NULL key looked up")
		}
		for _, n := range f.dim[k.(int32)] {
			rows = append(rows, []any{k, n})
			of = append(of, int32(i))
		}
	}
	rec, err := types.BuildRecord(vectorized.Mem, fakeSchema, rows)
	return rec, of, err
}

func lookupSpec(kind logical.JoinKind) LookupJoinSpec {
	in := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.StringT}}
	return LookupJoinSpec{Kind: kind, InputKeys: []int{0}, TemporalKeys: []int{0}, Input: in, Temporal: fakeSchema,
		Out: append(append(types.Schema{}, in...), fakeSchema...)}
}

// TestLookupFunctionJoin: every batch size and cache setting gives the
// in-memory join's rows (a key with two rows matches twice, a missing or
// NULL key not at all, LEFT pads); the cache asks for each key once.
func TestLookupFunctionJoin(t *testing.T) {
	dim := map[int32][]string{1: {"one"}, 2: {"two", "deux"}, 4: {"four"}}
	var in [][]any
	for i := range 40 {
		var k any = int32(i % 6)
		if i%6 == 5 {
			k = nil
		}
		in = append(in, []any{k, fmt.Sprint(i)})
	}
	for _, kind := range []logical.JoinKind{logical.InnerJoin, logical.LeftJoin} {
		var want [][]any
		for _, r := range in {
			var names []string
			if r[0] != nil {
				names = dim[r[0].(int32)]
			}
			for _, n := range names {
				want = append(want, []any{r[0], r[1], r[0], n})
			}
			if len(names) == 0 && kind == logical.LeftJoin {
				want = append(want, []any{r[0], r[1], nil, nil})
			}
		}
		for _, cache := range []*vectorized.LookupCache{nil, {}, {CacheMissingKey: true}, {MaxRows: 2, CacheMissingKey: true}} {
			for _, bs := range batchSizes {
				f := &fakeLookup{dim: dim}
				op := NewLookupFunctionJoin(lookupSpec(kind), f, cache)
				got, err := runUnary(t, op, lookupSpec(kind).Input, in, bs, lookupSpec(kind).Out)
				require.NoError(t, err)
				require.Equal(t, want, got, "kind %v cache %+v batch %d", kind, cache, bs)
				st := op.Stats()
				require.Equal(t, int64(f.keys), st.Misses)
				require.Equal(t, int64(f.calls), st.Loads)
				switch {
				case cache != nil && cache.CacheMissingKey && cache.MaxRows == 0:
					require.Equal(t, 5, f.keys, "each non-NULL key once")
				case cache != nil && !cache.CacheMissingKey:
					if bs == 1 {
						// keys 1, 2, 4 once; 0 and 3 have no rows: asked
						// at each of their 7 rows
						require.Equal(t, 3+7+7, f.keys, "batch %d", bs)
					}
				case cache == nil && bs == 1:
					require.Equal(t, 40-6, f.keys, "every non-NULL row")
				}
			}
		}
	}
}

// TestLookupCacheExpiry: expire-after-write and -access reload keys when
// their time is up, and not before.
func TestLookupCacheExpiry(t *testing.T) {
	clock := time.Unix(1000, 0)
	now := func() time.Time { return clock }
	spec := lookupSpec(logical.InnerJoin)
	run := func(op *LookupFunctionJoin, k int32) {
		rec, err := types.BuildRecord(vectorized.Mem, spec.Input, [][]any{{k, "x"}})
		require.NoError(t, err)
		require.NoError(t, op.Process(context.Background(), vectorized.Batch{Rec: rec}, &collector{}))
	}
	f := &fakeLookup{dim: map[int32][]string{1: {"one"}}}
	op := NewLookupFunctionJoin(spec, f, &vectorized.LookupCache{ExpireAfterWrite: 10 * time.Second, CacheMissingKey: true})
	op.SetClock(now)
	require.NoError(t, op.Open(context.Background()))
	run(op, 1)
	clock = clock.Add(9 * time.Second)
	run(op, 1)
	require.Equal(t, 1, f.keys)
	clock = clock.Add(2 * time.Second)
	run(op, 1)
	require.Equal(t, 2, f.keys, "reloaded after 11s")

	f = &fakeLookup{dim: map[int32][]string{1: {"one"}}}
	op = NewLookupFunctionJoin(spec, f, &vectorized.LookupCache{ExpireAfterAccess: 10 * time.Second, CacheMissingKey: true})
	op.SetClock(now)
	require.NoError(t, op.Open(context.Background()))
	for range 5 {
		run(op, 1)
		clock = clock.Add(9 * time.Second)
	}
	require.Equal(t, 1, f.keys, "read every 9s: kept")
	clock = clock.Add(2 * time.Second)
	run(op, 1)
	require.Equal(t, 2, f.keys, "unread for 11s: reloaded")
}

// TestLookupCacheEviction: with max-rows the cache holds at most that
// many keys (the least recently read go first) and compacts itself; the
// rows stay right through many keys.
func TestLookupCacheEviction(t *testing.T) {
	dim := map[int32][]string{}
	var in [][]any
	for i := range 20000 {
		k := int32(i % 7000)
		dim[k] = []string{fmt.Sprint("n", k)}
		in = append(in, []any{k, "v"})
	}
	var want [][]any
	for _, r := range in {
		want = append(want, []any{r[0], r[1], r[0], fmt.Sprint("n", r[0])})
	}
	f := &fakeLookup{dim: dim}
	op := NewLookupFunctionJoin(lookupSpec(logical.InnerJoin), f, &vectorized.LookupCache{MaxRows: 1000, CacheMissingKey: true})
	got, err := runUnary(t, op, lookupSpec(logical.InnerJoin).Input, in, 100, lookupSpec(logical.InnerJoin).Out)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.LessOrEqual(t, op.live, 1000)
	require.Positive(t, op.Stats().Evictions)
	// a hot key stays while cold ones come and go
	f = &fakeLookup{dim: dim}
	op = NewLookupFunctionJoin(lookupSpec(logical.InnerJoin), f, &vectorized.LookupCache{MaxRows: 10, CacheMissingKey: true})
	in = in[:0]
	for i := range 200 {
		in = append(in, []any{int32(0), "hot"}, []any{int32(1 + i), "cold"})
	}
	_, err = runUnary(t, op, lookupSpec(logical.InnerJoin).Input, in, 2, lookupSpec(logical.InnerJoin).Out)
	require.NoError(t, err)
	require.Equal(t, 201, f.keys, "key 0 once, each cold key once")
}
