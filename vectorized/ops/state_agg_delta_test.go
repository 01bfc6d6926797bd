package ops

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// deltaSnap is one snapshot of one subtask in a deltaStore.
type deltaSnap struct {
	id    int64
	delta bool
	parts map[string][][]byte
}

// deltaStore is an in-memory incremental checkpoint storage: per subtask,
// the chain of its latest completed snapshot (full first).
type deltaStore struct {
	chains   map[int][]*deltaSnap
	deltas   int
	fulls    int
	badBases int // DeltaOf calls on a base that is not the latest completed
}

func newDeltaStore() *deltaStore { return &deltaStore{chains: map[int][]*deltaSnap{}} }

// deltaWriter is the vectorized.IncrementalStateWriter of one snapshot.
type deltaWriter struct {
	aggStateWriter
	store       *deltaStore
	sub         int
	id          int64
	incremental bool
	delta       bool
}

func (s *deltaStore) writer(sub int, id int64, incremental bool) *deltaWriter {
	return &deltaWriter{aggStateWriter: aggStateWriter{parts: map[string][][]byte{}}, store: s, sub: sub, id: id, incremental: incremental}
}

func (w *deltaWriter) CheckpointID() int64 { return w.id }
func (w *deltaWriter) Incremental() bool   { return w.incremental }
func (w *deltaWriter) DeltaOf(base int64) error {
	ch := w.store.chains[w.sub]
	if !w.incremental || len(ch) == 0 || ch[len(ch)-1].id != base || len(w.parts) > 0 {
		w.store.badBases++
		return fmt.Errorf("checkpoint %d is not the latest completed", base)
	}
	w.delta = true
	return nil
}

// complete makes the snapshot part of the store (its checkpoint completed).
func (w *deltaWriter) complete() {
	s := &deltaSnap{id: w.id, delta: w.delta, parts: w.parts}
	if w.delta {
		w.store.chains[w.sub] = append(append([]*deltaSnap(nil), w.store.chains[w.sub]...), s)
		w.store.deltas++
		return
	}
	w.store.chains[w.sub] = []*deltaSnap{s}
	w.store.fulls++
}

// layeredReader reads the chains of a deltaStore as subtask of parallelism.
type layeredReader struct {
	layers               []*aggCheckpoint
	subtask, parallelism int
}

func (s *deltaStore) reader(sub, par int) *layeredReader {
	r := &layeredReader{subtask: sub, parallelism: par}
	for old := 0; old < len(s.chains); old++ {
		for i, snap := range s.chains[old] {
			if i == len(r.layers) {
				r.layers = append(r.layers, &aggCheckpoint{})
			}
			r.layers[i].subtasks = append(r.layers[i].subtasks, snap.parts)
		}
	}
	return r
}

func (r *layeredReader) plain(cp *aggCheckpoint) *aggStateReader {
	return &aggStateReader{cp: cp, subtask: r.subtask, parallelism: r.parallelism}
}

func (r *layeredReader) Read(part string, fn func(rec arrow.RecordBatch) error) error {
	if len(r.layers) > 1 {
		return fmt.Errorf("incremental state read without layers")
	}
	if len(r.layers) == 0 {
		return nil
	}
	return r.plain(r.layers[0]).Read(part, fn)
}

func (r *layeredReader) Layers() []vectorized.StateReader {
	out := make([]vectorized.StateReader, len(r.layers))
	for i, l := range r.layers {
		out[i] = r.plain(l)
	}
	return out
}

func (r *layeredReader) Owns(kg int) bool { return r.plain(nil).Owns(kg) }
func (r *layeredReader) Subtask() int     { return r.subtask }
func (r *layeredReader) Parallelism() int { return r.parallelism }

// notifyComplete tells the group aggregates of st that checkpoint id completed.
func notifyComplete(st vectorized.Stateful, id int64) {
	if c, ok := st.(*aggChainState); ok {
		c.gl.NotifyCheckpointComplete(id)
		return
	}
	st.(vectorized.CheckpointListener).NotifyCheckpointComplete(id)
}

