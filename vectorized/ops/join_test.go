package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

var joinKinds = []logical.JoinKind{logical.InnerJoin, logical.LeftJoin, logical.RightJoin, logical.FullJoin, logical.SemiJoin, logical.AntiJoin}

// refJoin is the naive nested-loop reference: match(l, r) says whether a
// pair joins.
func refJoin(kind logical.JoinKind, left, right [][]any, lw, rw int, match func(l, r []any) bool) [][]any {
	var out [][]any
	nulls := func(n int) []any { return make([]any, n) }
	rightMatched := make([]bool, len(right))
	for _, l := range left {
		matched := false
		for j, r := range right {
			if match(l, r) {
				matched = true
				rightMatched[j] = true
				if kind != logical.SemiJoin && kind != logical.AntiJoin {
					out = append(out, append(append([]any{}, l...), r...))
				}
			}
		}
		switch {
		case kind == logical.SemiJoin && matched, kind == logical.AntiJoin && !matched:
			out = append(out, l)
		case !matched && (kind == logical.LeftJoin || kind == logical.FullJoin):
			out = append(out, append(append([]any{}, l...), nulls(rw)...))
		}
	}
	if kind == logical.RightJoin || kind == logical.FullJoin {
		for j, r := range right {
			if !rightMatched[j] {
				out = append(out, append(nulls(lw), r...))
			}
		}
	}
	return out
}

func joinOut(kind logical.JoinKind, ls, rs types.Schema) types.Schema {
	if kind == logical.SemiJoin || kind == logical.AntiJoin {
		return ls
	}
	out := append(types.Schema{}, ls...)
	for _, f := range rs {
		f.Name = "r_" + f.Name
		out = append(out, f)
	}
	return out
}

func joinData(seed uint64, nl, nr int) (types.Schema, [][]any, types.Schema, [][]any) {
	r := rand.New(rand.NewPCG(seed, 7))
	ls := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.StringT}, {Name: "v", Type: types.DoubleT}}
	rs := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.StringT}, {Name: "w", Type: types.BigIntT}}
	var left, right [][]any
	for i := 0; i < nl; i++ {
		left = append(left, []any{randInt64(r, 30, 0.1), randString(r, 4, 0.1), randFloat(r, 100, 0.1)})
	}
	for i := 0; i < nr; i++ {
		right = append(right, []any{randInt64(r, 40, 0.1), randString(r, 4, 0.1), randInt64(r, 100, 0.1)})
	}
	return ls, left, rs, right
}

func eqNotNull(a, b any) bool { return a != nil && b != nil && a == b }

func TestHashJoin(t *testing.T) {
	ls, left, rs, right := joinData(1, 400, 150)
	extraFn := func(row []any) bool { // v < w, over left ++ right
		return row[2] != nil && row[5] != nil && row[2].(float64) < float64(row[5].(int64))
	}
	tests := []struct {
		name   string
		lk, rk []int
		extra  bool
		left   [][]any
		right  [][]any
	}{
		{"one key", []int{0}, []int{0}, false, left, right},
		{"two keys", []int{0, 1}, []int{0, 1}, false, left, right},
		{"one key with extra", []int{0}, []int{0}, true, left, right},
		{"string key with extra", []int{1}, []int{1}, true, left, right},
		{"empty build", []int{0}, []int{0}, false, left, nil},
		{"empty probe", []int{0}, []int{0}, true, nil, right},
	}
	for _, tc := range tests {
		for _, kind := range joinKinds {
			out := joinOut(kind, ls, rs)
			match := func(l, r []any) bool {
				for i := range tc.lk {
					if !eqNotNull(l[tc.lk[i]], r[tc.rk[i]]) {
						return false
					}
				}
				return !tc.extra || extraFn(append(append([]any{}, l...), r...))
			}
			want := refJoin(kind, tc.left, tc.right, len(ls), len(rs), match)
			for _, bs := range batchSizes {
				spec := JoinSpec{Kind: kind, LeftKeys: tc.lk, RightKeys: tc.rk, Left: mustArrow(t, ls), Right: mustArrow(t, rs), Out: mustArrow(t, out)}
				if tc.extra {
					spec.Cond = &rowSelector{s: append(append(types.Schema{}, ls...), rs...), fn: extraFn}
				}
				got, err := runBinary(t, NewHashJoin(spec), ls, tc.left, rs, tc.right, bs, out)
				require.NoError(t, err)
				require.Equal(t, canonRows(want), canonRows(got), "%s %s, batch size %d", tc.name, kind, bs)
			}
		}
	}
}

