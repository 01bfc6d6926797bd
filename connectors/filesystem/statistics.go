package filesystem

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// sampleBytes is how much of a line-format file EstimateRowCount reads.
const sampleBytes = 64 << 10

// EstimateRowCount is the row count the filesystem source reports to the
// planner (Flink's FileSystemTableSource#reportStatistics): for parquet
// the sum of the files' footer row counts, for the line formats (csv,
// json) each file's size divided by the mean line length of its first
// 64 KB, as Flink's csv and json formats estimate it. It is -1 (unknown)
// for compressed files, other formats or a path that cannot be read.
func EstimateRowCount(path, format string) int64 {
	files, err := ListFiles(path)
	if err != nil {
		return -1
	}
	var total int64
	for _, f := range files {
		n := estimateFile(f, format)
		if n < 0 {
			return -1
		}
		total += n
	}
	return total
}

func estimateFile(name, format string) int64 {
	switch format {
	case "parquet":
		r, err := file.OpenParquetFile(name, false)
		if err != nil {
			return -1
		}
		defer r.Close()
		return r.NumRows()
	case "csv", "json":
	default:
		return -1
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".gz", ".bz2", ".xz", ".deflate", ".zst":
		return -1
	}
	f, err := os.Open(name)
	if err != nil {
		return -1
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return -1
	}
	buf := make([]byte, min(st.Size(), sampleBytes))
	n, err := io.ReadFull(f, buf)
	if err != nil && n == 0 {
		if st.Size() == 0 {
			return 0
		}
		return -1
	}
	buf = buf[:n]
	lines := bytes.Count(buf, []byte{'\n'})
	if int64(n) == st.Size() {
		if n > 0 && buf[n-1] != '\n' {
			lines++
		}
		return int64(lines)
	}
	if lines == 0 {
		return 1
	}
	return st.Size() * int64(lines) / int64(n)
}
