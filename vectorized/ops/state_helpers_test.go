package ops

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
	"github.com/tablerun/tablerun/vectorized"
)

// memCheckpoint is an in-memory checkpoint of one operator (written by
// several former instances, read back per restored instance).
type memCheckpoint = statetest.Checkpoint

// ckCollector records emitted rows as "+I[...]" strings and markers.
type ckCollector struct {
	out     types.Schema
	rows    []string
	markers []vectorized.Marker
}

func (c *ckCollector) Emit(_ context.Context, b vectorized.Batch) error {
	for i, r := range types.RecordRows(b.Rec, c.out) {
		c.rows = append(c.rows, fmt.Sprintf("%s%v", b.Kind(i), r))
	}
	return nil
}

func (c *ckCollector) EmitMarker(_ context.Context, m vectorized.Marker) error {
	c.markers = append(c.markers, m)
	return nil
}

// ckStep is one input of a test stream: a batch of rows of one side with
// their kinds, or a marker (marker != nil).
type ckStep struct {
	side   int
	rows   [][]any
	kinds  []changelog.RowKind
	marker *vectorized.Marker
}

// ckOp is a single- or multi-input operator under test.
type ckOp interface {
	Open(ctx context.Context) error
	Process(ctx context.Context, side int, b vectorized.Batch, out vectorized.Collector) error
	OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error
	Close() error
	vectorized.Stateful
}

// unaryCk adapts a single-input operator.
type unaryCk struct {
	op interface {
		vectorized.Operator
		vectorized.Stateful
	}
}

func (u unaryCk) Open(ctx context.Context) error { return u.op.Open(ctx) }
func (u unaryCk) Process(ctx context.Context, _ int, b vectorized.Batch, out vectorized.Collector) error {
	return u.op.Process(ctx, b, out)
}
func (u unaryCk) OnMarker(ctx context.Context, _ int, m vectorized.Marker, out vectorized.Collector) error {
	return u.op.OnMarker(ctx, m, out)
}
func (u unaryCk) Close() error { return u.op.Close() }
func (u unaryCk) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	return u.op.SnapshotState(ctx, w)
}
func (u unaryCk) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	return u.op.RestoreState(ctx, r)
}

// ckCase describes an operator test: a factory of fresh instances, the
// input schemas per side, the key columns per side (for rescaling) and
// the output schema.
type ckCase struct {
	name    string
	newOp   func(t *testing.T) ckOp
	in      []types.Schema
	keys    [][]int
	out     types.Schema
	sides   int
	noSplit bool // the operator's output depends on cross-key order (no rescale test)
}

// feed runs steps through op into c.
func feed(t *testing.T, op ckOp, in []types.Schema, steps []ckStep, c *ckCollector) {
	t.Helper()
	ctx := context.Background()
	for _, s := range steps {
		if s.marker != nil {
			require.NoError(t, op.OnMarker(ctx, s.side, *s.marker, c))
			continue
		}
		if len(s.rows) == 0 {
			continue
		}
		rec, err := types.BuildRecord(vectorized.Mem, in[s.side], s.rows)
		require.NoError(t, err)
		require.NoError(t, op.Process(ctx, s.side, vectorized.Batch{Rec: rec, Kinds: s.kinds}, c))
	}
}

// endAll sends EndOfInput on every side.
func endAll(sides int) []ckStep {
	var out []ckStep
	for s := range sides {
		out = append(out, ckStep{side: s, marker: &vectorized.Marker{Kind: vectorized.EndOfInput}})
	}
	return out
}

// straight runs all steps through one instance.
func (tc ckCase) straight(t *testing.T, steps []ckStep) *ckCollector {
	t.Helper()
	op := tc.newOp(t)
	require.NoError(t, op.Open(context.Background()))
	c := &ckCollector{out: tc.out}
	feed(t, op, tc.in, steps, c)
	feed(t, op, tc.in, endAll(tc.sides), c)
	require.NoError(t, op.Close())
	return c
}

// resumed runs steps[:cut] through one instance, snapshots it, restores a
// fresh instance from the snapshot and runs the rest through it.
func (tc ckCase) resumed(t *testing.T, steps []ckStep, cut int) *ckCollector {
	t.Helper()
	ctx := context.Background()
	c := &ckCollector{out: tc.out}
	a := tc.newOp(t)
	require.NoError(t, a.Open(ctx))
	feed(t, a, tc.in, steps[:cut], c)
	ck := &memCheckpoint{}
	require.NoError(t, a.SnapshotState(ctx, ck.Writer()))
	require.NoError(t, a.Close())
	b := tc.newOp(t)
	require.NoError(t, b.Open(ctx))
	require.NoError(t, b.RestoreState(ctx, ck.Reader(0, 1)))
	feed(t, b, tc.in, steps[cut:], c)
	feed(t, b, tc.in, endAll(tc.sides), c)
	require.NoError(t, b.Close())
	return c
}

