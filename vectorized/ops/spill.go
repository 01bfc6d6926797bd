package ops

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/klauspost/compress/zstd"

	"github.com/tablerun/tablerun/vectorized"
)

// SpillConfig is the memory budget of an operator that buffers its input
// (HashAggregate, Sort, SortLimit) and where it spills when the budget is
// exceeded.
type SpillConfig struct {
	// Budget is the number of bytes of state the operator may hold before
	// it spills to disk; 0 or less means no limit (never spill).
	Budget int64
	// Dir is the directory spill files go to; "" means os.TempDir().
	Dir string
	// Uncompressed writes spill files without zstd compression
	// (table.exec.spill-compression.enabled = false).
	Uncompressed bool
}

// OpStats are the runtime figures an operator knows about itself, beyond
// the rows and batches the driver counts.
type OpStats struct {
	// PeakStateBytes is the largest estimated size of the operator's
	// in-memory state (groups and accumulators, buffered batches); 0 when
	// unknown.
	PeakStateBytes int64
	// SpillCount is the number of times the operator spilled its state.
	SpillCount int64
	// SpillFiles is the number of spill files written.
	SpillFiles int64
	// SpillBytes is the number of bytes written to spill files
	// (compressed).
	SpillBytes int64
	// LateRows is the number of late rows a window operator dropped.
	LateRows int64
}

// StatsReporter is implemented by operators that report OpStats. OpStats
// is read after the operator ran (or while it is not running).
type StatsReporter interface {
	OpStats() OpStats
}

// spiller owns the spill files of one operator: a private directory made
// on first use and removed with everything in it by cleanup.
type spiller struct {
	cfg   SpillConfig
	dir   string
	files []*spillFile
	stats OpStats
	seq   int
	mu    sync.Mutex
	enc   *zstd.Encoder // shared by the operator's files (EncodeAll), made on first use
}

// spillFile is one Arrow IPC stream compressed with zstd as a sequence of
// independent frames, one per 64 KB of stream (klauspost/compress): every
// open file buffers at most one frame's input, and the operator's files
// share one encoder, so 16 open partitions cost about 2 MB instead of the
// 14 MB of one streaming encoder each (860 KB at a 256 KB window) — memory
// the spill budget counts (spillWriterBytes). A zstd decoder reads
// concatenated frames as one stream. Written once, then read once or more.
type spillFile struct {
	path   string
	f      *os.File
	z      *frameWriter // nil when uncompressed or finished
	w      *ipc.Writer  // nil when finished
	zstd   bool
	rows   int64
	closed bool
	sp     *spiller
}

const (
	// spillFrameBytes is the stream input one zstd frame of a spill file
	// compresses.
	spillFrameBytes = 64 << 10
	// spillWriterBytes is what one open spill file holds in memory: its
	// frame buffer, the compressed frame and the IPC writer's scratch. The
	// shared encoder (about 700 KB) is counted once (spillEncoderBytes).
	spillWriterBytes  = 3 * spillFrameBytes
	spillEncoderBytes = 700 << 10
)

// zstd settings of spill files: fastest level, a window no larger than a
// frame, one goroutine, low memory.
var (
	spillEncoderOptions = []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(spillFrameBytes), zstd.WithLowerEncoderMem(true)}
	spillDecoderOptions = []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)}
)

// frameWriter compresses what is written to it in frames of
// spillFrameBytes with the spiller's shared encoder.
type frameWriter struct {
	f   io.Writer
	enc *zstd.Encoder
	buf []byte
	out []byte
}

func (w *frameWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = make([]byte, 0, spillFrameBytes)
		}
		k := min(len(p), spillFrameBytes-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == spillFrameBytes {
			if err := w.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (w *frameWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	w.out = w.enc.EncodeAll(w.buf, w.out[:0])
	w.buf = w.buf[:0]
	_, err := w.f.Write(w.out)
	return err
}

// Close writes the last frame and drops the buffers.
func (w *frameWriter) Close() error {
	err := w.flush()
	w.buf, w.out = nil, nil
	return err
}

// writerBytes is the memory of the open (unfinished) spill files and the
// shared encoder: what the spill budget counts besides the operator's
// own state.
func (s *spiller) writerBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, f := range s.files {
		if !f.closed {
			n += spillWriterBytes
		}
	}
	if s.enc != nil && n > 0 {
		n += spillEncoderBytes
	}
	return n
}

func (s *spiller) enabled() bool { return s.cfg.Budget > 0 }

// create opens a new spill file for records of schema.
func (s *spiller) create(schema *arrow.Schema) (*spillFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		base := s.cfg.Dir
		if base == "" {
			base = os.TempDir()
		}
		d, err := os.MkdirTemp(base, "tablerun-spill-")
		if err != nil {
			return nil, fmt.Errorf("creating the spill directory: %w", err)
		}
		s.dir = d
	}
	s.seq++
	path := filepath.Join(s.dir, fmt.Sprintf("%06d.arrow", s.seq))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating a spill file: %w", err)
	}
	sf := &spillFile{path: path, f: f, sp: s}
	var w io.Writer = f
	if !s.cfg.Uncompressed {
		if s.enc == nil {
			enc, err := zstd.NewWriter(nil, spillEncoderOptions...)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("creating a spill file: %w", err)
			}
			s.enc = enc
		}
		z := &frameWriter{f: f, enc: s.enc}
		sf.z, sf.zstd, w = z, true, z
	}
	sf.w = ipc.NewWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(vectorized.Mem))
	s.files = append(s.files, sf)
	s.stats.SpillFiles++
	return sf, nil
}

