package nexmark

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

// readRows runs a source with read fields and returns its batches and
// rows.
func readRows(t *testing.T, cfg Config, schema types.Schema, proj []int, batch int, read [][]bool, split, splits int) ([]arrow.RecordBatch, [][]any) {
	t.Helper()
	src, err := NewSource(cfg, schema, proj, batch)
	require.NoError(t, err)
	src.SetReadFields(read)
	if splits > 1 {
		require.NoError(t, src.SetSplit(split, splits))
	}
	c := &collect{}
	require.NoError(t, src.Run(context.Background(), c))
	out := schema
	if proj != nil {
		out = types.Schema{}
		for _, p := range proj {
			out = append(out, schema[p])
		}
	}
	var all [][]any
	for _, r := range c.recs {
		require.True(t, r.Schema().Equal(src.Schema()))
		all = append(all, types.RecordRows(r, out)...)
	}
	return c.recs, all
}

// checkRead checks got against the full generation: read fields equal,
// unread fields NULL, the rows' own NULLs unchanged.
func checkRead(t *testing.T, full, got [][]any, read [][]bool) {
	t.Helper()
	require.Equal(t, len(full), len(got))
	for i := range full {
		for c := range full[i] {
			if c >= len(read) || read[c] == nil || full[i][c] == nil {
				require.Equal(t, full[i][c], got[i][c], "row %d column %d", i, c)
				continue
			}
			fr, gr := full[i][c].([]any), got[i][c].([]any)
			require.Len(t, gr, len(fr))
			for f := range fr {
				if read[c][f] {
					require.Equal(t, fr[f], gr[f], "row %d column %d field %d", i, c, f)
				} else {
					require.Nil(t, gr[f], "row %d column %d field %d", i, c, f)
				}
			}
		}
	}
}

// TestReadFieldsUnreadAreNull: unread fields come out NULL (all-NULL
// children of the declared type), read ones exactly as in a full
// generation, whatever the batch size and split.
func TestReadFieldsUnreadAreNull(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "4000"})
	full := rows(t, cfg, Schema(), nil, 0)
	// The plan of SELECT auction, COUNT(*), SUM(price) FROM bid GROUP BY
	// auction: bid 0, 2, 5, person 6, auction 5.
	read := [][]bool{nil, {false, false, false, false, false, false, true, false},
		{false, false, false, false, false, true, false, false, false, false},
		{true, false, true, false, false, true, false}}
	for _, batch := range []int{0, 7, 1000} {
		recs, got := readRows(t, cfg, Schema(), nil, batch, read, 0, 1)
		checkRead(t, full, got, read)
		for _, r := range recs {
			for c := 1; c < 4; c++ {
				st := r.Column(c).(*array.Struct)
				for f := 0; f < st.NumField(); f++ {
					ch := st.Field(f)
					if read[c][f] {
						require.Equal(t, st.NullN(), ch.NullN())
						continue
					}
					require.Equal(t, r.NumRows(), int64(ch.NullN()), "column %d field %d", c, f)
					if v, ok := ch.(interface{ Validate() error }); ok {
						require.NoError(t, v.Validate())
					}
					nulls := array.MakeArrayOfNull(memory.DefaultAllocator, ch.DataType(), ch.Len())
					require.True(t, array.Equal(nulls, ch), "column %d field %d", c, f)
					// Buffers of full length: values (8 bytes) or offsets (4 bytes, n+1).
					want := 8 * ch.Len()
					if ch.DataType().ID() == arrow.STRING {
						want = 4 * (ch.Len() + 1)
					}
					require.GreaterOrEqual(t, ch.Data().Buffers()[1].Len(), want)
					nulls.Release()
				}
			}
		}
	}
	// Splits: every split's rows are those of the full generation.
	var splitRows [][]any
	batches := make([][][]any, 3)
	for s := 0; s < 3; s++ {
		_, batches[s] = readRows(t, cfg, Schema(), nil, 300, read, s, 3)
	}
	for c := 0; ; c++ {
		s, j := c%3, c/3*300
		if j >= len(batches[s]) {
			break
		}
		splitRows = append(splitRows, batches[s][j:min(j+300, len(batches[s]))]...)
	}
	checkRead(t, full, splitRows, read)
}

// TestReadFieldsRandom: random read sets over projections and declared
// subsets; a nil entry, a wrong length or a non-ROW column reads all.
func TestReadFieldsRandom(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "2000"})
	full := rows(t, cfg, Schema(), nil, 0)
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 20; iter++ {
		read := make([][]bool, 4)
		for c := 1; c < 4; c++ {
			if r.IntN(4) == 0 {
				continue // nil: all
			}
			n := len(Schema()[c].Type.Fields)
			read[c] = make([]bool, n)
			for f := range read[c] {
				read[c][f] = r.IntN(2) == 0
			}
		}
		_, got := readRows(t, cfg, Schema(), nil, 1+r.IntN(500), read, 0, 1)
		checkRead(t, full, got, read)
	}
	// A projection (bid, event_type): entries follow the projection.
	read := [][]bool{{false, true, false, false, false, false, true}, nil}
	_, got := readRows(t, cfg, Schema(), []int{3, 0}, 0, read, 0, 1)
	var want [][]any
	for _, row := range full {
		want = append(want, []any{row[3], row[0]})
	}
	checkRead(t, want, got, read)
	// A declared subset of the fields, in another order.
	sub := types.Schema{
		{Name: "bid", Type: types.RowOf(types.Field{Name: "price", Type: types.BigIntT}, types.Field{Name: "url", Type: types.StringT},
			types.Field{Name: "dateTime", Type: types.TimestampOf(3)})},
	}
	part := rows(t, cfg, sub, nil, 0)
	read = [][]bool{{true, false, true}}
	_, got = readRows(t, cfg, sub, nil, 0, read, 0, 1)
	checkRead(t, part, got, read)
	// Ignored: wrong lengths, an entry for event_type, nothing unread.
	for _, read := range [][][]bool{
		{{true}, {true, false}},
		{{true, false}},
		nil,
	} {
		_, got := readRows(t, cfg, Schema(), nil, 0, read, 0, 1)
		require.Equal(t, full, got)
	}
	// No field read at all: the row's NULLs stay.
	none := [][]bool{nil, make([]bool, 8), make([]bool, 10), make([]bool, 7)}
	_, got = readRows(t, cfg, Schema(), nil, 0, none, 0, 1)
	checkRead(t, full, got, none)
}
