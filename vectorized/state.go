package vectorized

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// Keyed state, checkpoints and parallel instances.
//
// A streaming pipeline runs P parallel instances (subtasks) of every keyed
// operator; an Exchange routes each row to the subtask that owns its key.
// Ownership goes through key groups, as in Flink: a key's hash picks one of
// MaxParallelism key groups, and subtask i of P owns a contiguous range of
// key groups. A snapshot records every keyed state row with its key group,
// so a checkpoint taken at one parallelism restores at another: each new
// subtask keeps the rows of the key groups it owns.

// DefaultMaxParallelism is the number of key groups (Flink's
// pipeline.max-parallelism default for small jobs).
const DefaultMaxParallelism = 128

// KeyGroup returns the key group of a key hash.
func KeyGroup(hash uint64, maxParallelism int) int {
	// Mix again so that hashes that differ only in high bits spread.
	h := hash ^ (hash >> 33)
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return int(h % uint64(maxParallelism))
}

// SubtaskOf returns the subtask that owns a key group (Flink's
// KeyGroupRangeAssignment: keyGroup * parallelism / maxParallelism).
func SubtaskOf(keyGroup, maxParallelism, parallelism int) int {
	return keyGroup * parallelism / maxParallelism
}

// Stateful is an operator (single- or multi-input) whose state is part of
// a checkpoint.
//
// SnapshotState is called on the operator's goroutine when a checkpoint
// barrier leaves the operator: after the operator has handled every row
// before the barrier and flushed whatever it emits on a barrier (a
// mini-batch bundle), before any row after it. It writes the whole state
// through w; it must not keep w.
//
// RestoreState is called once, after Open and before the first Process,
// when the job starts from a checkpoint or savepoint. r reads the parts
// written by every instance of the same operator at snapshot time (the
// parallelism may have changed); the operator keeps the keyed rows whose
// key group r.Owns, and any non-keyed state it needs.
type Stateful interface {
	SnapshotState(ctx context.Context, w StateWriter) error
	RestoreState(ctx context.Context, r StateReader) error
}

// StateWriter receives the state of one operator instance as Arrow
// record batches grouped into named parts (say "groups", "left", "right",
// "timers"). Every batch of one part has the same schema. In a keyed part
// the first column is named "key_group" and has type int32. The writer
// does not retain rec past Write (it serialises it at once).
type StateWriter interface {
	Write(part string, rec arrow.RecordBatch) error
}

// StateReader gives an operator instance the state it restores from.
type StateReader interface {
	// Read calls fn with each record batch of the named part written by
	// any instance of the operator, in a deterministic order (by the
	// writing subtask, then in write order). A part nobody wrote is not
	// an error: fn is simply never called.
	Read(part string, fn func(rec arrow.RecordBatch) error) error
	// Owns reports whether this instance owns the key group.
	Owns(keyGroup int) bool
	// Subtask and Parallelism describe this instance in the restored job.
	Subtask() int
	Parallelism() int
}

// CheckpointedSource is a Source that can report and restore its position
// (file and offset, sequence number), so that a restored job re-reads
// exactly the rows after the checkpoint.
//
// SnapshotPosition is called on the goroutine running Run, from inside a
// call of the source to Emit or EmitMarker, after the batch or marker of
// that call has been handed over: it writes the position just after that
// batch (so a source updates its counters before calling Emit).
// RestorePosition is called after Open and before Run.
type CheckpointedSource interface {
	Source
	SnapshotPosition(w StateWriter) error
	RestorePosition(r StateReader) error
}

// Incremental checkpoints (execution.checkpointing.incremental).
//
// An operator whose state is large and mostly unchanged between two
// checkpoints may write a delta instead of its whole state: only the keys
// changed since its previous snapshot, plus tombstones for the keys removed
// since. A delta builds on the operator instance's snapshot in an earlier
// checkpoint (its base), which must have completed; the checkpoint's
// metadata then references the base's files (Flink's shared state), and a
// restore presents the chain to the operator (LayeredStateReader).

// IncrementalStateWriter is implemented by the StateWriter of a checkpoint
// that may hold deltas. An operator that does not know it writes a full
// snapshot, as always.
type IncrementalStateWriter interface {
	StateWriter
	// CheckpointID returns the id of the checkpoint being written.
	CheckpointID() int64
	// Incremental reports whether this snapshot may be a delta: false for
	// savepoints (always self-contained) and when incremental checkpoints
	// are off.
	Incremental() bool
	// DeltaOf declares this snapshot a delta on top of the same operator
	// instance's snapshot in checkpoint base. Call it before the first
	// Write. It fails when base is not the instance's latest completed
	// checkpoint; the operator then writes a full snapshot.
	DeltaOf(base int64) error
}

// LayeredStateReader is implemented by a StateReader whose state may
// include deltas. Layers returns the layers to apply in order: the first
// reads the full snapshots, each later one the next deltas (of every
// writing instance whose chain is that long). A reader without deltas has
// one layer. Within one layer a key is written by at most one instance,
// and a delta's keys either have new state or a tombstone, never both;
// a key in a later layer replaces the same key of an earlier one.
type LayeredStateReader interface {
	StateReader
	Layers() []StateReader
}

// CheckpointListener is implemented by operators that want to learn the
// fate of their snapshots (incremental checkpoints build only on completed
// ones). The methods are called on the checkpoint coordinator's goroutine,
// not the operator's: an implementation records the id (atomically) and
// acts on it on its own goroutine, at its next snapshot.
type CheckpointListener interface {
	// NotifyCheckpointComplete reports that checkpoint (or savepoint) id
	// completed: its metadata is durable.
	NotifyCheckpointComplete(id int64)
	// NotifyCheckpointAborted reports that checkpoint (or savepoint) id
	// failed, timed out or was aborted.
	NotifyCheckpointAborted(id int64)
}

// Disk state (state.backend.type = 'rocksdb', vectorized/diskstate).
//
// An operator whose keyed state lives in an embedded store checkpoints
// the store's files instead of writing parts: the immutable ones (Pebble's
// tables) go once per job into the job's shared directory and every later
// checkpoint that still holds them references them (Flink's incremental
// RocksDB checkpoints), the others (the manifest) are copied into the
// checkpoint. Savepoints, and checkpoints with incremental checkpoints
// off, get the canonical parts instead, so that they restore under either
// backend.

// FileStateWriter is implemented by the StateWriter of an incremental
// checkpoint that can hold a store's files.
type FileStateWriter interface {
	IncrementalStateWriter
	// FileDir returns a path inside the checkpoint, not yet existing, for
	// the operator to write its store's checkpoint into (Pebble's
	// Checkpoint: hard links where it can).
	FileDir() (string, error)
	// AddFiles makes the files of FileDir part of the snapshot; those
	// shared reports are immutable and uniquely named by prefix (the
	// store's id): they move into the job's shared directory, once.
	AddFiles(prefix string, shared func(name string) bool) error
}

// StoreFiles are the store files one former instance of an operator
// checkpointed: by the name in the store, the path to read them from.
type StoreFiles struct {
	Subtask int
	Files   map[string]string
}

// FileStateReader is implemented by a StateReader whose checkpoint may
// hold store files.
type FileStateReader interface {
	StateReader
	// StoreFiles returns the store files of every former instance that
	// wrote some, in subtask order, and the parallelism they ran at.
	StoreFiles() ([]StoreFiles, int)
}