// deltaSegments cuts input into n segments, keeping -U/+U pairs together.
func deltaSegments(input []change, n int) [][]change {
	var segs [][]change
	lo := 0
	for i := 1; i <= n; i++ {
		hi := len(input) * i / n
		for hi < len(input) && input[hi].kind == changelog.UpdateAfter {
			hi++
		}
		if hi < lo {
			hi = lo
		}
		segs = append(segs, input[lo:hi])
		lo = hi
	}
	return segs
}

// deltaChainRun runs segs through an instance of tc at parallelism from,
// each subtask taking incremental checkpoint i+1 after segment i for the
// first restoreAt segments (checkpoint abort is taken but never
// completes), then restores new instances at parallelism to from the
// chains and feeds the rest. A barrier follows every segment; tick(i)
// runs before segment i. It returns the output changelogs of every
// instance, concatenated.
func deltaChainRun(t *testing.T, tc aggOpCase, segs [][]change, from, to, restoreAt int, abort int64, tick func(i int)) ([]change, *deltaStore) {
	t.Helper()
	store := newDeltaStore()
	split := func(seg []change, p int) [][]change {
		if p == 1 {
			return [][]change{seg}
		}
		return aggSubtasks(t, tc.in, tc.keys, seg, p)
	}
	var all []change
	phase := func(p, lo, hi int, restore bool) {
		runs := make([]*aggRun, p)
		sts := make([]vectorized.Stateful, p)
		for s := range p {
			op, st := tc.mk(t)
			runs[s], sts[s] = newAggRun(t, op, tc.in, tc.out), st
			if restore {
				require.NoError(t, st.RestoreState(context.Background(), store.reader(s, p)))
			}
		}
		for i := lo; i < hi; i++ {
			if tick != nil {
				tick(i)
			}
			parts := split(segs[i], p)
			id := int64(i + 1)
			var ws []*deltaWriter
			for s, r := range runs {
				r.feed(parts[s], 5, tc.bundle)
				if restore {
					r.marker(vectorized.CheckpointBarrier)
					continue
				}
				w := store.writer(s, id, true)
				r.marker(vectorized.CheckpointBarrier)
				require.NoError(t, sts[s].SnapshotState(context.Background(), w))
				ws = append(ws, w)
			}
			if id == abort {
				continue // the checkpoint fails: nobody learns of it
			}
			for s, w := range ws {
				w.complete()
				notifyComplete(sts[s], id)
			}
		}
		for _, r := range runs {
			if restore {
				r.marker(vectorized.EndOfInput)
			}
			all = append(all, r.changes(true)...)
		}
	}
	phase(from, 0, restoreAt, false)
	phase(to, restoreAt, len(segs), true)
	return all, store
}

func withDeltaLimits(t *testing.T, chain int, ratio float64) {
	c, r, k := deltaMaxChain, deltaMaxRatio, aggStateChunk
	t.Cleanup(func() { deltaMaxChain, deltaMaxRatio, aggStateChunk = c, r, k })
	deltaMaxChain, deltaMaxRatio, aggStateChunk = chain, ratio, 7
}

func TestAggregateDeltaChainRestoreEqualsUninterrupted(t *testing.T) {
	withDeltaLimits(t, 3, 1000)
	for _, tc := range aggOpCases(t) {
		for seed := uint64(1); seed <= 2; seed++ {
			input := aggStateInput(seed, 900, 40, tc.retract)
			if len(tc.in) == len(aggStateInWithFilter) {
				input = withFilter(input)
			}
			segs := deltaSegments(input, 8)
			want, _ := deltaChainRun(t, tc, segs, 1, 1, 0, 0, nil)
			for _, at := range []int{2, 4, 5, 7} {
				for _, abort := range []int64{0, 2, 4} {
					if abort == int64(at) {
						continue // the restore would start from the checkpoint before
					}
					t.Run(fmt.Sprintf("%s/seed=%d/at=%d/abort=%d", tc.name, seed, at, abort), func(t *testing.T) {
						got, store := deltaChainRun(t, tc, segs, 1, 1, at, abort, nil)
						require.Equal(t, changeStrings(want), changeStrings(got))
						require.Zero(t, store.badBases, "a delta on a base that did not complete")
						if at >= 4 {
							require.Positive(t, store.deltas)
						}
					})
				}
			}
		}
	}
}

