package filesystem

import (
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// decompress returns the text of a csv or json file: files whose name
// ends in a compression extension are decompressed, as Flink's
// StandardDeCompression chooses by extension (.deflate, .gz, .gzip, .bz2,
// .xz, .zst); any other file is read as it is. A gzip file may hold
// several members (concatenated files), as gunzip reads them.
func decompress(r io.Reader, name string) (io.ReadCloser, error) {
	ext := strings.ToLower(filepath.Ext(name))
	wrap := func(err error) error { return fmt.Errorf("reading %s: %w", name, err) }
	switch ext {
	case ".gz", ".gzip":
		z, err := gzip.NewReader(bufio.NewReaderSize(r, 64<<10))
		if err != nil {
			return nil, wrap(err)
		}
		return z, nil
	case ".deflate":
		// zlib-wrapped, as Java's InflaterInputStream reads it.
		z, err := zlib.NewReader(bufio.NewReaderSize(r, 64<<10))
		if err != nil {
			return nil, wrap(err)
		}
		return z, nil
	case ".bz2":
		return io.NopCloser(bzip2.NewReader(bufio.NewReaderSize(r, 64<<10))), nil
	case ".xz":
		z, err := xz.NewReader(bufio.NewReaderSize(r, 64<<10))
		if err != nil {
			return nil, wrap(err)
		}
		return io.NopCloser(z), nil
	case ".zst":
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, wrap(err)
		}
		return z.IOReadCloser(), nil
	}
	return io.NopCloser(r), nil
}
