package ops

import (
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Incremental snapshots of the group aggregates
// (execution.checkpointing.incremental).
//
// A group aggregate marks every group a batch or bundle touches (written,
// retracted, re-created after a TTL expiry). When the checkpoint allows a
// delta (vectorized.IncrementalStateWriter) and the operator's previous
// snapshot belongs to a completed checkpoint (CheckpointListener), the
// snapshot writes only the marked groups: those with state into the part
// "groups" as in a full snapshot, the others (retracted to nothing,
// expired) as tombstones — key group and key columns — into the part
// "groups-deleted". Groups that expire without being touched need no
// tombstone: the base keeps them with their access time, so they are
// expired again once restored.
//
// A full snapshot is written instead when the previous one is not known
// to have completed (failed, aborted, or no notification yet), after
// deltaMaxChain deltas, when the deltas since the last full snapshot
// would hold more rows than deltaMaxRatio times the groups, after a
// restore, and after the group table was rebuilt (state TTL compaction
// renumbers the groups). Savepoints are always full and leave the
// tracking alone.
//
// A restore reads the layers of the chain newest first and keeps, per
// key, the first row it sees (state or tombstone), so each key is loaded
// once with its latest state.

// StatePartGroupsDeleted is the keyed state part of the tombstones of a
// group aggregate's delta snapshot.
const StatePartGroupsDeleted = "groups-deleted"

var (
	// deltaMaxChain is the number of deltas after which a full snapshot
	// is written again (bounds the chain a restore reads).
	deltaMaxChain = 10
	// deltaMaxRatio bounds the rows of the deltas since the last full
	// snapshot, relative to the number of groups.
	deltaMaxRatio = 1.0
)

var (
	_ vectorized.CheckpointListener = (*GroupAggregate)(nil)
	_ vectorized.CheckpointListener = (*GlobalGroupAggregate)(nil)
)

// deltaTracker is the incremental snapshot bookkeeping of a group
// aggregate. Only pending and confirmed are touched by the coordinator's
// goroutine.
type deltaTracker struct {
	dirty     []bool // by group id: touched since the last snapshot
	base      int64  // checkpoint of the last tracked snapshot (0: none)
	chain     int    // deltas since the last full snapshot
	chainRows int    // rows of those deltas
	full      bool   // the next snapshot must be full

	pending   atomic.Int64 // = base, read by the listener
	confirmed atomic.Int64 // = base once its checkpoint completed
}

// snapshotKind is what a snapshot writes.
type snapshotKind int

const (
	snapshotFull        snapshotKind = iota // full, tracking untouched (savepoint, incremental off)
	snapshotTrackedFull                     // full, tracking restarts
	snapshotDelta                           // the touched groups only
)

// mark records that the groups ids (of a table of n groups) changed.
func (d *deltaTracker) mark(ids []uint32, n int) {
	if len(d.dirty) < n {
		d.dirty = append(d.dirty, make([]bool, n-len(d.dirty))...)
	}
	dirty := d.dirty
	for _, g := range ids {
		dirty[g] = true
	}
}

// renumbered records that the group ids changed (a table rebuild): the
// next snapshot is full.
func (d *deltaTracker) renumbered() {
	d.full = true
	d.dirty = nil
}

// begin decides the kind of the snapshot written through w for a table
// of n groups; for a delta it also declares the base to w.
func (d *deltaTracker) begin(w vectorized.StateWriter, n int) (snapshotKind, int64) {
	iw, ok := w.(vectorized.IncrementalStateWriter)
	if !ok || !iw.Incremental() {
		return snapshotFull, 0
	}
	id := iw.CheckpointID()
	kind := snapshotTrackedFull
	if !d.full && d.base > 0 && d.confirmed.Load() == d.base && d.chain < deltaMaxChain {
		touched := 0
		for _, t := range d.dirty[:min(len(d.dirty), n)] {
			if t {
				touched++
			}
		}
		if float64(d.chainRows+touched) <= deltaMaxRatio*float64(n) && iw.DeltaOf(d.base) == nil {
			kind = snapshotDelta
		}
	}
	d.pending.Store(id)
	return kind, id
}

// done records a written snapshot of the given kind (rows: the rows of a
// delta).
func (d *deltaTracker) done(kind snapshotKind, id int64, rows int) {
	switch kind {
	case snapshotFull:
		return
	case snapshotDelta:
		d.chain++
		d.chainRows += rows
	default:
		d.chain, d.chainRows = 0, 0
	}
	d.base = id
	d.full = false
	clear(d.dirty)
}

// split returns the touched groups below n, those live (upserts) and the
// others (tombstones).
func (d *deltaTracker) split(n int, live func(g uint32) bool) (up, del []uint32) {
	for g, t := range d.dirty[:min(len(d.dirty), n)] {
		if !t {
			continue
		}
		if live(uint32(g)) {
			up = append(up, uint32(g))
		} else {
			del = append(del, uint32(g))
		}
	}
	return up, del
}

func (d *deltaTracker) notifyComplete(id int64) {
	if id == d.pending.Load() {
		d.confirmed.Store(id)
	}
}

// NotifyCheckpointComplete implements vectorized.CheckpointListener: the
// next snapshot may be a delta on top of checkpoint id.
func (h *GroupAggregate) NotifyCheckpointComplete(id int64) { h.delta.notifyComplete(id) }

// NotifyCheckpointAborted implements vectorized.CheckpointListener: an
// aborted checkpoint is never confirmed, so the next snapshot is full.
func (h *GroupAggregate) NotifyCheckpointAborted(int64) {}

// NotifyCheckpointComplete implements vectorized.CheckpointListener: the
// next snapshot may be a delta on top of checkpoint id.
func (g *GlobalGroupAggregate) NotifyCheckpointComplete(id int64) { g.delta.notifyComplete(id) }

// NotifyCheckpointAborted implements vectorized.CheckpointListener: an
// aborted checkpoint is never confirmed, so the next snapshot is full.
func (g *GlobalGroupAggregate) NotifyCheckpointAborted(int64) {}

// aggTombstones builds the "groups-deleted" record of groups (keys of the
// group table in tk); names are the key columns.
func aggTombstones(tk *aggKeys, groups []uint32, names []string) (arrow.RecordBatch, error) {
	n := len(groups)
	keys, err := tk.gather(groups)
	if err != nil {
		return nil, err
	}
	cols := []arrow.Array{aggKeyGroups(keys, n)}
	cols = append(cols, keys...)
	defer releaseArrays(cols)
	fields := []arrow.Field{{Name: "key_group", Type: arrow.PrimitiveTypes.Int32}}
	for i, k := range keys {
		fields = append(fields, arrow.Field{Name: names[i], Type: k.DataType(), Nullable: true})
	}
	return NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))
}

