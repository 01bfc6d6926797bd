package connectors

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/filesystem"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

var _ TwoPhaseSink = (*filesystem.Sink)(nil)

// TestFilesystemSinkSubtask checks that the factory's filesystem sink is
// a TwoPhaseSink and puts SinkSpec.Subtask into its part file names.
func TestFilesystemSinkSubtask(t *testing.T) {
	dir := t.TempDir()
	tbl := table("o", []catalog.Column{col("a", types.IntT)}, map[string]string{"connector": "filesystem", "path": dir, "format": "csv"})
	f, err := Builtin().Lookup(tbl)
	require.NoError(t, err)
	ctx := context.Background()
	for _, sub := range []int{0, 3} {
		s, err := f.CreateSink(testCx(&bytes.Buffer{}), SinkSpec{Table: tbl, Subtask: sub})
		require.NoError(t, err)
		_, ok := s.(TwoPhaseSink)
		require.True(t, ok)
		require.NoError(t, s.Open(ctx))
		rec, err := types.BuildRecord(memory.DefaultAllocator, tbl.PhysicalSchema(), [][]any{{int32(sub)}})
		require.NoError(t, err)
		require.NoError(t, s.Write(ctx, vectorized.Batch{Rec: rec}))
		require.NoError(t, s.Finish(ctx))
		require.NoError(t, s.Close())
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	var subs []string
	for _, e := range entries {
		require.Regexp(t, `^part-[0-9a-f-]{36}-[03]-0$`, e.Name())
		subs = append(subs, e.Name()[len(e.Name())-3:])
	}
	require.ElementsMatch(t, []string{"0-0", "3-0"}, subs)
}
