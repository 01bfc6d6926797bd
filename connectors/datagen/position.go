package datagen

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors/internal/chunksplit"
	"github.com/tablerun/tablerun/vectorized"
)

// Checkpointed position (vectorized.CheckpointedSource).
//
// A split's position is the index of the next row of the stream it
// considers (split.go): it has emitted the rows of its chunks below it,
// and its random generators are at that row of the stream. The part
// "splits" has one row per split: "split", "splits", "chunk" (C), "next"
// and "inherited" (0 for the writer's own progress). The part "streams"
// holds the serialised state of the writer's PCG random generators at
// its "next" ("gen": the index among the produced columns). Values from
// the clock (DATE, TIME, sequence timestamps, random timestamps with
// 'max-past') are read again when produced, as in Flink, and so differ
// from an uninterrupted run.
//
// A restore at the same splits resumes each split at its position. A
// restore at another parallelism (or chunk size) starts every new split
// at the smallest former position, with the random state written there,
// and makes the rows of its chunks that no former split had emitted
// (drawing the others): as rows do not depend on the parallelism, the
// output is exactly that of an uninterrupted run. A split keeps the
// former progress it inherited in its snapshots until its own progress
// passes it, so that a second checkpoint still knows it. The part
// "position" of former versions (a single instance) is read too.

var _ vectorized.CheckpointedSource = (*Source)(nil)

const (
	splitsPart   = "splits"
	streamsPart  = "streams"
	positionPart = "position" // former versions
)

// splitPos is the progress of one split.
type splitPos = chunksplit.Pos

// position is a source's progress: next is the index of the next row of
// the stream; inherited lists the progress of former splits of another
// layout (after a restore at another parallelism or chunk size).
type position struct {
	next      int64
	inherited []splitPos
}

// pending returns the runs of rows in [lo, hi) to emit: those no
// inherited split had emitted.
func (p *position) pending(lo, hi int64) [][2]int64 {
	return chunksplit.Pending(p.inherited, lo, hi)
}

var splitsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "split", Type: arrow.PrimitiveTypes.Int64},
	{Name: "splits", Type: arrow.PrimitiveTypes.Int64},
	{Name: "chunk", Type: arrow.PrimitiveTypes.Int64},
	{Name: "next", Type: arrow.PrimitiveTypes.Int64},
	{Name: "inherited", Type: arrow.PrimitiveTypes.Int64},
}, nil)

var streamsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "split", Type: arrow.PrimitiveTypes.Int64},
	{Name: "splits", Type: arrow.PrimitiveTypes.Int64},
	{Name: "chunk", Type: arrow.PrimitiveTypes.Int64},
	{Name: "next", Type: arrow.PrimitiveTypes.Int64},
	{Name: "gen", Type: arrow.PrimitiveTypes.Int64},
	{Name: "rng", Type: arrow.BinaryTypes.Binary},
}, nil)

