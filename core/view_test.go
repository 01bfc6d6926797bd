package core

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// viewModel is the plain definition of a View: the rows in arrival order;
// a retraction removes the newest equal row, the cap the oldest.
type viewModel struct {
	max  int
	rows []Row
	cut  int64
}

func (m *viewModel) apply(kind changelog.RowKind, row Row) {
	switch kind {
	case changelog.Insert, changelog.UpdateAfter:
		m.rows = append(m.rows, row)
		for m.max > 0 && len(m.rows) > m.max {
			m.rows = m.rows[1:]
			m.cut++
		}
	default:
		for i := len(m.rows) - 1; i >= 0; i-- {
			if reflect.DeepEqual(m.rows[i], row) {
				m.rows = append(m.rows[:i:i], m.rows[i+1:]...)
				return
			}
		}
	}
}

// randomValue returns a value from a small pool of every canonical Go
// type (so that equal rows recur), NULL included.
func randomValue(rng *rand.Rand) any {
	k := rng.IntN(4)
	switch rng.IntN(16) {
	case 0:
		return nil
	case 1:
		return k%2 == 0
	case 2:
		return int8(k - 2)
	case 3:
		return int16(k * -300)
	case 4:
		return int32(k*1_000_003 - 2)
	case 5:
		return int64(k) * math.MinInt64 / 3
	case 6:
		return float32(k) / 3
	case 7:
		return []float64{0, 2.5, math.Inf(1), 1e300}[k]
	case 8:
		return []string{"", "x", "ünï", "a\x00b"}[k]
	case 9:
		return [][]byte{nil, {}, {0}, {1, 2}}[k]
	case 10:
		return decimal128.New(int64(k)-2, uint64(k)<<60)
	case 11:
		return []any{int32(k), nil, "s"}[:k%3]
	case 12:
		if k == 0 {
			return (*types.MapValue)(nil)
		}
		return &types.MapValue{Keys: []any{"k", int32(k)}, Values: []any{nil, []any{int64(k)}}}
	case 13:
		return []any(nil)
	case 14:
		// not a canonical value: kept boxed, compared by its spelling
		return time.Unix(int64(k), 0).UTC()
	}
	return int32(k)
}

// TestViewMatchesModel applies random changes over rows of every
// canonical type (duplicates, retractions of rows not there, a cap, enough
// churn to compact and resize the index many times) and compares the view
// with the model after every step batch: same rows, same order, same
// values and Go types once decoded.
func TestViewMatchesModel(t *testing.T) {
	for _, maxRows := range []int{0, 1, 7, 300} {
		rng := rand.New(rand.NewPCG(uint64(maxRows), 9))
		v, m := NewView(maxRows), &viewModel{max: maxRows}
		var pool []Row
		for step := 0; step < 12_000; step++ {
			var row Row
			if len(pool) > 0 && rng.IntN(3) > 0 {
				row = pool[rng.IntN(len(pool))]
			} else {
				row = make(Row, rng.IntN(4))
				for i := range row {
					row[i] = randomValue(rng)
				}
				if len(pool) < 500 {
					pool = append(pool, row)
				} else {
					pool[rng.IntN(len(pool))] = row
				}
			}
			kind := []changelog.RowKind{changelog.Insert, changelog.UpdateAfter, changelog.UpdateBefore, changelog.Delete}[rng.IntN(4)]
			if step > 8_000 && kind == changelog.Insert {
				kind = changelog.Delete // shrink: compactions that return memory
			}
			v.Apply(kind, row)
			m.apply(kind, row)
			if step%997 == 0 || step == 11_999 {
				require.Equal(t, len(m.rows), v.Len(), "max %d step %d", maxRows, step)
				require.Equal(t, m.cut, v.Cut())
				got := v.Rows()
				require.Equal(t, len(m.rows), len(got))
				for i := range got {
					require.True(t, reflect.DeepEqual(m.rows[i], got[i]) || deepEqualNormalized(m.rows[i], got[i]),
						"max %d step %d row %d: want %#v got %#v", maxRows, step, i, m.rows[i], got[i])
				}
				if n := min(5, len(m.rows)); n > 0 {
					require.Equal(t, len(got[:n]), len(v.First(n)))
					require.Equal(t, len(got[len(got)-n:]), len(v.Last(n)))
				}
			}
		}
		require.LessOrEqual(t, len(v.entries.s), 2*v.Len()+1025)
		require.LessOrEqual(t, len(v.slots.s), max(64, 4*v.Len()))
	}
}

// deepEqualNormalized compares rows where an empty map's key or value
// slice may come back as an empty slice instead of nil.
func deepEqualNormalized(a, b Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		ma, ok1 := a[i].(*types.MapValue)
		mb, ok2 := b[i].(*types.MapValue)
		if ok1 && ok2 && ma != nil && mb != nil {
			if len(ma.Keys) != len(mb.Keys) || len(ma.Values) != len(mb.Values) ||
				(len(ma.Keys) > 0 && !reflect.DeepEqual(ma.Keys, mb.Keys)) || (len(ma.Values) > 0 && !reflect.DeepEqual(ma.Values, mb.Values)) {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestViewHeapPerRow holds ~0.9 M rows of a GROUP BY (INT key, BIGINT
// sum) after 2 M input rows (3.7 M changes) and checks the memory the
// view keeps, Go heap and its store outside it: under 100 bytes a row
// (the boxed rows and string-keyed maps it replaced took ~150 bytes).
func TestViewHeapPerRow(t *testing.T) {
	if testing.Short() {
		t.Skip("1 M rows")
	}
	batches := groupByChanges(2_000_000, 1_000_000, 4096)
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	v := NewView(0)
	for _, b := range batches {
		v.ApplyBatch(b)
	}
	held := int64(heap()) - int64(before) + int64(v.memBytes())
	runtime.KeepAlive(batches)
	require.Greater(t, v.Len(), 800_000)
	perRow := float64(held) / float64(v.Len())
	t.Logf("%d rows: %.1f MB (%.1f MB outside the Go heap), %.0f bytes a row", v.Len(), float64(held)/(1<<20), float64(v.memBytes())/(1<<20), perRow)
	require.Less(t, perRow, 100.0)
	runtime.KeepAlive(v)
}
