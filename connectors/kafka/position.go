package kafka

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpointed position of the source (vectorized.CheckpointedSource).
//
// The non-keyed part "offsets" has a row per partition the instance owns:
// topic, partition and the next offset to read. A restored instance reads
// every instance's rows and keeps the partitions it owns at the restored
// parallelism (OwnerOf), so a checkpoint taken at one parallelism resumes
// at another; partitions no checkpoint row names (created since) start at
// their earliest offset.

const offsetsPart = "offsets"

var offsetsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "topic", Type: arrow.BinaryTypes.String},
	{Name: "partition", Type: arrow.PrimitiveTypes.Int32},
	{Name: "offset", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// SnapshotPosition implements vectorized.CheckpointedSource.
func (s *Source) SnapshotPosition(w vectorized.StateWriter) error {
	var tps []TopicPartition
	pos := s.pos
	if !s.started && s.restored != nil && len(pos) == 0 {
		pos = s.restored
	}
	for tp := range pos {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	topic := array.NewStringBuilder(vectorized.Mem)
	part := array.NewInt32Builder(vectorized.Mem)
	off := array.NewInt64Builder(vectorized.Mem)
	defer func() {
		topic.Release()
		part.Release()
		off.Release()
	}()
	for _, tp := range tps {
		topic.Append(tp.Topic)
		part.Append(tp.Partition)
		off.Append(pos[tp])
	}
	if s.commit != nil {
		s.commit.remember(w, tps, pos)
	}
	cols := []arrow.Array{topic.NewArray(), part.NewArray(), off.NewArray()}
	rec := array.NewRecordBatch(offsetsSchema, cols, int64(len(tps)))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	if err := w.Write(offsetsPart, rec); err != nil {
		return fmt.Errorf("kafka: snapshot offsets: %w", err)
	}
	return nil
}

// RestorePosition implements vectorized.CheckpointedSource.
func (s *Source) RestorePosition(r vectorized.StateReader) error {
	restored := map[TopicPartition]int64{}
	err := r.Read(offsetsPart, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(offsetsSchema) {
			return fmt.Errorf("kafka: restore: unexpected offsets schema %s", rec.Schema())
		}
		topic := rec.Column(0).(*array.String)
		part := rec.Column(1).(*array.Int32)
		off := rec.Column(2).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			tp := TopicPartition{topic.Value(i), part.Value(i)}
			if OwnerOf(tp, s.count) == s.index {
				restored[tp] = off.Value(i)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.restored = restored
	return nil
}
