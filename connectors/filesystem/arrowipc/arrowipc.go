// Package arrowipc is tablerun's 'arrow' format of the filesystem
// connector (an extension: Flink has no Arrow file format): Arrow IPC
// files, written in the IPC file format (random access, `ARROW1` magic)
// and read in the file or the stream format, whichever a file holds.
//
// Batches are written in tablerun's own Arrow layout (core/types.ArrowType),
// so reading back its own files moves no value; files from other tools
// are matched to the table's columns by name (exactly, else ignoring
// case; missing columns read as NULL) and converted to the declared types
// as the parquet format does. 'arrow.compression' = 'zstd' or 'lz4'
// compresses the buffers (IPC body compression).
package arrowipc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/core/types"
)

// Options are the 'arrow.*' options of a table.
type Options struct {
	// Compression is arrow.compression: "", "zstd" or "lz4".
	Compression string
}

// OptionKeys are the table option keys of the format.
func OptionKeys() []string { return []string{"arrow.compression"} }

// ParseOptions reads the format options of a table.
func ParseOptions(opts map[string]string) (Options, error) {
	var o Options
	if v, ok := opts["arrow.compression"]; ok {
		switch c := strings.ToLower(strings.TrimSpace(v)); c {
		case "none", "uncompressed":
		case "zstd", "lz4":
			o.Compression = c
		default:
			return o, fmt.Errorf("Unsupported value '%s' for 'arrow.compression'. Supported values are [none, zstd, lz4].", v)
		}
	}
	return o, nil
}

// Writer writes record batches into one Arrow IPC file.
type Writer struct {
	fw     *ipc.FileWriter
	cw     *countWriter
	schema *arrow.Schema
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// NewWriter starts an Arrow IPC file on w for rows of schema.
func NewWriter(w io.Writer, schema types.Schema, opts Options) (*Writer, error) {
	as, err := types.ArrowSchema(schema)
	if err != nil {
		return nil, err
	}
	cw := &countWriter{w: w}
	o := []ipc.Option{ipc.WithSchema(as), ipc.WithAllocator(memory.DefaultAllocator)}
	switch opts.Compression {
	case "zstd":
		o = append(o, ipc.WithZstd())
	case "lz4":
		o = append(o, ipc.WithLZ4())
	}
	fw, err := ipc.NewFileWriter(cw, o...)
	if err != nil {
		return nil, fmt.Errorf("arrow writer: %w", err)
	}
	return &Writer{fw: fw, cw: cw, schema: as}, nil
}

// Write appends a batch.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	// The table's schema, whatever the names and nullability the input
	// batches carry (same layout).
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := parquet.Relabel(c.Data(), w.schema.Field(i).Type)
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecordBatch(w.schema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	defer out.Release()
	if err := w.fw.Write(out); err != nil {
		return fmt.Errorf("arrow writer: %w", err)
	}
	return nil
}

// Flush does nothing: the file is complete when closed (footer).
func (w *Writer) Flush() error { return nil }

// Size is the bytes written so far.
func (w *Writer) Size() int64 { return w.cw.n }

// Close writes the footer.
func (w *Writer) Close() error {
	if err := w.fw.Close(); err != nil {
		return fmt.Errorf("arrow writer: %w", err)
	}
	return nil
}

// Reader reads the projected columns of one Arrow IPC file or stream.
type Reader struct {
	name  string
	next  func() (arrow.RecordBatch, error)
	close func()
	out   *arrow.Schema
	src   []int // per output column: index in the file's batches, -1: missing
	mem   memory.Allocator
}

var fileMagic = []byte("ARROW1")

// NewReader opens an Arrow IPC file (ReaderAt) or stream for a scan.
func NewReader(r io.ReaderAt, size int64, name string, physical types.Schema, proj []int) (*Reader, error) {
	mem := memory.DefaultAllocator
	if proj == nil {
		proj = make([]int, len(physical))
		for i := range proj {
			proj[i] = i
		}
	}
	outT := make(types.Schema, len(proj))
	for i, p := range proj {
		outT[i] = physical[p]
	}
	out, err := types.ArrowSchema(outT)
	if err != nil {
		return nil, err
	}
	rd := &Reader{name: name, out: out, mem: mem}
	head := make([]byte, len(fileMagic))
	n, _ := r.ReadAt(head, 0)
	var fileSchema *arrow.Schema
	if n == len(fileMagic) && bytes.Equal(head, fileMagic) {
		fr, err := ipc.NewFileReader(readerAtSeeker{r: r, size: size}, ipc.WithAllocator(mem))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		fileSchema = fr.Schema()
		i := 0
		rd.next = func() (arrow.RecordBatch, error) {
			if i >= fr.NumRecords() {
				return nil, io.EOF
			}
			rec, err := fr.RecordBatch(i)
			i++
			return rec, err
		}
		rd.close = func() { _ = fr.Close() }
	} else {
		sr, err := ipc.NewReader(bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 256<<10), ipc.WithAllocator(mem))
		if err != nil {
			return nil, fmt.Errorf("reading %s: not an Arrow IPC file or stream: %w", name, err)
		}
		fileSchema = sr.Schema()
		rd.next = func() (arrow.RecordBatch, error) {
			if !sr.Next() {
				if err := sr.Err(); err != nil {
					return nil, err
				}
				return nil, io.EOF
			}
			rec := sr.RecordBatch()
			rec.Retain()
			return rec, nil
		}
		rd.close = sr.Release
	}
	rd.src = make([]int, len(outT))
	for i, f := range outT {
		rd.src[i] = -1
		for j, ff := range fileSchema.Fields() {
			if ff.Name == f.Name {
				rd.src[i] = j
				break
			}
		}
		if rd.src[i] < 0 {
			for j, ff := range fileSchema.Fields() {
				if strings.EqualFold(ff.Name, f.Name) {
					rd.src[i] = j
					break
				}
			}
		}
	}
	return rd, nil
}

type readerAtSeeker struct {
	r    io.ReaderAt
	size int64
	off  int64
}

func (s readerAtSeeker) ReadAt(p []byte, off int64) (int, error) { return s.r.ReadAt(p, off) }

func (s readerAtSeeker) Read(p []byte) (int, error) {
	return 0, fmt.Errorf("arrow file: sequential read")
}

func (s readerAtSeeker) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		return off, nil
	case io.SeekEnd:
		return s.size + off, nil
	}
	return 0, fmt.Errorf("arrow file: seek whence %d", whence)
}

// Next returns the next batch of the projected columns, io.EOF at the end.
func (rd *Reader) Next() (arrow.RecordBatch, error) {
	for {
		rec, err := rd.next()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", rd.name, err)
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		cols := make([]arrow.Array, len(rd.out.Fields()))
		for i, f := range rd.out.Fields() {
			if rd.src[i] < 0 {
				cols[i] = array.MakeArrayOfNull(rd.mem, f.Type, int(rec.NumRows()))
				continue
			}
			c, err := parquet.Conform(rd.mem, rec.Column(rd.src[i]), f.Type)
			if err != nil {
				for _, d := range cols[:i] {
					d.Release()
				}
				rec.Release()
				return nil, fmt.Errorf("reading %s, column %s: %w", rd.name, f.Name, err)
			}
			cols[i] = c
		}
		n := rec.NumRows()
		rec.Release()
		out := array.NewRecordBatch(rd.out, cols, n)
		for _, c := range cols {
			c.Release()
		}
		return out, nil
	}
}

// Close releases the reader.
func (rd *Reader) Close() error {
	if rd.close != nil {
		rd.close()
		rd.close = nil
	}
	return nil
}
