package filesystem

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpointed position of the filesystem source
// (vectorized.CheckpointedSource).
//
// The non-keyed part "position" has a row per file read to its end
// ("finished" true) and one for the file being read ("finished" false,
// "rows": the rows emitted from it). A restored source skips the finished
// files and re-reads the current file from its beginning, dropping the
// rows emitted before the checkpoint (the readers parse text line by
// line, so a row count is exact where a byte offset into a buffered
// reader is not). Files are named by their path: files that appear in the
// directory after the checkpoint are read by the restored source; a file
// that was changed after it was (partly) read is not noticed.

var _ vectorized.CheckpointedSource = (*Source)(nil)

const positionPart = "position"

var positionSchema = arrow.NewSchema([]arrow.Field{
	{Name: "file", Type: arrow.BinaryTypes.String},
	{Name: "rows", Type: arrow.PrimitiveTypes.Int64},
	{Name: "finished", Type: arrow.FixedWidthTypes.Boolean},
}, nil)

// filePosition is a source's progress through its files.
type filePosition struct {
	finished map[string]bool
	order    []string // the finished files, in read order
	cur      string   // the file being read
	rows     int64    // rows of cur emitted so far (including before a restore)
	skip     map[string]int64
}

func (p *filePosition) isFinished(name string) bool { return p.finished[name] }

// begin starts reading file name.
func (p *filePosition) begin(name string) { p.cur, p.rows = name, 0 }

// finish records that file name was read to its end.
func (p *filePosition) finish(name string) {
	if p.finished == nil {
		p.finished = map[string]bool{}
	}
	if !p.finished[name] {
		p.finished[name] = true
		p.order = append(p.order, name)
	}
	delete(p.skip, name)
	p.cur, p.rows = "", 0
}

// take returns the rows of rec (the next batch of file name) to emit:
// nil when all of them were emitted before the restored checkpoint. It
// counts them as emitted.
func (p *filePosition) take(name string, rec arrow.RecordBatch) arrow.RecordBatch {
	n := rec.NumRows()
	if k := p.skip[name]; k > 0 {
		if n <= k {
			p.skip[name] -= n
			p.rows += n
			rec.Release()
			return nil
		}
		delete(p.skip, name)
		p.rows += k
		sliced := rec.NewSlice(k, n)
		rec.Release()
		rec, n = sliced, n-k
	}
	p.rows += n
	return rec
}

// SnapshotPosition implements vectorized.CheckpointedSource.
func (s *Source) SnapshotPosition(w vectorized.StateWriter) error {
	file := array.NewStringBuilder(vectorized.Mem)
	rows := array.NewInt64Builder(vectorized.Mem)
	fin := array.NewBooleanBuilder(vectorized.Mem)
	defer func() {
		file.Release()
		rows.Release()
		fin.Release()
	}()
	for _, name := range s.pos.order {
		file.Append(name)
		rows.Append(0)
		fin.Append(true)
	}
	if s.pos.cur != "" {
		file.Append(s.pos.cur)
		rows.Append(s.pos.rows)
		fin.Append(false)
	}
	cols := []arrow.Array{file.NewArray(), rows.NewArray(), fin.NewArray()}
	rec := array.NewRecordBatch(positionSchema, cols, int64(cols[0].Len()))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	if err := w.Write(positionPart, rec); err != nil {
		return fmt.Errorf("filesystem: snapshot position: %w", err)
	}
	return nil
}

// RestorePosition implements vectorized.CheckpointedSource. It is called
// after Open (which lists the files) and before Run.
func (s *Source) RestorePosition(r vectorized.StateReader) error {
	return r.Read(positionPart, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(positionSchema) {
			return fmt.Errorf("filesystem: restoring the position: unexpected state schema %s", rec.Schema())
		}
		file := rec.Column(0).(*array.String)
		rows := rec.Column(1).(*array.Int64)
		fin := rec.Column(2).(*array.Boolean)
		for i := 0; i < file.Len(); i++ {
			name := file.Value(i)
			if fin.Value(i) {
				s.pos.finish(name)
				continue
			}
			if s.pos.skip == nil {
				s.pos.skip = map[string]int64{}
			}
			if n := rows.Value(i); n > s.pos.skip[name] {
				s.pos.skip[name] = n
			}
		}
		return nil
	})
}