func TestNestedLoopJoin(t *testing.T) {
	ls, left, rs, right := joinData(2, 120, 50)
	both := append(append(types.Schema{}, ls...), rs...)
	condFn := func(row []any) bool { // l.k < r.k and l.s = r.s
		return row[0] != nil && row[3] != nil && row[0].(int64) < row[3].(int64) && eqNotNull(row[1], row[4])
	}
	tests := []struct {
		name        string
		cond        func([]any) bool
		left, right [][]any
	}{
		{"cross", nil, left[:20], right[:10]},
		{"non-equi", condFn, left, right},
		{"empty build", condFn, left, nil},
		{"cross, empty build", nil, left, nil},
	}
	for _, tc := range tests {
		for _, kind := range joinKinds {
			out := joinOut(kind, ls, rs)
			match := func(l, r []any) bool {
				return tc.cond == nil || tc.cond(append(append([]any{}, l...), r...))
			}
			want := refJoin(kind, tc.left, tc.right, len(ls), len(rs), match)
			for _, bs := range batchSizes {
				spec := JoinSpec{Kind: kind, Left: mustArrow(t, ls), Right: mustArrow(t, rs), Out: mustArrow(t, out)}
				if tc.cond != nil {
					spec.Cond = &rowSelector{s: both, fn: tc.cond}
				}
				got, err := runBinary(t, NewNestedLoopJoin(spec), ls, tc.left, rs, tc.right, bs, out)
				require.NoError(t, err)
				require.Equal(t, canonRows(want), canonRows(got), "%s %s, batch size %d", tc.name, kind, bs)
			}
		}
	}
}

// refNotIn is a correlated NOT IN: l[lk[0]] NOT IN (SELECT r[rk[0]] FROM
// right WHERE l[lk[k]] = r[rk[k]] for k > 0 AND cond). A left row is dropped
// when some right row passes the WHERE and its value is equal or NULL
// (either side).
func refNotIn(left, right [][]any, lk, rk []int, cond func(l, r []any) bool) [][]any {
	var out [][]any
	for _, l := range left {
		keep := true
		for _, r := range right {
			if cond != nil && !cond(l, r) {
				continue
			}
			where := true
			for k := 1; k < len(lk); k++ {
				if !eqNotNull(l[lk[k]], r[rk[k]]) {
					where = false
				}
			}
			if !where {
				continue
			}
			a, b := l[lk[0]], r[rk[0]]
			if a == nil || b == nil || a == b {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, l)
		}
	}
	return out
}

func TestNullAwareAntiJoin(t *testing.T) {
	ls := types.Schema{{Name: "a", Type: types.BigIntT}, {Name: "b", Type: types.StringT}}
	rs := ls
	r := rand.New(rand.NewPCG(9, 9))
	gen := func(n int, nullP float64) [][]any {
		var rows [][]any
		for i := 0; i < n; i++ {
			rows = append(rows, []any{randInt64(r, 12, nullP), randString(r, 3, nullP)})
		}
		return rows
	}
	left := gen(300, 0.1)
	rightNoNull := gen(40, 0)
	rightNull := gen(40, 0.05)
	condFn := func(l, r []any) bool { return eqNotNull(l[1], r[1]) }
	tests := []struct {
		name   string
		lk, rk []int
		right  [][]any
		cond   func(l, r []any) bool
	}{
		{"one key, no NULL on the right", []int{0}, []int{0}, rightNoNull, nil},
		{"one key, NULL on the right", []int{0}, []int{0}, rightNull, nil},
		{"one key, empty right", []int{0}, []int{0}, nil, nil},
		{"two keys", []int{0, 1}, []int{0, 1}, rightNull, nil},
		{"two keys, no NULL on the right", []int{0, 1}, []int{0, 1}, rightNoNull, nil},
		{"one key with condition", []int{0}, []int{0}, rightNull, condFn},
		{"string value, int correlation", []int{1, 0}, []int{1, 0}, rightNull, nil},
		{"two keys with condition", []int{0, 1}, []int{0, 1}, rightNull, func(l, r []any) bool { return eqNotNull(l[0], r[0]) || l[0] == nil }},
	}
	for _, tc := range tests {
		want := refNotIn(left, tc.right, tc.lk, tc.rk, tc.cond)
		for _, bs := range batchSizes {
			spec := JoinSpec{Kind: logical.AntiJoin, NullAwareAnti: true, LeftKeys: tc.lk, RightKeys: tc.rk, Left: mustArrow(t, ls), Right: mustArrow(t, rs), Out: mustArrow(t, ls)}
			if tc.cond != nil {
				spec.Cond = &rowSelector{s: append(append(types.Schema{}, ls...), rs...), fn: func(row []any) bool { return tc.cond(row[:2], row[2:]) }}
			}
			got, err := runBinary(t, NewHashJoin(spec), ls, left, rs, tc.right, bs, ls)
			require.NoError(t, err)
			require.Equal(t, canonRows(want), canonRows(got), "%s, batch size %d", tc.name, bs)
		}
	}
}

