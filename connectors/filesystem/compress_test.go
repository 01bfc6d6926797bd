package filesystem_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"
)

// TestCompressedTextFiles: csv and json files whose names end in a
// compression extension are decompressed when read, chosen by extension
// as Flink does; a plain file beside them is read as it is.
// testdata/rows.csv.bz2 was made once with `printf '1,alpha\n2,beta\n3,gamma\n' | bzip2 -9`
// (Go's standard library reads bzip2 but has no writer).
func TestCompressedTextFiles(t *testing.T) {
	text := []byte("1,alpha\n2,beta\n3,gamma\n")
	compressors := map[string]func(io.Writer) io.WriteCloser{
		".gz":      func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) },
		".deflate": func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) },
		".zst": func(w io.Writer) io.WriteCloser {
			z, err := zstd.NewWriter(w)
			require.NoError(t, err)
			return z
		},
		".xz": func(w io.Writer) io.WriteCloser {
			z, err := xz.NewWriter(w)
			require.NoError(t, err)
			return z
		},
	}
	bz2, err := os.ReadFile("testdata/rows.csv.bz2")
	require.NoError(t, err)
	for ext, mk := range compressors {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			var b bytes.Buffer
			w := mk(&b)
			_, err := w.Write(text)
			require.NoError(t, err)
			require.NoError(t, w.Close())
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.csv"+ext), b.Bytes(), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "b.csv.bz2"), bz2, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "c.csv"), []byte("4,delta\n"), 0o644))
			e := batchEnv(t)
			run(t, e, "CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = '"+dir+"', 'format' = 'csv')")
			require.Equal(t, []string{"1|alpha", "1|alpha", "2|beta", "2|beta", "3|gamma", "3|gamma", "4|delta"},
				printedRows(t, e, "SELECT * FROM t ORDER BY id, name"))
		})
	}
	// json lines, gzip with two members (concatenated files).
	dir := t.TempDir()
	var b bytes.Buffer
	for _, line := range []string{`{"id": 1, "name": "x"}` + "\n", `{"id": 2, "name": "y"}` + "\n"} {
		z := gzip.NewWriter(&b)
		_, _ = z.Write([]byte(line))
		require.NoError(t, z.Close())
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "part.json.gz"), b.Bytes(), 0o644))
	e := batchEnv(t)
	run(t, e, "CREATE TABLE j (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = '"+dir+"', 'format' = 'json')")
	require.Equal(t, []string{"1|x", "2|y"}, printedRows(t, e, "SELECT * FROM j ORDER BY id"))
	// A corrupt compressed file is an error naming it.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json.gz"), []byte("not gzip"), 0o644))
	err = runErr(e, "SELECT * FROM j")
	require.Error(t, err)
	require.Contains(t, err.Error(), "bad.json.gz")
}
