package ops

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// The window join on the disk state backend (state.backend.type =
// 'rocksdb', vectorized/diskstate).
//
// The buffered batches of each side are a cache in front of the store:
// a batch is only buffered; when the buffers outgrow their share of the
// memory budget (taskmanager.memory.managed.size), and at every
// checkpoint barrier, every buffered row goes to the store in one write
// batch and the buffers start empty. When the watermark passes a
// window's end, its stored rows of both sides are read (one range per
// key group and side, the key groups without rows skipped by seeking),
// put in arrival order before the window's buffered rows, and the window
// is joined as on the heap; its ranges are then deleted (range deletes).
//
// Store rows: key = key group (of the keys the Exchange routes by), 'L'
// or 'R' (the side), window_end (8 bytes, big-endian with the sign bit
// flipped), the batch's number (the spill's number and the buffered
// batch's place in it, 8 bytes big-endian) and the row's place in the
// batch (4 bytes): the arrival order, and the batches the rows came in,
// which a fired window joins one by one as the heap does (an outer join's
// output order depends on them); value = the encoded row.
//
// Checkpoints: an incremental checkpoint holds the store's files, the
// watermarks (part "markers") and the next spill's number (part
// "window_seq"); a savepoint or a checkpoint with incremental checkpoints
// off writes the canonical parts "left" and "right" (time_join_state.go),
// read from the store a window at a time, so that it restores under
// either backend.

// storeStateJoinSides are the state bytes of the window join's sides.
var storeStateJoinSides = [2]byte{'L', 'R'}

// windowJoinDisk is a window join's disk state.
type windowJoinDisk struct {
	windowDisk // the store, the spill number, the windows in the store (by end)
	colTypes   [2][]arrow.DataType
}

// windowJoinHead appends the key prefix of a window's rows of side in key
// group kg.
func windowJoinHead(buf []byte, kg, side int, end int64) []byte {
	buf = diskstate.Key(buf, kg, storeStateJoinSides[side], nil)
	return appendOrdered(buf, end)
}

const windowJoinHeadLen = 3 + 8

// SetDiskState keeps the buffered rows in the disk backend, in a store
// named name (the task). Call before Open.
func (j *WindowJoin) SetDiskState(b *diskstate.Backend, name string) {
	j.disk = &windowJoinDisk{windowDisk: windowDisk{diskStore: diskStore{backend: b, name: name}}}
}

// DiskEvictions returns how often the buffered rows went to the store.
func (j *WindowJoin) DiskEvictions() int {
	if j.disk == nil {
		return 0
	}
	return j.disk.evictions
}

// DiskBytes returns the bytes the join's store takes on disk (0 with the
// heap backend).
func (j *WindowJoin) DiskBytes() uint64 {
	if j.disk == nil || j.disk.store == nil {
		return 0
	}
	return j.disk.store.DiskBytes()
}

func (j *WindowJoin) openDisk() error {
	d := j.disk
	if d.store != nil {
		return nil
	}
	for side, s := range [2]*arrow.Schema{j.spec.Join.Left, j.spec.Join.Right} {
		d.colTypes[side] = nil
		for _, f := range s.Fields() {
			d.colTypes[side] = append(d.colTypes[side], f.Type)
		}
		if err := diskstate.CheckTypes(d.colTypes[side]); err != nil {
			return fmt.Errorf("not supported yet: state.backend.type 'rocksdb' for WindowJoin: %w", err)
		}
	}
	if d.onDisk == nil {
		d.onDisk = map[[2]int64]bool{}
		d.loaded = map[[2]int64]map[uint32]uint64{}
	}
	return d.openStore()
}

// bufferedBytes is the memory of the buffered batches.
func (j *WindowJoin) bufferedBytes() int64 {
	var n int64
	for _, buf := range j.bufs {
		for _, bs := range buf {
			for _, b := range bs {
				n += recBytes(b.Rec)
			}
		}
	}
	return n
}

