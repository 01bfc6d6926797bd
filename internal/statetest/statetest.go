// Package statetest has in-memory checkpoint state for tests of
// vectorized.Stateful operators and vectorized.CheckpointedSource
// sources: a Checkpoint collects the parts written by several former
// instances (serialised with Arrow IPC, as a real checkpoint is) and
// gives each restored instance a StateReader.
package statetest

import (
	"bytes"
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/tablerun/tablerun/vectorized"
)

// Checkpoint is the in-memory state of one operator or source.
type Checkpoint struct {
	writers []map[string][][]byte
}

// Writer returns the StateWriter of the next former instance.
func (c *Checkpoint) Writer() vectorized.StateWriter {
	w := &writer{parts: map[string][][]byte{}}
	c.writers = append(c.writers, w.parts)
	return w
}

type writer struct{ parts map[string][][]byte }

func (w *writer) Write(part string, rec arrow.RecordBatch) error {
	var buf bytes.Buffer
	iw := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := iw.Write(rec); err != nil {
		return err
	}
	if err := iw.Close(); err != nil {
		return err
	}
	w.parts[part] = append(w.parts[part], buf.Bytes())
	return nil
}

// Reader returns the StateReader of instance subtask of parallelism: it
// owns the key groups vectorized.SubtaskOf assigns it.
func (c *Checkpoint) Reader(subtask, parallelism int) vectorized.StateReader {
	return &reader{c: c, subtask: subtask, parallelism: parallelism}
}

type reader struct {
	c                    *Checkpoint
	subtask, parallelism int
}

func (r *reader) Read(part string, fn func(rec arrow.RecordBatch) error) error {
	for _, w := range r.c.writers {
		for _, b := range w[part] {
			ir, err := ipc.NewReader(bytes.NewReader(b))
			if err != nil {
				return err
			}
			for ir.Next() {
				if err := fn(ir.RecordBatch()); err != nil {
					ir.Release()
					return err
				}
			}
			err = ir.Err()
			ir.Release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *reader) Owns(kg int) bool {
	return vectorized.SubtaskOf(kg, vectorized.DefaultMaxParallelism, r.parallelism) == r.subtask
}

func (r *reader) Subtask() int     { return r.subtask }
func (r *reader) Parallelism() int { return r.parallelism }

// ErrStop is what a StopCollector's Emit returns after the snapshot.
var ErrStop = errors.New("statetest: stopped after the snapshot")

// StopCollector collects a source's batches; in its Stop-th Emit (when
// Stop > 0) it calls Snapshot, as the runner calls SnapshotPosition
// from inside Emit, and then fails with ErrStop, like a crash right after
// the checkpoint.
type StopCollector struct {
	Batches  []vectorized.Batch
	Stop     int
	Snapshot func() error
}

// Emit implements vectorized.Collector.
func (c *StopCollector) Emit(_ context.Context, b vectorized.Batch) error {
	c.Batches = append(c.Batches, b)
	if c.Stop > 0 && len(c.Batches) == c.Stop {
		if err := c.Snapshot(); err != nil {
			return err
		}
		return ErrStop
	}
	return nil
}

// EmitMarker implements vectorized.Collector.
func (c *StopCollector) EmitMarker(context.Context, vectorized.Marker) error { return nil }
