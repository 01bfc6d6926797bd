package nexmark

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors/internal/chunksplit"
	"github.com/tablerun/tablerun/vectorized"
)

// Checkpointed position (vectorized.CheckpointedSource).
//
// The stream of events is cut into chunks of one batch; split i of n
// emits chunks i, i+n, … in order, so the events a split has emitted are
// those of its chunks below its next event index. The non-keyed part
// "position" holds one row per split: "split", "splits", "batch" (the
// chunk size), "next" (the next event index) and "emitted". As an event
// is a pure function of the options and its index, a restored source
// simply generates the events nobody emitted before the checkpoint: with
// the same splits it resumes at its next index; with other splits (a
// rescaled job) every split skips the events some former split had
// emitted. A split keeps the rows it inherited from another split layout
// in its own snapshots until its own progress covers them, so that a
// second checkpoint after a rescale still knows them.

var _ vectorized.CheckpointedSource = (*Source)(nil)

// positionPart is the name of the part holding the positions.
const positionPart = "position"

// splitPos is the progress of one split.
type splitPos = chunksplit.Pos

// position is a source's progress: next is the index of the next event
// of its own split; inherited lists the progress of former splits of
// another layout (after a restore at another parallelism or batch size).
type position struct {
	next      int64
	inherited []splitPos
	restored  bool
}

// pending returns the runs of events in [lo, hi) to emit: those no
// inherited split had emitted.
func (p *position) pending(lo, hi int64) [][2]int64 {
	return chunksplit.Pending(p.inherited, lo, hi)
}

// firstChunk returns the first chunk of the split at or after the
// position.
func (s *Source) firstChunk() int64 {
	c := s.pos.next / int64(s.batch)
	for c%int64(s.splits) != int64(s.split) {
		c++
	}
	return c
}

// SnapshotPosition implements vectorized.CheckpointedSource.
func (s *Source) SnapshotPosition(w vectorized.StateWriter) error {
	own := splitPos{Split: int64(s.split), Splits: int64(s.splits), Chunk: int64(s.batch), Next: s.pos.next}
	rows := []splitPos{own}
	for _, q := range s.pos.inherited {
		if q.Split == own.Split && q.Splits == own.Splits && q.Chunk == own.Chunk && q.Next <= own.Next {
			continue // covered by the own progress
		}
		rows = append(rows, q)
	}
	cols := make([][]int64, 6)
	for i, r := range rows {
		emitted := int64(0)
		if i == 0 {
			emitted = s.emitted
		}
		for c, v := range []int64{r.Split, r.Splits, r.Chunk, r.Next, emitted, int64(min(i, 1))} {
			cols[c] = append(cols[c], v)
		}
	}
	names := []string{"split", "splits", "batch", "next", "emitted", "inherited"}
	fields := make([]arrow.Field, len(names))
	arrs := make([]arrow.Array, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64}
		b := array.NewInt64Builder(vectorized.Mem)
		b.AppendValues(cols[i], nil)
		arrs[i] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(rows)))
	defer rec.Release()
	if err := w.Write(positionPart, rec); err != nil {
		return fmt.Errorf("nexmark: snapshot position: %w", err)
	}
	return nil
}

// RestorePosition implements vectorized.CheckpointedSource. It is called
// after SetSplit and Open, before Run.
func (s *Source) RestorePosition(r vectorized.StateReader) error {
	seen := map[splitPos]bool{}
	var all []splitPos
	var emitted int64
	err := r.Read(positionPart, func(rec arrow.RecordBatch) error {
		if rec.NumCols() != 6 {
			return fmt.Errorf("nexmark: restoring the position: state of %d columns, want 6", rec.NumCols())
		}
		cols := make([]*array.Int64, 6)
		for i := range cols {
			a, ok := rec.Column(i).(*array.Int64)
			if !ok {
				return fmt.Errorf("nexmark: restoring the position: column %d is %s, want int64", i, rec.Column(i).DataType())
			}
			cols[i] = a
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			p := splitPos{Split: cols[0].Value(i), Splits: cols[1].Value(i), Chunk: cols[2].Value(i), Next: cols[3].Value(i)}
			if p.Splits < 1 || p.Chunk < 1 || p.Split < 0 || p.Split >= p.Splits || p.Next < 0 {
				return fmt.Errorf("nexmark: restoring the position: bad split %+v", p)
			}
			if cols[5].Value(i) == 0 && p.Split == int64(s.split) && p.Splits == int64(s.splits) {
				emitted += cols[4].Value(i)
			}
			if !seen[p] {
				seen[p] = true
				all = append(all, p)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return nil
	}
	s.pos = position{restored: true}
	s.emitted = emitted
	if len(all) == 1 && all[0].Split == int64(s.split) && all[0].Splits == int64(s.splits) && all[0].Chunk == int64(s.batch) {
		s.pos.next = all[0].Next // the same layout: resume
		return nil
	}
	// Another layout: skip what any former split emitted; the own split's
	// former progress, if any, is where it resumes.
	s.pos.inherited = all
	for _, p := range all {
		if p.Split == int64(s.split) && p.Splits == int64(s.splits) && p.Chunk == int64(s.batch) {
			s.pos.next = max(s.pos.next, p.Next)
		}
	}
	return nil
}