func TestAggregateDeltaChainRescale(t *testing.T) {
	withDeltaLimits(t, 4, 1000)
	for _, tc := range aggOpCases(t) {
		if len(tc.keys) == 0 {
			continue
		}
		input := aggStateInput(21, 1200, 60, tc.retract)
		if len(tc.in) == len(aggStateInWithFilter) {
			input = withFilter(input)
		}
		segs := deltaSegments(input, 8)
		base, _ := deltaChainRun(t, tc, segs, 1, 1, 0, 0, nil)
		want := aggMaterialize(t, len(tc.keys), base)
		for _, p := range [][2]int{{1, 2}, {2, 1}, {3, 2}} {
			t.Run(fmt.Sprintf("%s/%d→%d", tc.name, p[0], p[1]), func(t *testing.T) {
				got, store := deltaChainRun(t, tc, segs, p[0], p[1], 6, 3, nil)
				require.Equal(t, want, aggMaterialize(t, len(tc.keys), got))
				require.Positive(t, store.deltas)
				require.Zero(t, store.badBases)
			})
		}
	}
}

// TestAggregateDeltaTombstones checks groups retracted to nothing between
// two checkpoints, and re-created after, through a chain of deltas.
func TestAggregateDeltaTombstones(t *testing.T) {
	withDeltaLimits(t, 10, 1000)
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.BigIntT}}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1}, {Name: "SUM", Args: []int{1}, Filter: -1}}
	ins := func(k, v int64) change { return change{changelog.Insert, []any{k, v}} }
	del := func(k, v int64) change { return change{changelog.Delete, []any{k, v}} }
	segs := [][]change{
		{ins(1, 1), ins(2, 2), ins(3, 3)},
		{del(1, 1)},            // tombstone for 1
		{ins(1, 5), del(2, 2)}, // 1 again, 2 gone
		{del(1, 5), ins(4, 4)}, // 1 gone again
		{ins(2, 7)},
		{ins(1, 1), ins(2, 1), ins(3, 1), ins(4, 1)},
	}
	for _, mini := range []bool{false, true} {
		tc := aggOpCase{name: "tombstones", in: in, out: out, keys: []int{0}, retract: true,
			mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
				if mini {
					op := NewMiniBatchGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{Retract: true}, 0)
					return op, op
				}
				op := NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{Retract: true})
				return op, op
			}}
		want, _ := deltaChainRun(t, tc, segs, 1, 1, 0, 0, nil)
		for at := 1; at < len(segs); at++ {
			got, store := deltaChainRun(t, tc, segs, 1, 1, at, 0, nil)
			require.Equal(t, changeStrings(want), changeStrings(got), "mini=%v restore after segment %d", mini, at)
			require.Equal(t, at-1, store.deltas)
			if at >= 4 {
				// the chain's deltas carry tombstones
				n := 0
				for _, s := range store.chains[0] {
					n += len(s.parts[StatePartGroupsDeleted])
				}
				require.Positive(t, n)
			}
		}
	}
}

