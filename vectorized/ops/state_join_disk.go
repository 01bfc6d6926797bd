package ops

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// StreamJoin on the disk state backend (state.backend.type = 'rocksdb').
//
// As for the group aggregates (state_agg_disk.go), the join's in-memory
// state — the key table, each side's kept batches and per-key row lists —
// is a cache of hot keys in front of the store. Store rows: key = key
// group, 'l' or 'r', the encoded join key; value = the side's rows of that
// key in insertion order, each its association count (4 bytes) and its
// encoded columns. A batch's keys new to the cache are looked up (both
// sides) in one sorted pass; the rows found become one kept batch per
// side. Every key a batch touches is dirty (its rows, or the association
// counts of the other side's rows, changed); past the budget, and at a
// barrier, dirty keys are rewritten in one write batch and, past the
// budget, the cache starts empty. Restoring the canonical parts appends
// rows to their key's value with Pebble's concatenating merge, so a
// restore never holds the state in memory. The watermarks ("markers") are
// written as a part, as on the heap.

// joinDisk is a StreamJoin's disk state.
type joinDisk struct {
	diskStore
	bytes   int64 // of the kept batches
	dirty   []bool
	loaded  bool // without keys: key 0 was looked up
	checkAt int
	hashBuf []uint64
	evicted int
}

var joinSideBytes = [2]byte{'l', 'r'}

// SetDiskState keeps the join's rows in the disk backend, in a store
// named name (the task). Call before Open.
func (j *StreamJoin) SetDiskState(b *diskstate.Backend, name string) {
	j.disk = &joinDisk{diskStore: diskStore{backend: b, name: name}}
}

// DiskBytes returns the bytes the join's store takes on disk (0 with the
// heap backend).
func (j *StreamJoin) DiskBytes() uint64 {
	if j.disk == nil || j.disk.store == nil {
		return 0
	}
	return j.disk.store.DiskBytes()
}

// DiskEvictions returns how often the cache was emptied into the store.
func (j *StreamJoin) DiskEvictions() int {
	if j.disk == nil {
		return 0
	}
	return j.disk.evicted
}

func (j *StreamJoin) openDisk() error {
	d := j.disk
	for _, s := range j.sides {
		if err := diskstate.CheckTypes(s.types); err != nil {
			return fmt.Errorf("not supported yet: state.backend.type 'rocksdb' for Join: %w", err)
		}
	}
	return d.openStore()
}

func (d *joinDisk) close() error {
	if d == nil {
		return nil
	}
	return d.closeStore()
}

// recBytes is the memory of a record's buffers.
func recBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
	}
	return n
}

// keyHeads returns the store keys (without the side byte's rows) of the
// keys new to the cache: for each new key id, the encoded key of its
// first row in rec.
func (j *StreamJoin) newJoinKeys(me *joinSide, rec arrow.RecordBatch, ids []uint32, before, n int) (keys [][]byte, groups []uint32, err error) {
	d := j.disk
	if j.table == nil {
		if d.loaded {
			return nil, nil, nil
		}
		d.loaded = true
		return [][]byte{diskstate.Key(nil, aggKeyGroupOfNone(), 0, nil)}, []uint32{0}, nil
	}
	fresh := make([]bool, n-before)
	var rows []int
	for i, g := range ids {
		if int(g) >= before && !fresh[int(g)-before] {
			fresh[int(g)-before] = true
			rows = append(rows, i)
			groups = append(groups, g)
		}
	}
	if len(rows) == 0 {
		return nil, nil, nil
	}
	d.hashBuf = resize(d.hashBuf, int(rec.NumRows()))
	vectorized.HashColumns(rec, me.keys, d.hashBuf)
	cols := make([]arrow.Array, len(me.keys))
	for i, k := range me.keys {
		cols[i] = rec.Column(k)
	}
	for _, r := range rows {
		k := diskstate.Key(nil, vectorized.KeyGroup(d.hashBuf[r], vectorized.DefaultMaxParallelism), 0, nil)
		if k, err = diskstate.AppendRow(k, cols, r); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
	}
	return keys, groups, nil
}

// withSide returns key with its state byte set to side's.
func withSide(key []byte, side int) []byte {
	k := append([]byte(nil), key...)
	k[2] = joinSideBytes[side]
	return k
}