// writeGroupChunks writes groups in records of at most aggStateChunk rows.
func writeGroupChunks(w vectorized.StateWriter, part string, groups []uint32, record func(groups []uint32) (arrow.RecordBatch, error)) error {
	for lo := 0; lo < len(groups); lo += aggStateChunk {
		rec, err := record(groups[lo:min(lo+aggStateChunk, len(groups))])
		if err != nil {
			return err
		}
		err = w.Write(part, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// chainSeen remembers the keys a layered restore has seen.
type chainSeen struct {
	nk    int
	table agg.GroupTable
	seen  []bool
	ids   []uint32
}

// fresh returns the owned rows of rec (key group, then nk key columns)
// whose key no newer layer had, and records their keys; the caller
// releases the result.
func (c *chainSeen) fresh(rec arrow.RecordBatch, r vectorized.StateReader) (arrow.RecordBatch, error) {
	own, err := aggOwnedRows(rec, r)
	if err != nil {
		return nil, err
	}
	defer own.Release()
	n := int(own.NumRows())
	if int(own.NumCols()) < 1+c.nk {
		return nil, fmt.Errorf("internal: keyed state part of %d columns for %d keys", own.NumCols(), c.nk)
	}
	c.ids = resize(c.ids, n)
	if c.nk == 0 {
		clear(c.ids)
	} else {
		keys := own.Columns()[1 : 1+c.nk]
		if c.table == nil {
			kts := make([]arrow.DataType, c.nk)
			for i, k := range keys {
				kts[i] = k.DataType()
			}
			if c.table, err = agg.NewGroupTable(kts); err != nil {
				return nil, err
			}
		}
		if err := c.table.Insert(keys, n, c.ids); err != nil {
			return nil, err
		}
	}
	groups := 1
	if c.table != nil {
		groups = c.table.Len()
	}
	if len(c.seen) < groups {
		c.seen = append(c.seen, make([]bool, groups-len(c.seen))...)
	}
	idx := make([]int32, 0, n)
	for i, id := range c.ids {
		if !c.seen[id] {
			c.seen[id] = true
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == n {
		own.Retain()
		return own, nil
	}
	return Gather(own, idx, nil)
}

// readGroupChain calls load with the "groups" rows to restore from r: of
// a plain reader all of them; of a chain of full snapshot and deltas, for
// every owned key the row of the newest layer that has the key, unless
// that is a tombstone. nk is the number of key columns.
func readGroupChain(r vectorized.StateReader, nk int, load func(rec arrow.RecordBatch) error) error {
	var layers []vectorized.StateReader
	if lr, ok := r.(vectorized.LayeredStateReader); ok {
		layers = lr.Layers()
	}
	if len(layers) <= 1 {
		return r.Read(StatePartGroups, load)
	}
	seen := &chainSeen{nk: nk}
	for i := len(layers) - 1; i >= 0; i-- {
		if err := layers[i].Read(StatePartGroupsDeleted, func(rec arrow.RecordBatch) error {
			rows, err := seen.fresh(rec, r)
			if err != nil {
				return err
			}
			rows.Release()
			return nil
		}); err != nil {
			return err
		}
		if err := layers[i].Read(StatePartGroups, func(rec arrow.RecordBatch) error {
			rows, err := seen.fresh(rec, r)
			if err != nil {
				return err
			}
			defer rows.Release()
			if rows.NumRows() == 0 {
				return nil
			}
			return load(rows)
		}); err != nil {
			return err
		}
	}
	return nil
}
