package gen

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestGroupByDataDeterministicAndInRange(t *testing.T) {
	k1, v1, err := GroupByData(10_000, 100, 7)
	require.NoError(t, err)
	k2, v2, err := GroupByData(10_000, 100, 7)
	require.NoError(t, err)
	require.Equal(t, k1, k2)
	require.Equal(t, v1, v2)
	seen := map[int64]bool{}
	for i, k := range k1 {
		require.True(t, k >= 0 && k < 100)
		require.True(t, v1[i] >= 0 && v1[i] < 1000)
		seen[k] = true
	}
	require.Len(t, seen, 100)
	ki, vi, err := GroupByIntData(10_000, 100, 7)
	require.NoError(t, err)
	require.Equal(t, k1, ki)
	for _, v := range vi {
		require.True(t, v >= 0 && v < 1000)
	}
	k3, _, err := GroupByData(10_000, 100, 8)
	require.NoError(t, err)
	require.NotEqual(t, k1, k3)
}

func TestInvalidSizes(t *testing.T) {
	_, _, err := GroupByData(-1, 10, 1)
	require.ErrorIs(t, err, ErrInvalidSize)
	_, _, err = GroupByIntData(10, 0, 1)
	require.ErrorIs(t, err, ErrInvalidSize)
	_, err = RecordBatches(memory.DefaultAllocator, []int64{1}, []float64{1}, 0)
	require.ErrorIs(t, err, ErrInvalidSize)
	_, err = RecordBatches(memory.DefaultAllocator, []int64{1}, []float64{}, 10)
	require.ErrorIs(t, err, ErrInvalidSize)
}

func TestRecordBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ks, vs, err := GroupByData(1000, 10, 3)
	require.NoError(t, err)
	recs, err := RecordBatches(mem, ks, vs, 300)
	require.NoError(t, err)
	require.Len(t, recs, 4)
	row := 0
	for _, r := range recs {
		k := r.Column(0).(*array.Int64)
		v := r.Column(1).(*array.Float64)
		for i := 0; i < int(r.NumRows()); i++ {
			require.Equal(t, ks[row], k.Value(i))
			require.Equal(t, vs[row], v.Value(i))
			row++
		}
		r.Release()
	}
	require.Equal(t, 1000, row)

	ki, vi, err := GroupByIntData(10, 3, 3)
	require.NoError(t, err)
	irecs, err := RecordBatches(mem, ki, vi, 4)
	require.NoError(t, err)
	require.Len(t, irecs, 3)
	require.Equal(t, vi[9], irecs[2].Column(1).(*array.Int64).Value(1))
	for _, r := range irecs {
		r.Release()
	}
}

func TestWriteCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	require.NoError(t, WriteCSV(path, 5, 3, 9))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 5)
	ks, vs, err := GroupByIntData(5, 3, 9)
	require.NoError(t, err)
	for i := range ks {
		require.Equal(t, strings.Join([]string{itoa(ks[i]), itoa(vs[i])}, ","), lines[i])
	}
	require.Error(t, WriteCSV(filepath.Join(t.TempDir(), "no", "such", "dir.csv"), 5, 3, 9))
}

func itoa(v int64) string {
	return strconv.FormatInt(v, 10)
}