func TestHashJoinErrors(t *testing.T) {
	ls := types.Schema{{Name: "a", Type: types.BigIntT}}
	rs := types.Schema{{Name: "a", Type: types.IntT}}
	spec := JoinSpec{Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Left: mustArrow(t, ls), Right: mustArrow(t, rs), Out: mustArrow(t, append(append(types.Schema{}, ls...), rs...))}
	_, err := runBinary(t, NewHashJoin(spec), ls, nil, rs, nil, 0, ls)
	require.ErrorContains(t, err, "not supported yet: join key of types int64 and int32")
	spec.RightKeys = []int{3}
	_, err = runBinary(t, NewHashJoin(spec), ls, nil, rs, nil, 0, ls)
	require.ErrorContains(t, err, "out of range")
}

func TestJoinLargeFanout(t *testing.T) {
	// 3 × 3000 matches per key: pair chunks flush many times.
	ls := types.Schema{{Name: "k", Type: types.IntT}}
	var left, right [][]any
	for i := 0; i < 3; i++ {
		left = append(left, []any{int32(1)})
	}
	for i := 0; i < 3000; i++ {
		right = append(right, []any{int32(1 + i%2)})
	}
	out := joinOut(logical.FullJoin, ls, ls)
	spec := JoinSpec{Kind: logical.FullJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Left: mustArrow(t, ls), Right: mustArrow(t, ls), Out: mustArrow(t, out)}
	got, err := runBinary(t, NewHashJoin(spec), ls, left, ls, right, 0, out)
	require.NoError(t, err)
	require.Len(t, got, 3*1500+1500)
}

func TestHashJoinTrimsProbeKeys(t *testing.T) {
	// 200 K distinct probe keys against 10 build keys: the table is rebuilt
	// on the way and the result stays right.
	ls := types.Schema{{Name: "k", Type: types.BigIntT}}
	var left, right [][]any
	for i := 0; i < 200_000; i++ {
		left = append(left, []any{int64(i)})
	}
	for i := 0; i < 10; i++ {
		right = append(right, []any{int64(i * 1000)})
	}
	out := joinOut(logical.InnerJoin, ls, ls)
	spec := JoinSpec{Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Left: mustArrow(t, ls), Right: mustArrow(t, ls), Out: mustArrow(t, out)}
	j := NewHashJoin(spec)
	got, err := runBinary(t, j, ls, left, ls, right, 4096, out)
	require.NoError(t, err)
	require.Equal(t, canonRows(refJoin(logical.InnerJoin, left, right, 1, 1, func(l, r []any) bool { return l[0] == r[0] })), canonRows(got))
}

// TestHashJoinIndexPaths runs every join kind over build sides that take
// each probe path: the direct index (dense keys) and the hash table
// (sparse keys), each with unique and with repeated build keys, INT and
// BIGINT keys with NULLs, and with unread output columns left NULL.
func TestHashJoinIndexPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name   string
		typ    types.Type
		key    func(i int64) any // maps a small key to the column value
		unique bool
	}{
		{"dense unique", types.BigIntT, func(i int64) any { return i - 50 }, true},
		{"dense repeated", types.IntT, func(i int64) any { return int32(i) }, false},
		{"sparse unique", types.BigIntT, func(i int64) any { return (i - 100) * 1_000_000_007 }, true},
		{"sparse repeated", types.BigIntT, func(i int64) any { return i * 1_000_000_007 }, false},
	} {
		ks := types.Schema{{Name: "k", Type: tc.typ}, {Name: "x", Type: types.BigIntT}}
		var left, right [][]any
		for i := 0; i < 3000; i++ {
			var k any
			if r.IntN(20) > 0 {
				k = tc.key(int64(r.IntN(260)))
			}
			left = append(left, []any{k, int64(i)})
		}
		for i := 0; i < 200; i++ {
			var k any
			switch {
			case tc.unique && i%10 == 9:
			case tc.unique:
				k = tc.key(int64(i))
			case r.IntN(20) > 0:
				k = tc.key(int64(r.IntN(200)))
			}
			right = append(right, []any{k, int64(-i)})
		}
		for _, kind := range joinKinds {
			out := joinOut(kind, ks, ks)
			want := refJoin(kind, left, right, 2, 2, func(l, r []any) bool { return eqNotNull(l[0], r[0]) })
			for _, unread := range []bool{false, true} {
				spec := JoinSpec{Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}, Left: mustArrow(t, ks), Right: mustArrow(t, ks), Out: mustArrow(t, out)}
				w := want
				if unread && len(out) == 4 {
					// Nothing reads the keys: they come back NULL.
					spec.Unread = []bool{true, false, true, false}
					w = nil
					for _, row := range want {
						w = append(w, []any{nil, row[1], nil, row[3]})
					}
				}
				for _, bs := range []int{7, 4096} {
					got, err := runBinary(t, NewHashJoin(spec), ks, left, ks, right, bs, out)
					require.NoError(t, err)
					require.Equal(t, canonRows(w), canonRows(got), "%s %s unread=%v batch size %d", tc.name, kind, unread, bs)
				}
			}
		}
	}
}