// TestAggregateDeltaStateTTL checks groups expiring between checkpoints
// (touched after expiry, or never again) through a chain of deltas.
func TestAggregateDeltaStateTTL(t *testing.T) {
	withDeltaLimits(t, 10, 1000)
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.BigIntT}}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1}, {Name: "SUM", Args: []int{1}, Filter: -1}}
	ttl := 10 * time.Second
	var now time.Time
	clock := func() time.Time { return now }
	cases := []aggOpCase{
		{name: "GroupAggregate", in: in, out: out, keys: []int{0}, mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
			op := NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{StateTTL: ttl})
			op.SetClock(clock)
			return op, op
		}},
		{name: "MiniBatchGroupAggregate", in: in, out: out, keys: []int{0}, bundle: 1, mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
			op := NewMiniBatchGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{StateTTL: ttl}, 0)
			op.SetClock(clock)
			return op, op
		}},
		{name: "GlobalGroupAggregate", in: in, out: out, keys: []int{0}, bundle: 1, mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
			local, cols := twoPhaseLocalSchema(t, []int{0}, calls, in)
			lo := NewLocalGroupAggregate([]int{0}, calls, in, local, 0)
			gl := NewGlobalGroupAggregate([]int{0}, calls, cols, in, local, mustArrow(t, out), GroupAggregateOptions{StateTTL: ttl}, 0)
			gl.SetClock(clock)
			return &testChain{lo, gl}, &aggChainState{lo, gl}
		}},
	}
	// 40 keys; each segment touches a rotating subset; 4 s per segment,
	// so keys left alone for 3 segments expire.
	var segs [][]change
	for s := range 10 {
		var seg []change
		for k := range 40 {
			if (k+s)%4 == 0 || k < 3 {
				seg = append(seg, change{changelog.Insert, []any{int64(k), int64(s*100 + k)}})
			}
		}
		segs = append(segs, seg)
	}
	tick := func(i int) { now = time.Unix(1000, 0).Add(time.Duration(i) * 4 * time.Second) }
	for _, tc := range cases {
		want, _ := deltaChainRun(t, tc, segs, 1, 1, 0, 0, tick)
		for _, at := range []int{3, 6, 9} {
			for _, p := range [][2]int{{1, 1}, {1, 2}, {2, 1}} {
				t.Run(fmt.Sprintf("%s/at=%d/%d→%d", tc.name, at, p[0], p[1]), func(t *testing.T) {
					got, store := deltaChainRun(t, tc, segs, p[0], p[1], at, 0, tick)
					if p == [2]int{1, 1} {
						require.Equal(t, changeStrings(want), changeStrings(got))
					} else {
						require.Equal(t, aggMaterialize(t, 1, want), aggMaterialize(t, 1, got))
					}
					require.Positive(t, store.deltas)
				})
			}
		}
	}
}

// TestAggregateDeltaPolicy checks when a snapshot is full: the first, after
// deltaMaxChain deltas, after a failed checkpoint, when the deltas would
// outgrow the state, and always for savepoints (which leave the tracking
// alone).
func TestAggregateDeltaPolicy(t *testing.T) {
	withDeltaLimits(t, 2, 0.5)
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.BigIntT}}
	calls := []logical.AggCall{{Name: "SUM", Args: []int{1}, Filter: -1}}
	op := NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{})
	r := newAggRun(t, op, in, out)
	store := newDeltaStore()
	keys := func(ks ...int64) []change {
		var cs []change
		for _, k := range ks {
			cs = append(cs, change{changelog.Insert, []any{k, int64(1)}})
		}
		return cs
	}
	id := int64(0)
	step := func(input []change, incremental, complete bool) *deltaWriter {
		r.feed(input, 100, 0)
		id++
		w := store.writer(0, id, incremental)
		require.NoError(t, op.SnapshotState(context.Background(), w))
		if complete {
			if incremental {
				w.complete() // a savepoint is not part of the chains
			}
			op.NotifyCheckpointComplete(id)
		} else {
			op.NotifyCheckpointAborted(id)
		}
		return w
	}
	var all []int64
	for k := range int64(20) {
		all = append(all, k)
	}
	require.False(t, step(keys(all...), true, true).delta, "first: full")
	require.True(t, step(keys(1), true, true).delta)
	sp := step(keys(2), false, true) // a savepoint
	require.False(t, sp.delta)
	w := step(keys(3), true, true)
	require.True(t, w.delta, "after a savepoint: delta on the last checkpoint")
	require.Len(t, w.parts[StatePartGroups], 1)
	require.False(t, step(keys(4), true, true).delta, "chain of 2 deltas: full")
	require.True(t, step(keys(5), true, false).delta, "a delta, but its checkpoint fails")
	require.False(t, step(keys(6), true, true).delta, "after an aborted checkpoint: full")
	require.True(t, step(keys(7, 8, 9), true, true).delta)
	require.False(t, step(keys(10, 11, 12, 13, 14, 15, 16, 17), true, true).delta, "3+8 rows > half the state")
	require.Zero(t, store.badBases)
	r.changes(true)
}