// write appends rec to the file.
func (f *spillFile) write(rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if err := f.w.Write(rec); err != nil {
		return fmt.Errorf("writing spill file: %w", err)
	}
	f.rows += rec.NumRows()
	return nil
}

// finish closes the writer; the file can be read afterwards.
func (f *spillFile) finish() error {
	if f.closed {
		return nil
	}
	f.closed = true
	if err := f.w.Close(); err != nil {
		return fmt.Errorf("finishing spill file: %w", err)
	}
	if f.z != nil {
		if err := f.z.Close(); err != nil {
			return fmt.Errorf("finishing spill file: %w", err)
		}
	}
	f.w, f.z = nil, nil
	if st, err := f.f.Stat(); err == nil {
		f.sp.mu.Lock()
		f.sp.stats.SpillBytes += st.Size()
		f.sp.mu.Unlock()
	}
	if err := f.f.Close(); err != nil {
		return fmt.Errorf("finishing spill file: %w", err)
	}
	return nil
}

// read calls fn with every record of the finished file in order. The
// record is valid only during the call (Retain it to keep it).
func (f *spillFile) read(fn func(rec arrow.RecordBatch) error) error {
	r, err := f.open()
	if err != nil {
		return err
	}
	defer r.close()
	for {
		rec, err := r.next()
		if err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// spillReader reads a finished spill file record by record.
type spillReader struct {
	f *os.File
	z *zstd.Decoder
	r *ipc.Reader
}

func (f *spillFile) open() (*spillReader, error) {
	if err := f.finish(); err != nil {
		return nil, err
	}
	rf, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("opening spill file: %w", err)
	}
	sr := &spillReader{f: rf}
	var in io.Reader = rf
	if f.zstd {
		z, err := zstd.NewReader(rf, spillDecoderOptions...)
		if err != nil {
			rf.Close()
			return nil, fmt.Errorf("reading spill file: %w", err)
		}
		sr.z, in = z, z
	}
	r, err := ipc.NewReader(in, ipc.WithAllocator(vectorized.Mem))
	if err != nil {
		sr.close()
		return nil, fmt.Errorf("reading spill file: %w", err)
	}
	sr.r = r
	return sr, nil
}

// next returns the next record (valid until the following call), or nil
// at the end.
func (r *spillReader) next() (arrow.RecordBatch, error) {
	if r.r.Next() {
		return r.r.RecordBatch(), nil
	}
	if err := r.r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading spill file: %w", err)
	}
	return nil, nil
}

func (r *spillReader) close() {
	if r.r != nil {
		r.r.Release()
	}
	if r.z != nil {
		r.z.Close()
	}
	r.f.Close()
}

// remove deletes one file early (after it was merged).
func (f *spillFile) remove() {
	f.abandon()
	os.Remove(f.path)
}

// abandon closes the file without finishing it properly.
func (f *spillFile) abandon() {
	if !f.closed {
		f.closed = true
		f.w.Close()
		if f.z != nil {
			f.z.Close()
		}
	}
	f.f.Close()
}

// cleanup removes every spill file and the directory.
func (s *spiller) cleanup() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files {
		f.abandon()
	}
	s.files = nil
	if s.enc != nil {
		s.enc.Close()
		s.enc = nil
	}
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	if err != nil {
		return fmt.Errorf("removing spill files: %w", err)
	}
	return nil
}

// recordBytes estimates the memory of the rows of rec (not of the whole
// buffers a slice points into).
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += arrayBytes(c)
	}
	return n
}

// arrayBytes estimates the memory of the elements of a (a slice counts
// only its own elements).
func arrayBytes(a arrow.Array) int64 {
	n := int64(a.Len())
	size := (n + 7) / 8 // validity
	switch dt := a.DataType().(type) {
	case *arrow.BooleanType:
		return size * 2
	case arrow.FixedWidthDataType:
		return size + n*int64(dt.BitWidth())/8
	}
	switch a.DataType().ID() {
	case arrow.STRING, arrow.BINARY:
		offs := a.Data().Buffers()[1]
		if offs == nil || n == 0 {
			return size
		}
		o := rawValues[int32](a)
		return size + 4*(n+1) + int64(o[n]-o[0])
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		o := rawValues[int64](a)
		if len(o) == 0 || n == 0 {
			return size
		}
		return size + 8*(n+1) + o[n] - o[0]
	}
	// Nested types: every buffer, children included (an overestimate for
	// slices).
	var walk func(d arrow.ArrayData) int64
	walk = func(d arrow.ArrayData) int64 {
		var t int64
		for _, b := range d.Buffers() {
			if b != nil {
				t += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			t += walk(c)
		}
		return t
	}
	return walk(a.Data())
}