// spillDisk writes every buffered row into the store in one write batch
// and empties the buffers.
func (j *WindowJoin) spillDisk() error {
	d := j.disk
	if len(j.bufs[0]) == 0 && len(j.bufs[1]) == 0 {
		return nil
	}
	b := d.store.NewBatch()
	var key, val []byte
	for side, buf := range j.bufs {
		batch := d.epoch << 32
		for _, end := range sortedEnds(buf) {
			for _, bt := range buf[end] {
				kgs := keyGroupsOf(bt.Rec, j.spec.HashKeys[side])
				cols := bt.Rec.Columns()
				batch++
				for i, kg := range kgs {
					key = windowJoinHead(key[:0], int(kg), side, end)
					key = binary.BigEndian.AppendUint64(key, batch)
					key = binary.BigEndian.AppendUint32(key, uint32(i))
					var err error
					if val, err = diskstate.AppendRow(val[:0], cols, i); err == nil {
						err = b.Set(key, val)
					}
					if err != nil {
						b.Discard()
						return err
					}
				}
			}
			d.onDisk[[2]int64{0, end}] = true
		}
	}
	if err := b.Commit(); err != nil {
		return err
	}
	d.epoch++
	d.evictions++
	for side := range j.bufs {
		clear(j.bufs[side])
	}
	return nil
}

// maybeSpill spills the buffers when they outgrew their budget (before a
// batch).
func (j *WindowJoin) maybeSpill() error {
	if err := j.openDisk(); err != nil {
		return err
	}
	if j.bufferedBytes() <= j.disk.budget {
		return nil
	}
	return j.spillDisk()
}

// readSide returns the stored rows of side in the window ending at end,
// in arrival order, one record per buffered batch they came in (the
// heap's join sees the same batches), and the key groups holding them.
func (j *WindowJoin) readSide(side int, end int64) ([]arrow.RecordBatch, []int, error) {
	d := j.disk
	dec, err := diskstate.NewDecoder(vectorized.Mem, d.colTypes[side])
	if err != nil {
		return nil, nil, err
	}
	defer dec.Release()
	it, err := d.store.NewIter()
	if err != nil {
		return nil, nil, err
	}
	var seqs [][2]uint64
	var kgs []int
	var head []byte
	for kg := 0; kg < vectorized.DefaultMaxParallelism; {
		head = windowJoinHead(head[:0], kg, side, end)
		ok := it.SeekGE(head)
		if !ok {
			break
		}
		if k := it.Key(); !bytes.HasPrefix(k, head) {
			if next := diskstate.KeyGroupOf(k); next > kg {
				kg = next
			} else {
				kg++
			}
			continue
		}
		kgs = append(kgs, kg)
		for ; ok && bytes.HasPrefix(it.Key(), head); ok = it.Next() {
			k := it.Key()
			if len(k) != windowJoinHeadLen+12 {
				it.Close()
				return nil, nil, fmt.Errorf("corrupt disk state of %s", d.name)
			}
			v, err := it.Value()
			if err == nil {
				_, err = dec.Append(v)
			}
			if err != nil {
				it.Close()
				return nil, nil, err
			}
			seqs = append(seqs, [2]uint64{binary.BigEndian.Uint64(k[windowJoinHeadLen:]), uint64(binary.BigEndian.Uint32(k[windowJoinHeadLen+8:]))})
		}
		kg++
	}
	if err := it.Close(); err != nil {
		return nil, nil, err
	}
	cols := dec.Finish()
	defer releaseArrays(cols)
	if len(seqs) == 0 {
		return nil, kgs, nil
	}
	schema := j.spec.Join.Left
	if side == 1 {
		schema = j.spec.Join.Right
	}
	rec, err := NewRecord(schema, cols, int64(len(seqs)))
	if err != nil {
		return nil, nil, err
	}
	defer rec.Release()
	perm := make([]int32, len(seqs))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int {
		if c := cmp.Compare(seqs[a][0], seqs[b][0]); c != 0 {
			return c
		}
		return cmp.Compare(seqs[a][1], seqs[b][1])
	})
	var out []arrow.RecordBatch
	for lo := 0; lo < len(perm); {
		hi := lo + 1
		for hi < len(perm) && seqs[perm[hi]][0] == seqs[perm[lo]][0] {
			hi++
		}
		part, err := Gather(rec, perm[lo:hi], nil)
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			return nil, nil, err
		}
		out = append(out, part)
		lo = hi
	}
	return out, kgs, nil
}