// loadNewKeys gives the keys a batch of side me inserted their rows of
// both sides from the store.
func (j *StreamJoin) loadNewKeys(me *joinSide, rec arrow.RecordBatch, ids []uint32, before int) error {
	d := j.disk
	n := 1
	if j.table != nil {
		n = j.table.Len()
	}
	heads, groups, err := j.newJoinKeys(me, rec, ids, before, n)
	if err != nil || len(heads) == 0 || d.store.Empty() {
		return err
	}
	for side, s := range j.sides {
		keys := make([][]byte, len(heads))
		for i, h := range heads {
			keys[i] = withSide(h, side)
		}
		dec, err := diskstate.NewDecoder(vectorized.Mem, s.types)
		if err != nil {
			return err
		}
		type found struct {
			g     uint32
			assoc []int32
		}
		var fs []found
		err = d.store.Lookup(keys, func(i int, v []byte) error {
			f := found{g: groups[i]}
			for len(v) > 0 {
				if len(v) < 4 {
					return fmt.Errorf("corrupt disk state of %s", d.name)
				}
				f.assoc = append(f.assoc, int32(binary.LittleEndian.Uint32(v)))
				var err error
				if v, err = dec.Append(v[4:]); err != nil {
					return err
				}
			}
			fs = append(fs, f)
			return nil
		})
		if err != nil {
			dec.Release()
			return err
		}
		cols := dec.Finish()
		dec.Release()
		if len(fs) == 0 {
			releaseArrays(cols)
			continue
		}
		as, err := types.ArrowSchema(s.schema)
		if err != nil {
			releaseArrays(cols)
			return err
		}
		loaded, err := NewRecord(as, cols, int64(cols[0].Len()))
		releaseArrays(cols)
		if err != nil {
			return err
		}
		batchNo := int32(len(s.batches))
		s.batches = append(s.batches, loaded)
		d.bytes += recBytes(loaded)
		row := int32(0)
		for _, f := range fs {
			list := s.lists[f.g][:0]
			for _, a := range f.assoc {
				list = append(list, joinEntry{ref: rowRef{batch: batchNo, row: row}, assoc: a})
				row++
			}
			s.lists[f.g] = list
		}
	}
	return nil
}

// markDirty records the keys a batch touched.
func (d *joinDisk) markDirty(ids []uint32, n int) {
	if len(d.dirty) < n {
		d.dirty = append(d.dirty, make([]bool, n-len(d.dirty))...)
	}
	for _, g := range ids {
		d.dirty[g] = true
	}
}