// legacySchema is the part "position" of former versions: a row with
// gen = -1 and the rows emitted, then one per produced column with its
// random state and the next value of a sequence.
var legacySchema = arrow.NewSchema([]arrow.Field{
	{Name: "gen", Type: arrow.PrimitiveTypes.Int64},
	{Name: "rows", Type: arrow.PrimitiveTypes.Int64},
	{Name: "rng", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "seq", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// own returns the split's own progress.
func (s *Source) own() splitPos {
	return splitPos{Split: int64(s.split), Splits: int64(max(s.splits, 1)), Chunk: s.chunk(), Next: s.pos.next}
}

func int64Array(vals []int64) arrow.Array {
	b := array.NewInt64Builder(vectorized.Mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

func writeRecord(w vectorized.StateWriter, part string, schema *arrow.Schema, cols []arrow.Array, rows int) error {
	rec := array.NewRecordBatch(schema, cols, int64(rows))
	defer rec.Release()
	for _, c := range cols {
		c.Release()
	}
	if err := w.Write(part, rec); err != nil {
		return fmt.Errorf("datagen: snapshot position: %w", err)
	}
	return nil
}

// SnapshotPosition implements vectorized.CheckpointedSource.
func (s *Source) SnapshotPosition(w vectorized.StateWriter) error {
	own := s.own()
	rows := []splitPos{own}
	for _, q := range s.pos.inherited {
		if q.Next <= own.Next {
			// Covers nothing at or after the position, which every
			// restore starts at or before.
			continue
		}
		rows = append(rows, q)
	}
	cols := make([][]int64, 5)
	for i, r := range rows {
		for c, v := range []int64{r.Split, r.Splits, r.Chunk, r.Next, int64(min(i, 1))} {
			cols[c] = append(cols[c], v)
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = int64Array(c)
	}
	if err := writeRecord(w, splitsPart, splitsSchema, arrs, len(rows)); err != nil {
		return err
	}
	var gens []int64
	rng := array.NewBinaryBuilder(vectorized.Mem, arrow.BinaryTypes.Binary)
	defer rng.Release()
	for i, g := range s.gens {
		b, err := g.pcg.MarshalBinary()
		if err != nil {
			return fmt.Errorf("datagen: snapshot position: %w", err)
		}
		gens = append(gens, int64(i))
		rng.Append(b)
	}
	n := len(gens)
	rep := func(v int64) arrow.Array {
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = v
		}
		return int64Array(vals)
	}
	return writeRecord(w, streamsPart, streamsSchema, []arrow.Array{rep(own.Split), rep(own.Splits), rep(own.Chunk),
		rep(own.Next), int64Array(gens), rng.NewArray()}, n)
}

// RestorePosition implements vectorized.CheckpointedSource. It is called
// after SetSplit and Open, before Run.
func (s *Source) RestorePosition(r vectorized.StateReader) error {
	seen := map[splitPos]bool{}
	var all []splitPos
	owned := map[splitPos]bool{} // writers' own progress
	states := map[splitPos]map[int64][]byte{}
	add := func(p splitPos, inherited bool) error {
		if p.Splits < 1 || p.Chunk < 1 || p.Split < 0 || p.Split >= p.Splits || p.Next < 0 {
			return fmt.Errorf("datagen: restoring the position of %s: bad split %+v", s.name, p)
		}
		if !inherited {
			owned[p] = true
		}
		if !seen[p] {
			seen[p] = true
			all = append(all, p)
		}
		return nil
	}
	state := func(p splitPos, g int64, b []byte) error {
		if g < 0 || g >= int64(len(s.gens)) {
			return fmt.Errorf("datagen: restoring the position of %s: column %d of %d (the query changed?)", s.name, g, len(s.gens))
		}
		if states[p] == nil {
			states[p] = map[int64][]byte{}
		}
		states[p][g] = b
		return nil
	}
	legacyWriters := 0
	err := r.Read(positionPart, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(legacySchema) {
			return fmt.Errorf("datagen: restoring the position of %s: unexpected state schema %s", s.name, rec.Schema())
		}
		gen := rec.Column(0).(*array.Int64)
		rows := rec.Column(1).(*array.Int64)
		rng := rec.Column(2).(*array.Binary)
		var p splitPos
		for i := 0; i < gen.Len(); i++ {
			g := gen.Value(i)
			if g == -1 {
				legacyWriters++
				if legacyWriters > 1 {
					return fmt.Errorf("not supported yet: restoring a datagen source written by several instances")
				}
				// A single instance had emitted every row below rows.
				p = splitPos{Split: 0, Splits: 1, Chunk: 1, Next: rows.Value(i)}
				if err := add(p, false); err != nil {
					return err
				}
				continue
			}
			if rng.IsValid(i) {
				if err := state(p, g, rng.Value(i)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = r.Read(splitsPart, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(splitsSchema) {
			return fmt.Errorf("datagen: restoring the position of %s: unexpected state schema %s", s.name, rec.Schema())
		}
		c := make([]*array.Int64, 5)
		for i := range c {
			c[i] = rec.Column(i).(*array.Int64)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			p := splitPos{Split: c[0].Value(i), Splits: c[1].Value(i), Chunk: c[2].Value(i), Next: c[3].Value(i)}
			if err := add(p, c[4].Value(i) != 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = r.Read(streamsPart, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(streamsSchema) {
			return fmt.Errorf("datagen: restoring the position of %s: unexpected state schema %s", s.name, rec.Schema())
		}
		c := make([]*array.Int64, 5)
		for i := range c {
			c[i] = rec.Column(i).(*array.Int64)
		}
		rng := rec.Column(5).(*array.Binary)
		for i := 0; i < int(rec.NumRows()); i++ {
			p := splitPos{Split: c[0].Value(i), Splits: c[1].Value(i), Chunk: c[2].Value(i), Next: c[3].Value(i)}
			if err := state(p, c[4].Value(i), rng.Value(i)); err != nil {
				return err
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
	me := s.own()
	// The same layout: one own progress per split of this parallelism and
	// chunk size, nothing inherited: resume at the own progress.
	same := len(all) == len(owned) && len(owned) == int(me.Splits)
	var resume *splitPos
	for _, p := range all {
		if p.Splits != me.Splits || p.Chunk != me.Chunk || !owned[p] {
			same = false
		}
		if p.Split == me.Split && resume == nil {
			q := p
			resume = &q
		}
	}
	from := splitPos{Next: -1}
	if same && resume != nil {
		from = *resume
	} else {
		// Another layout: start at the smallest former position (every
		// row below it was emitted) and skip what any former split
		// emitted.
		for _, p := range all {
			if owned[p] && (from.Next < 0 || p.Next < from.Next) {
				from = p
			}
		}
		if from.Next < 0 {
			return fmt.Errorf("datagen: restoring the position of %s: no split's own progress", s.name)
		}
		s.pos.inherited = all
	}
	st := states[from]
	for i, g := range s.gens {
		b, ok := st[int64(i)]
		if !ok {
			return fmt.Errorf("datagen: restoring the position of %s: no random state for column %d (the query changed?)", s.name, i)
		}
		if err := g.pcg.UnmarshalBinary(b); err != nil {
			return fmt.Errorf("datagen: restoring the position of %s: %w", s.name, err)
		}
	}
	if len(st) != len(s.gens) {
		return fmt.Errorf("datagen: restoring the position of %s: %d columns, the checkpoint has %d (the query changed?)", s.name, len(s.gens), len(st))
	}
	s.pos.next = from.Next
	s.origin = -1
	for _, p := range all {
		if owned[p] && (s.origin < 0 || p.Next < s.origin) {
			s.origin = p.Next
		}
	}
	return nil
}