// loadDue puts the stored rows of the window ending at end, about to
// fire, before its buffered rows, and deletes them from the store.
func (j *WindowJoin) loadDue(end int64) error {
	d := j.disk
	win := [2]int64{0, end}
	if d == nil || !d.onDisk[win] {
		return nil
	}
	b := d.store.NewBatch()
	for side := range j.bufs {
		recs, kgs, err := j.readSide(side, end)
		if err != nil {
			b.Discard()
			return err
		}
		if len(recs) > 0 {
			bs := make([]vectorized.Batch, 0, len(recs)+len(j.bufs[side][end]))
			for _, r := range recs {
				bs = append(bs, vectorized.Batch{Rec: r})
			}
			j.bufs[side][end] = append(bs, j.bufs[side][end]...)
		}
		for _, kg := range kgs {
			head := windowJoinHead(nil, kg, side, end)
			if err := b.DeleteRange(head, diskstate.PrefixEnd(head)); err != nil {
				b.Discard()
				return err
			}
		}
	}
	delete(d.onDisk, win)
	return b.Commit()
}

// storedEnds returns the window ends in the store that fire (all: every
// one).
func (j *WindowJoin) storedEnds(all bool) []int64 {
	if j.disk == nil {
		return nil
	}
	var ends []int64
	for win := range j.disk.onDisk {
		if all || j.fired(win[1]) {
			ends = append(ends, win[1])
		}
	}
	return ends
}

// scanEnds rebuilds the set of window ends in the store (after a restore
// from store files), seeking from window to window.
func (j *WindowJoin) scanEnds() error {
	d := j.disk
	clear(d.onDisk)
	if d.store.Empty() {
		return nil
	}
	it, err := d.store.NewIter()
	if err != nil {
		return err
	}
	for ok := it.SeekGE(nil); ok; ok = it.SeekGE(diskstate.PrefixEnd(it.Key()[:windowJoinHeadLen])) {
		k := it.Key()
		if len(k) < windowJoinHeadLen || (k[2] != storeStateJoinSides[0] && k[2] != storeStateJoinSides[1]) {
			it.Close()
			return fmt.Errorf("corrupt disk state of %s", d.name)
		}
		d.onDisk[[2]int64{0, decodeOrdered(k[3:11])}] = true
	}
	return it.Close()
}

// diskSnapshot writes the checkpoint of a disk-state window join.
func (j *WindowJoin) diskSnapshot(w vectorized.StateWriter) error {
	if err := j.openDisk(); err != nil {
		return err
	}
	if err := j.spillDisk(); err != nil {
		return err
	}
	files, err := j.disk.snapshotFiles(w)
	if err != nil {
		return err
	}
	if !files {
		ends := j.storedEnds(true)
		slices.Sort(ends)
		for side := range j.bufs {
			schema, err := stateSchema(j.sideSchema(side))
			if err != nil {
				return err
			}
			for _, end := range ends {
				recs, _, err := j.readSide(side, end)
				if err != nil {
					return err
				}
				for _, rec := range recs {
					if err == nil {
						err = writeKeyed(w, timeJoinParts[side], schema, rec, j.spec.HashKeys[side])
					}
					rec.Release()
				}
				if err != nil {
					return err
				}
			}
		}
	}
	return j.markers.snapshot(w)
}

// diskRestore restores a disk-state window join from store files; it
// reports false for a checkpoint of canonical parts (buffered as on the
// heap).
func (j *WindowJoin) diskRestore(r vectorized.StateReader) (bool, error) {
	if err := j.openDisk(); err != nil {
		return true, err
	}
	ok, err := j.disk.restoreStoreFiles(r)
	if !ok || err != nil {
		return ok, err
	}
	if err := j.scanEnds(); err != nil {
		return true, err
	}
	if err := j.markers.restore(r); err != nil {
		return true, err
	}
	j.wm = j.markers.last
	return true, nil
}

func (d *windowJoinDisk) close() error {
	if d == nil {
		return nil
	}
	return d.closeStore()
}
