package checkpoint

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/klauspost/compress/zstd"

	"github.com/tablerun/tablerun/vectorized"
)

// State file layout (little endian):
//
//	magic "TRSTATE" + format version byte (1)
//	per part: 'P', uint16 name length, name, uint64 payload length,
//	          payload = zstd(Arrow IPC stream of the part's batches)
//	trailer:  'E', uint32 number of parts
//
// The whole file's CRC32 (Castagnoli) and size are recorded in _metadata.

const stateMagic = "TRSTATE\x01"

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// partBuffer accumulates one part: an IPC stream written through a zstd
// encoder into memory.
type partBuffer struct {
	buf    bytes.Buffer
	enc    *zstd.Encoder
	ipcw   *ipc.Writer
	schema *arrow.Schema
}

// fileWriter is the vectorized.StateWriter handed to a task's snapshot
// function. It serialises every batch at once and keeps only compressed
// bytes.
type fileWriter struct {
	parts map[string]*partBuffer
	order []string

	// incremental checkpoints (set by Coordinator.Snapshot)
	id          int64
	incremental bool
	deltaOf     func(base int64) ([]fileRef, error)
	base        []fileRef // the chain this delta builds on; nil: full

	store storeTarget // store files (storefiles.go)
}

func newFileWriter() *fileWriter { return &fileWriter{parts: map[string]*partBuffer{}} }

var _ vectorized.IncrementalStateWriter = (*fileWriter)(nil)

// CheckpointID implements vectorized.IncrementalStateWriter.
func (w *fileWriter) CheckpointID() int64 { return w.id }

// Incremental implements vectorized.IncrementalStateWriter.
func (w *fileWriter) Incremental() bool { return w.incremental && w.deltaOf != nil }

// DeltaOf implements vectorized.IncrementalStateWriter.
func (w *fileWriter) DeltaOf(base int64) error {
	if !w.Incremental() {
		return fmt.Errorf("checkpoint %d cannot hold a delta (incremental checkpoints are off, or a savepoint)", w.id)
	}
	if len(w.order) > 0 {
		return fmt.Errorf("checkpoint %d: DeltaOf after the first Write", w.id)
	}
	chain, err := w.deltaOf(base)
	if err != nil {
		return err
	}
	w.base = chain
	return nil
}

// Write implements vectorized.StateWriter.
func (w *fileWriter) Write(part string, rec arrow.RecordBatch) error {
	if part == "" || len(part) > 0xffff {
		return fmt.Errorf("state part name %q: must have 1 to 65535 bytes", part)
	}
	if rec == nil {
		return fmt.Errorf("state part %s: nil record batch", part)
	}
	p := w.parts[part]
	if p == nil {
		p = &partBuffer{schema: rec.Schema()}
		enc, err := zstd.NewWriter(&p.buf, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest))
		if err != nil {
			return fmt.Errorf("state part %s: %w", part, err)
		}
		p.enc = enc
		p.ipcw = ipc.NewWriter(enc, ipc.WithSchema(p.schema))
		w.parts[part] = p
		w.order = append(w.order, part)
	} else if !p.schema.Equal(rec.Schema()) {
		return fmt.Errorf("state part %s: batch schema %s differs from the part's schema %s", part, rec.Schema(), p.schema)
	}
	if err := p.ipcw.Write(rec); err != nil {
		return fmt.Errorf("state part %s: %w", part, err)
	}
	return nil
}

// close ends every part's stream; it is safe to call more than once.
func (w *fileWriter) close() error {
	var first error
	for _, name := range w.order {
		p := w.parts[name]
		if p.ipcw != nil {
			if err := p.ipcw.Close(); err != nil && first == nil {
				first = fmt.Errorf("state part %s: %w", name, err)
			}
			p.ipcw = nil
		}
		if p.enc != nil {
			if err := p.enc.Close(); err != nil && first == nil {
				first = fmt.Errorf("state part %s: %w", name, err)
			}
			p.enc = nil
		}
	}
	return first
}