// flushDisk rewrites the dirty keys' rows of both sides in one write
// batch.
func (j *StreamJoin) flushDisk() error {
	d := j.disk
	n := 1
	if j.table != nil {
		n = j.table.Len()
	}
	var groups []uint32
	for g, t := range d.dirty[:min(len(d.dirty), n)] {
		if t {
			groups = append(groups, uint32(g))
		}
	}
	clear(d.dirty)
	if len(groups) == 0 {
		return nil
	}
	tk := &aggKeys{t: j.table}
	defer tk.release()
	b := d.store.NewBatch()
	var key, val []byte
	for lo := 0; lo < len(groups); lo += aggStateChunk {
		part := groups[lo:min(lo+aggStateChunk, len(groups))]
		keys, err := tk.gather(part)
		if err != nil {
			b.Discard()
			return err
		}
		kgs := aggKeyGroups(keys, len(part)).(*array.Int32)
		for i, g := range part {
			head := diskstate.Key(key[:0], int(kgs.Value(i)), 0, nil)
			if head, err = diskstate.AppendRow(head, keys, i); err != nil {
				break
			}
			key = head
			for side, s := range j.sides {
				key[2] = joinSideBytes[side]
				list := s.lists[g]
				if len(list) == 0 {
					if err = b.Delete(key); err != nil {
						break
					}
					continue
				}
				val = val[:0]
				for _, e := range list {
					val = binary.LittleEndian.AppendUint32(val, uint32(e.assoc))
					if val, err = diskstate.AppendRow(val, s.batches[e.ref.batch].Columns(), int(e.ref.row)); err != nil {
						break
					}
				}
				if err == nil {
					err = b.Set(key, val)
				}
				if err != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		kgs.Release()
		releaseArrays(keys)
		if err != nil {
			b.Discard()
			return err
		}
	}
	return b.Commit()
}

// maybeEvictJoin empties the cache when its kept batches outgrew the
// budget. Called before a batch.
func (j *StreamJoin) maybeEvictJoin() error {
	d := j.disk
	if j.table == nil || d.bytes <= d.budget {
		return nil
	}
	if err := j.flushDisk(); err != nil {
		return err
	}
	d.evicted++
	t, err := joinKeyTable(j.sides[0].types, j.sides[1].types, j.spec.LeftKeys, j.spec.RightKeys)
	if err != nil {
		return err
	}
	j.table = t
	for _, s := range j.sides {
		s.batches, s.lists = nil, nil
	}
	d.bytes = 0
	d.dirty = d.dirty[:0]
	return nil
}

// diskSnapshot writes the join's checkpoint on the disk backend.
func (j *StreamJoin) diskSnapshot(w vectorized.StateWriter) error {
	d := j.disk
	if err := j.flushDisk(); err != nil {
		return err
	}
	if fw, ok := w.(vectorized.FileStateWriter); ok && fw.Incremental() {
		dir, err := fw.FileDir()
		if err != nil {
			return err
		}
		if _, err := d.store.Checkpoint(dir); err != nil {
			return fmt.Errorf("checkpointing the store of %s: %w", d.name, err)
		}
		if err := fw.AddFiles(d.store.UID(), d.store.Shared); err != nil {
			return err
		}
		return j.markers.snapshot(w)
	}
	for side, s := range j.sides {
		schema, err := j.joinStateSchema(side)
		if err != nil {
			return err
		}
		var dec *diskstate.Decoder
		var kgs, assoc []int32
		emit := func() error {
			if dec == nil {
				return nil
			}
			cols := append([]arrow.Array{int32Array(kgs), int32Array(assoc)}, dec.Finish()...)
			dec.Release()
			dec, kgs, assoc = nil, nil, nil
			rec, err := NewRecord(schema, cols, int64(cols[0].Len()))
			releaseArrays(cols)
			if err != nil {
				return err
			}
			defer rec.Release()
			return w.Write(joinSideParts[side], rec)
		}
		err = d.store.Scan(0, vectorized.DefaultMaxParallelism, joinSideBytes[side], func(k, v []byte) error {
			if dec == nil {
				var err error
				if dec, err = diskstate.NewDecoder(vectorized.Mem, s.types); err != nil {
					return err
				}
			}
			kg := int32(diskstate.KeyGroupOf(k))
			for len(v) > 0 {
				if len(v) < 4 {
					return fmt.Errorf("corrupt disk state of %s", d.name)
				}
				kgs = append(kgs, kg)
				assoc = append(assoc, int32(binary.LittleEndian.Uint32(v)))
				var err error
				if v, err = dec.Append(v[4:]); err != nil {
					return err
				}
			}
			if len(kgs) >= stateRowsPerBatch {
				return emit()
			}
			return nil
		})
		if err == nil {
			err = emit()
		}
		if dec != nil {
			dec.Release()
		}
		if err != nil {
			return err
		}
	}
	return j.markers.snapshot(w)
}

// diskRestore restores the join's store: from store files, or from the
// canonical parts (each row merged onto its key's value).
func (j *StreamJoin) diskRestore(r vectorized.StateReader) error {
	d := j.disk
	if fr, ok := r.(vectorized.FileStateReader); ok {
		if stores, former := fr.StoreFiles(); len(stores) > 0 {
			var srcs []map[string]string
			whole := former == r.Parallelism()
			for _, s := range stores {
				if !whole || s.Subtask == r.Subtask() {
					srcs = append(srcs, s.Files)
				}
			}
			if err := d.store.Restore(srcs, whole, r.Owns); err != nil {
				return err
			}
			return j.markers.restore(r)
		}
	}
	for side, s := range j.sides {
		schema, err := j.joinStateSchema(side)
		if err != nil {
			return err
		}
		part := joinSideParts[side]
		err = r.Read(part, func(rec arrow.RecordBatch) error {
			if err := checkStateSchema(part, rec, schema); err != nil {
				return err
			}
			kg := rec.Column(0).(*array.Int32)
			as := rec.Column(1).(*array.Int32)
			cols := rec.Columns()[2:]
			keyCols := make([]arrow.Array, len(s.keys))
			for i, k := range s.keys {
				keyCols[i] = cols[k]
			}
			b := d.store.NewBatch()
			var key, val []byte
			for i := 0; i < kg.Len(); i++ {
				if !r.Owns(int(kg.Value(i))) {
					continue
				}
				key = diskstate.Key(key[:0], int(kg.Value(i)), joinSideBytes[side], nil)
				var err error
				if key, err = diskstate.AppendRow(key, keyCols, i); err == nil {
					val = binary.LittleEndian.AppendUint32(val[:0], uint32(as.Value(i)))
					if val, err = diskstate.AppendRow(val, cols, i); err == nil {
						err = b.Merge(key, val)
					}
				}
				if err != nil {
					b.Discard()
					return err
				}
			}
			return b.Commit()
		})
		if err != nil {
			return err
		}
	}
	return j.markers.restore(r)
}
