package filesystem

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// The line formats (Config.Message): each line of a file is one message
// of a connectors/format format, as Flink's DeserializationSchemaAdapter
// reads a file for a DeserializationSchema. A changelog format's lines
// give rows of every kind.

// kindReader is a reader whose batches carry row kinds.
type kindReader interface {
	NextBatch() (vectorized.Batch, error)
}

// lineReader decodes the lines of one file with a format.Decoder.
type lineReader struct {
	br    *bufio.Reader
	name  string
	dec   format.Decoder
	rows  *format.Rows
	batch int
	line  int
	eof   bool
	long  []byte
}

func newLineReader(r io.Reader, name string, physical types.Schema, proj []int, f format.Format, batchSize int) (*lineReader, error) {
	dec, err := f.NewDecoder(physical, proj, nil)
	if err != nil {
		return nil, err
	}
	rows, err := format.NewRows(dec.Schema())
	if err != nil {
		return nil, err
	}
	if batchSize <= 0 {
		batchSize = 4096
	}
	return &lineReader{br: bufio.NewReaderSize(r, 256<<10), name: name, dec: dec, rows: rows, batch: batchSize}, nil
}

// readLine returns the next line without its line break ('\n' or "\r\n").
func (rd *lineReader) readLine() ([]byte, bool, error) {
	line, err := rd.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		rd.long = append(rd.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = rd.br.ReadSlice('\n')
			rd.long = append(rd.long, line...)
		}
		line = rd.long
	}
	if errors.Is(err, io.EOF) {
		rd.eof = true
		if len(line) == 0 {
			return nil, false, nil
		}
		err = nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", rd.name, err)
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n > 1 && line[n-2] == '\r' {
			line = line[:n-2]
		}
	}
	return line, true, nil
}

// NextBatch returns the next batch with its row kinds, io.EOF at the end.
func (rd *lineReader) NextBatch() (vectorized.Batch, error) {
	for rd.rows.Len() < rd.batch && !rd.eof {
		line, ok, err := rd.readLine()
		if err != nil {
			return vectorized.Batch{}, err
		}
		if !ok {
			break
		}
		rd.line++
		if err := rd.dec.Decode(line, rd.rows); err != nil {
			return vectorized.Batch{}, fmt.Errorf("%w (at %s:%d)", err, rd.name, rd.line)
		}
	}
	if rd.rows.Len() == 0 {
		rd.rows.Release()
		return vectorized.Batch{}, io.EOF
	}
	return rd.rows.Batch(), nil
}

// Next implements batchReader for readers that ignore row kinds.
func (rd *lineReader) Next() (arrow.RecordBatch, error) {
	b, err := rd.NextBatch()
	return b.Rec, err
}

// lineWriter writes rows as lines of a format.Encoder, with their kinds.
type lineWriter struct {
	w    *bufio.Writer
	enc  format.Encoder
	line []byte
}

func newLineWriter(w io.Writer, schema types.Schema, f format.Format) (*lineWriter, error) {
	enc, err := f.NewEncoder(schema)
	if err != nil {
		return nil, err
	}
	return &lineWriter{w: bufio.NewWriterSize(w, 64<<10), enc: enc}, nil
}

// Write writes the rows of rec as inserts.
func (w *lineWriter) Write(rec arrow.RecordBatch) error { return w.WriteKinds(rec, nil) }

// WriteKinds writes the rows of rec with their kinds (nil: all +I).
func (w *lineWriter) WriteKinds(rec arrow.RecordBatch, kinds []changelog.RowKind) error {
	for r := 0; r < int(rec.NumRows()); r++ {
		k := changelog.Insert
		if kinds != nil {
			k = kinds[r]
		}
		var err error
		if w.line, err = w.enc.Encode(w.line[:0], rec, r, k); err != nil {
			return err
		}
		w.line = append(w.line, '\n')
		if _, err := w.w.Write(w.line); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes buffered lines to the file.
func (w *lineWriter) Flush() error { return w.w.Flush() }