// writeTo writes the file content to out and returns its size and CRC.
func (w *fileWriter) writeTo(out io.Writer) (int64, uint32, error) {
	if err := w.close(); err != nil {
		return 0, 0, err
	}
	h := crc32.New(crcTable)
	cw := &countWriter{w: io.MultiWriter(out, h)}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if _, err := bw.WriteString(stateMagic); err != nil {
		return 0, 0, err
	}
	var hdr [11]byte
	for _, name := range w.order {
		p := w.parts[name]
		hdr[0] = 'P'
		binary.LittleEndian.PutUint16(hdr[1:3], uint16(len(name)))
		if _, err := bw.Write(hdr[:3]); err != nil {
			return 0, 0, err
		}
		if _, err := bw.WriteString(name); err != nil {
			return 0, 0, err
		}
		binary.LittleEndian.PutUint64(hdr[:8], uint64(p.buf.Len()))
		if _, err := bw.Write(hdr[:8]); err != nil {
			return 0, 0, err
		}
		if _, err := bw.Write(p.buf.Bytes()); err != nil {
			return 0, 0, err
		}
	}
	hdr[0] = 'E'
	binary.LittleEndian.PutUint32(hdr[1:5], uint32(len(w.order)))
	if _, err := bw.Write(hdr[:5]); err != nil {
		return 0, 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, 0, err
	}
	return cw.n, h.(hash.Hash32).Sum32(), nil
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

// section locates one part's payload inside a state file.
type section struct {
	name   string
	offset int64
	length int64
}

// parseStateFile checks the layout of a state file's content and returns
// its parts in file order.
func parseStateFile(data []byte) ([]section, error) {
	if len(data) < len(stateMagic) || string(data[:len(stateMagic)]) != stateMagic {
		return nil, errors.New("not a tablerun state file (bad header)")
	}
	pos := int64(len(stateMagic))
	n := int64(len(data))
	var out []section
	for {
		if pos >= n {
			return nil, errors.New("truncated state file (no trailer)")
		}
		switch data[pos] {
		case 'P':
			if pos+3 > n {
				return nil, errors.New("truncated state file")
			}
			nl := int64(binary.LittleEndian.Uint16(data[pos+1 : pos+3]))
			pos += 3
			if pos+nl+8 > n {
				return nil, errors.New("truncated state file")
			}
			name := string(data[pos : pos+nl])
			pos += nl
			pl := binary.LittleEndian.Uint64(data[pos : pos+8])
			pos += 8
			if pl > uint64(n-pos) {
				return nil, fmt.Errorf("truncated state file (part %s)", name)
			}
			out = append(out, section{name: name, offset: pos, length: int64(pl)})
			pos += int64(pl)
		case 'E':
			if pos+5 != n {
				return nil, errors.New("corrupt state file (bad trailer)")
			}
			if cnt := binary.LittleEndian.Uint32(data[pos+1:]); int(cnt) != len(out) {
				return nil, fmt.Errorf("corrupt state file (trailer counts %d parts, found %d)", cnt, len(out))
			}
			return out, nil
		default:
			return nil, fmt.Errorf("corrupt state file (bad section tag at byte %d)", pos)
		}
	}
}

// readPart decodes one part's payload and calls fn with each batch. A
// batch is valid only during fn; fn calls Retain to keep it.
func readPart(payload []byte, fn func(rec arrow.RecordBatch) error) error {
	dec, err := zstd.NewReader(bytes.NewReader(payload), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer dec.Close()
	rd, err := ipc.NewReader(dec)
	if err != nil {
		return err
	}
	defer rd.Release()
	for rd.Next() {
		if err := fn(rd.RecordBatch()); err != nil {
			return err
		}
	}
	return rd.Err()
}

// writeFileDurably creates path, writes it with write, fsyncs and closes it.
func writeFileDurably(path string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir fsyncs a directory so that entries created or renamed in it are
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
