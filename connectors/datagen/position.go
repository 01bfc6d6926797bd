package datagen

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpointed position (vectorized.CheckpointedSource).
//
// The non-keyed part "position" has one row per produced column ("gen":
// its index among the produced columns) plus a first row with gen = -1:
// "rows" is the number of rows emitted, "rng" the serialised state of the
// column's PCG random generator (the exact point of its random sequence,
// so a restored source produces the same random values an uninterrupted
// one would) and "seq" the next value of a 'sequence' column (NULL for
// random ones). Values from the clock (DATE, TIME, sequence timestamps,
// random timestamps with 'max-past') are read again when produced, as in
// Flink, and so differ from an uninterrupted run.
//
// datagen runs as a single instance: a position written by several
// instances is not supported.

var _ vectorized.CheckpointedSource = (*Source)(nil)

const positionPart = "position"

var positionSchema = arrow.NewSchema([]arrow.Field{
	{Name: "gen", Type: arrow.PrimitiveTypes.Int64},
	{Name: "rows", Type: arrow.PrimitiveTypes.Int64},
	{Name: "rng", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "seq", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// SnapshotPosition implements vectorized.CheckpointedSource.
func (s *Source) SnapshotPosition(w vectorized.StateWriter) error {
	gen := array.NewInt64Builder(vectorized.Mem)
	rows := array.NewInt64Builder(vectorized.Mem)
	rng := array.NewBinaryBuilder(vectorized.Mem, arrow.BinaryTypes.Binary)
	seq := array.NewInt64Builder(vectorized.Mem)
	defer func() {
		gen.Release()
		rows.Release()
		rng.Release()
		seq.Release()
	}()
	gen.Append(-1)
	rows.Append(s.done)
	rng.AppendNull()
	seq.AppendNull()
	for i, g := range s.gens {
		gen.Append(int64(i))
		rows.Append(s.done)
		if g.pcg == nil {
			rng.AppendNull()
		} else {
			b, err := g.pcg.MarshalBinary()
			if err != nil {
				return fmt.Errorf("datagen: snapshot position: %w", err)
			}
			rng.Append(b)
		}
		if g.seq == nil {
			seq.AppendNull()
		} else {
			seq.Append(*g.seq)
		}
	}
	cols := []arrow.Array{gen.NewArray(), rows.NewArray(), rng.NewArray(), seq.NewArray()}
	rec := array.NewRecordBatch(positionSchema, cols, int64(len(s.gens)+1))
	defer rec.Release()
	for _, c := range cols {
		c.Release()
	}
	if err := w.Write(positionPart, rec); err != nil {
		return fmt.Errorf("datagen: snapshot position: %w", err)
	}
	return nil
}

// RestorePosition implements vectorized.CheckpointedSource.
func (s *Source) RestorePosition(r vectorized.StateReader) error {
	writers := 0
	err := r.Read(positionPart, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(positionSchema) {
			return fmt.Errorf("datagen: restoring the position of %s: unexpected state schema %s", s.name, rec.Schema())
		}
		gen := rec.Column(0).(*array.Int64)
		rows := rec.Column(1).(*array.Int64)
		rng := rec.Column(2).(*array.Binary)
		seq := rec.Column(3).(*array.Int64)
		for i := 0; i < gen.Len(); i++ {
			g := gen.Value(i)
			if g == -1 {
				writers++
				if writers > 1 {
					return fmt.Errorf("not supported yet: restoring a datagen source written by several instances")
				}
				if s.total >= 0 && rows.Value(i) > s.total {
					return fmt.Errorf("datagen: restoring the position of %s: %d rows emitted of %d (the table changed?)", s.name, rows.Value(i), s.total)
				}
				s.done = rows.Value(i)
				continue
			}
			if g < 0 || g >= int64(len(s.gens)) {
				return fmt.Errorf("datagen: restoring the position of %s: column %d of %d (the query changed?)", s.name, g, len(s.gens))
			}
			gn := s.gens[g]
			if rng.IsValid(i) && gn.pcg != nil {
				if err := gn.pcg.UnmarshalBinary(rng.Value(i)); err != nil {
					return fmt.Errorf("datagen: restoring the position of %s: %w", s.name, err)
				}
			}
			if seq.IsValid(i) && gn.seq != nil {
				*gn.seq = seq.Value(i)
			}
		}
		return nil
	})
	return err
}