// partition splits the row steps by the subtask of their key among p
// (markers go to every subtask).
func (tc ckCase) partition(t *testing.T, steps []ckStep, p int) [][]ckStep {
	t.Helper()
	out := make([][]ckStep, p)
	for _, s := range steps {
		if s.marker != nil {
			for i := range out {
				out[i] = append(out[i], s)
			}
			continue
		}
		if len(s.rows) == 0 {
			continue
		}
		rec, err := types.BuildRecord(vectorized.Mem, tc.in[s.side], s.rows)
		require.NoError(t, err)
		kgs := keyGroupsOf(rec, tc.keys[s.side])
		parts := make([]ckStep, p)
		for i, kg := range kgs {
			sub := vectorized.SubtaskOf(int(kg), vectorized.DefaultMaxParallelism, p)
			parts[sub].side = s.side
			parts[sub].rows = append(parts[sub].rows, s.rows[i])
			if s.kinds != nil {
				parts[sub].kinds = append(parts[sub].kinds, s.kinds[i])
			}
		}
		for i := range out {
			if len(parts[i].rows) > 0 {
				out[i] = append(out[i], parts[i])
			}
		}
	}
	return out
}

// rescaled runs steps[:cut] through p1 instances (input routed by key),
// snapshots all of them, restores p2 instances and runs the rest; it
// returns all outputs in order (first phase, then second).
func (tc ckCase) rescaled(t *testing.T, steps []ckStep, cut, p1, p2 int) []string {
	t.Helper()
	ctx := context.Background()
	var all []string
	ck := &memCheckpoint{}
	for i, part := range tc.partition(t, steps[:cut], p1) {
		op := tc.newOp(t)
		require.NoError(t, op.Open(ctx))
		c := &ckCollector{out: tc.out}
		feed(t, op, tc.in, part, c)
		require.NoError(t, op.SnapshotState(ctx, ck.Writer()), "instance %d", i)
		require.NoError(t, op.Close())
		all = append(all, c.rows...)
	}
	for i, part := range tc.partition(t, steps[cut:], p2) {
		op := tc.newOp(t)
		require.NoError(t, op.Open(ctx))
		require.NoError(t, op.RestoreState(ctx, ck.Reader(i, p2)))
		c := &ckCollector{out: tc.out}
		feed(t, op, tc.in, part, c)
		feed(t, op, tc.in, endAll(tc.sides), c)
		require.NoError(t, op.Close())
		all = append(all, c.rows...)
	}
	return all
}

// ckMaterialize applies a changelog ("+I[..]", "-U[..]", …) to a multiset
// and returns its rows sorted; a retraction of a missing row is an error.
func ckMaterialize(t *testing.T, log []string) []string {
	t.Helper()
	bag := map[string]int{}
	for _, l := range log {
		kind, row := l[:2], l[2:]
		switch kind {
		case "+I", "+U":
			bag[row]++
		case "-U", "-D":
			require.Positive(t, bag[row], "retraction of a missing row %s", row)
			bag[row]--
		default:
			t.Fatalf("bad changelog entry %q", l)
		}
	}
	var out []string
	for r, n := range bag {
		for range n {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// checkCase runs the resume test at several cut points and the rescale
// tests (2 → 1, 1 → 2, 2 → 3).
func (tc ckCase) check(t *testing.T, steps []ckStep) {
	t.Helper()
	want := tc.straight(t, steps)
	require.NotEmpty(t, want.rows, "the test input produces no output")
	if testOnDisk() {
		// the disk backend gives the heap backend's changelog
		t.Setenv("TABLERUN_TEST_STATE_BACKEND", "hashmap")
		heap := tc.straight(t, steps)
		t.Setenv("TABLERUN_TEST_STATE_BACKEND", "rocksdb")
		require.Equal(t, heap.rows, want.rows, "the disk backend's changelog differs from the heap's")
		require.Equal(t, heap.markers, want.markers, "the disk backend's markers differ from the heap's")
	}
	for _, cut := range []int{0, 1, len(steps) / 3, len(steps) / 2, len(steps) - 1, len(steps)} {
		got := tc.resumed(t, steps, cut)
		require.Equal(t, want.rows, got.rows, "cut at step %d", cut)
		require.Equal(t, want.markers, got.markers, "markers, cut at step %d", cut)
	}
	if tc.noSplit {
		return
	}
	wantSet := ckMaterialize(t, want.rows)
	for _, ps := range [][2]int{{2, 1}, {1, 2}, {2, 3}} {
		got := tc.rescaled(t, steps, len(steps)/2, ps[0], ps[1])
		require.Equal(t, wantSet, ckMaterialize(t, got), "rescale %d -> %d", ps[0], ps[1])
	}
}
