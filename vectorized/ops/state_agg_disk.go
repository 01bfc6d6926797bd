package ops

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// Group aggregates on the disk state backend (state.backend.type =
// 'rocksdb', vectorized/diskstate).
//
// The group table and the steppers stay what they are with the heap
// backend, but they are only a cache of hot groups in front of the store:
// a batch's keys new to the table are looked up in the store in one
// sorted pass and the groups found get their state back (the same
// import as a restore); the groups a batch touches are marked dirty.
// When the cache outgrows its share of the memory budget
// (taskmanager.memory.managed.size), the dirty groups go to the store in
// one write batch and the cache starts empty again. A checkpoint barrier
// writes the dirty groups too, then:
//   - an incremental checkpoint (state.backend.incremental /
//     execution.checkpointing.incremental, the default) takes a Pebble
//     checkpoint of the store into the checkpoint: its tables are shared
//     with the earlier checkpoints that have them (vectorized.
//     FileStateWriter);
//   - a savepoint, or a checkpoint with incremental checkpoints off,
//     writes the canonical part "groups" (state_agg.go), read from the
//     store, so that it restores under either backend.
//
// Store rows: key = key group, 'g', the encoded group key; value = the
// encoded columns of the "groups" part after the keys (GroupAggregate:
// row count, last access, the steppers' exported state; the global phase
// of two-phase aggregation: last access, the mergers' state). A
// GroupAggregate group whose row count fell to 0 is deleted.
//
// State TTL: a value holds its group's last access; an expired value is
// never loaded (the key starts from scratch, as on the heap) and is
// deleted when a batch reads it, and snapshots leave expired rows out.
// Pebble has no compaction filter, so an expired group nobody reads again
// stays on disk until a full snapshot or restore drops it.

// storeStateGroups is the state byte of the groups in a store key.
const storeStateGroups = 'g'

// aggDisk is a group aggregate's disk state.
type aggDisk struct {
	diskStore
	dirty   []bool
	checkAt int // groups at which the cache size is measured next
	batches int

	evictions int // times the cache was emptied into the store

	schema   *arrow.Schema // of the "groups" part
	nk       int
	keyTypes []arrow.DataType
	valTypes []arrow.DataType
	accessAt int  // byte offset of the access column in a value
	counted  bool // the value starts with a row count (0: no state)

	global  bool // the aggregate without keys: its one group is loaded once
	loaded  bool
	hashBuf []uint64
	kbuf    []byte
}

// setup records the layout of the "groups" part.
func (d *aggDisk) setup(op string, schema *arrow.Schema, nk int, counted bool) error {
	d.schema, d.nk, d.counted = schema, nk, counted
	d.keyTypes, d.valTypes = nil, nil
	for i := 1; i < schema.NumFields(); i++ {
		if i <= nk {
			d.keyTypes = append(d.keyTypes, schema.Field(i).Type)
		} else {
			d.valTypes = append(d.valTypes, schema.Field(i).Type)
		}
	}
	d.accessAt = 0
	if counted {
		d.accessAt = 9
	}
	if err := diskstate.CheckTypes(append(append([]arrow.DataType{}, d.keyTypes...), d.valTypes...)); err != nil {
		return fmt.Errorf("not supported yet: state.backend.type 'rocksdb' for %s: %w", op, err)
	}
	d.global = nk == 0
	return d.openStore()
}

func (d *aggDisk) close() error {
	if d == nil {
		return nil
	}
	return d.closeStore()
}

// markDirty records the groups a batch touched.
func (d *aggDisk) markDirty(ids []uint32, n int) {
	if len(d.dirty) < n {
		d.dirty = append(d.dirty, make([]bool, n-len(d.dirty))...)
	}
	for _, g := range ids {
		d.dirty[g] = true
	}
}

// takeDirty returns the dirty groups below n and clears the marks.
func (d *aggDisk) takeDirty(n int) []uint32 {
	var groups []uint32
	for g, t := range d.dirty[:min(len(d.dirty), n)] {
		if t {
			groups = append(groups, uint32(g))
		}
	}
	clear(d.dirty)
	return groups
}

// access returns the last access of a store value.
func (d *aggDisk) access(v []byte) (int64, bool) {
	at := d.accessAt
	if len(v) < at+9 || v[at] != 1 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(v[at+1 : at+9])), true
}

// newKeys returns the store keys of the groups a batch inserted (ids at
// or above before, n groups now), from the batch's key columns, and
// those groups.
func (d *aggDisk) newKeys(rec arrow.RecordBatch, keyCols []int, ids []uint32, before, n int) ([][]byte, []uint32, error) {
	if d.global {
		if d.loaded || len(ids) == 0 {
			return nil, nil, nil
		}
		d.loaded = true
		return [][]byte{diskstate.Key(nil, aggKeyGroupOfNone(), storeStateGroups, nil)}, []uint32{0}, nil
	}
	var rows []int
	var groups []uint32
	fresh := make([]bool, n-before)
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
	vectorized.HashColumns(rec, keyCols, d.hashBuf)
	cols := make([]arrow.Array, len(keyCols))
	for i, k := range keyCols {
		cols[i] = rec.Column(k)
	}
	buf := d.kbuf[:0]
	starts := make([]int, len(rows)+1)
	for j, r := range rows {
		starts[j] = len(buf)
		buf = appendStoreKeyHead(buf, vectorized.KeyGroup(d.hashBuf[r], vectorized.DefaultMaxParallelism))
		var err error
		if buf, err = diskstate.AppendRow(buf, cols, r); err != nil {
			return nil, nil, err
		}
	}
	starts[len(rows)] = len(buf)
	keys := make([][]byte, len(rows))
	for j := range rows {
		keys[j] = buf[starts[j]:starts[j+1]]
	}
	d.kbuf = buf
	return keys, groups, nil
}

// lookup looks keys up in one sorted pass and returns the groups found
// unexpired (keys[i] is the store key of groups[i]) with their value
// columns, which the caller releases; expired values are deleted.
func (d *aggDisk) lookup(keys [][]byte, groups []uint32, ttl time.Duration, now int64) ([]uint32, []arrow.Array, error) {
	if len(keys) == 0 || d.store.Empty() {
		return nil, nil, nil
	}
	dec, err := diskstate.NewDecoder(vectorized.Mem, d.valTypes)
	if err != nil {
		return nil, nil, err
	}
	defer dec.Release()
	var found []uint32
	var expired [][]byte
	err = d.store.Lookup(keys, func(i int, v []byte) error {
		access, ok := d.access(v)
		if !ok {
			return fmt.Errorf("corrupt disk state of %s", d.name)
		}
		if ttl > 0 && access != 0 && ttlExpired(ttl, now, access) {
			expired = append(expired, keys[i])
			return nil
		}
		if _, err := dec.Append(v); err != nil {
			return err
		}
		found = append(found, groups[i])
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(expired) > 0 {
		b := d.store.NewBatch()
		for _, k := range expired {
			if err := b.Delete(k); err != nil {
				b.Discard()
				return nil, nil, err
			}
		}
		if err := b.Commit(); err != nil {
			return nil, nil, err
		}
	}
	cols := dec.Finish()
	if len(found) == 0 {
		releaseArrays(cols)
		return nil, nil, nil
	}
	return found, cols, nil
}

// put adds the rows of a "groups" record (key group, keys, value
// columns) to a write batch; a counted row of count 0 is a delete, or
// skipped when skipEmpty.
func (d *aggDisk) put(b *diskstate.Batch, rec arrow.RecordBatch, skipEmpty bool) error {
	cols := rec.Columns()
	kg := cols[0].(*array.Int32)
	var counts *array.Int64
	if d.counted {
		counts = cols[1+d.nk].(*array.Int64)
	}
	kbuf, vbuf := d.kbuf[:0], []byte(nil)
	var err error
	for i := 0; i < int(rec.NumRows()); i++ {
		empty := counts != nil && counts.Value(i) == 0
		if empty && skipEmpty {
			continue
		}
		kbuf = appendStoreKeyHead(kbuf[:0], int(kg.Value(i)))
		if kbuf, err = diskstate.AppendRow(kbuf, cols[1:1+d.nk], i); err != nil {
			return err
		}
		if empty {
			err = b.Delete(kbuf)
		} else if vbuf, err = diskstate.AppendRow(vbuf[:0], cols[1+d.nk:], i); err == nil {
			err = b.Set(kbuf, vbuf)
		}
		if err != nil {
			return err
		}
	}
	d.kbuf = kbuf
	return nil
}

// flush writes groups (chunked through record) in one write batch.
func (d *aggDisk) flush(groups []uint32, record func(groups []uint32) (arrow.RecordBatch, error)) error {
	if len(groups) == 0 {
		return nil
	}
	b := d.store.NewBatch()
	for lo := 0; lo < len(groups); lo += aggStateChunk {
		rec, err := record(groups[lo:min(lo+aggStateChunk, len(groups))])
		if err == nil {
			err = d.put(b, rec, false)
			rec.Release()
		}
		if err != nil {
			b.Discard()
			return err
		}
	}
	return b.Commit()
}

// overBudget reports whether the cache of n groups outgrew its budget
// (measured when the groups grew by a quarter, and every 64 batches).
func (d *aggDisk) overBudget(n int, size func() int64) bool {
	d.batches++
	if n < d.checkAt && d.batches%64 != 0 {
		return false
	}
	if size() <= d.budget {
		d.checkAt = n + max(n/4, 1024)
		return false
	}
	d.evictions++
	d.checkAt = 0
	return true
}

// snapshot writes a checkpoint of the store: its files into an
// incremental checkpoint, the canonical part otherwise.
func (d *aggDisk) snapshot(w vectorized.StateWriter, ttl time.Duration, now int64) error {
	if fw, ok := w.(vectorized.FileStateWriter); ok && fw.Incremental() {
		dir, err := fw.FileDir()
		if err != nil {
			return err
		}
		if _, err := d.store.Checkpoint(dir); err != nil {
			return fmt.Errorf("checkpointing the store of %s: %w", d.name, err)
		}
		return fw.AddFiles(d.store.UID(), d.store.Shared)
	}
	return d.writeCanonical(w, ttl, now)
}

// writeCanonical writes the store's unexpired groups as the part
// "groups", in the schema the heap backend writes.
func (d *aggDisk) writeCanonical(w vectorized.StateWriter, ttl time.Duration, now int64) error {
	all := append(append([]arrow.DataType{}, d.keyTypes...), d.valTypes...)
	var dec *diskstate.Decoder
	var kgs []int32
	emit := func() error {
		if dec == nil {
			return nil
		}
		cols := append([]arrow.Array{int32Array(kgs)}, dec.Finish()...)
		dec.Release()
		dec, kgs = nil, nil
		rec, err := NewRecord(d.schema, cols, int64(cols[0].Len()))
		releaseArrays(cols)
		if err != nil {
			return err
		}
		defer rec.Release()
		return w.Write(StatePartGroups, rec)
	}
	err := d.store.Scan(0, vectorized.DefaultMaxParallelism, storeStateGroups, func(k, v []byte) error {
		access, ok := d.access(v)
		if !ok {
			return fmt.Errorf("corrupt disk state of %s", d.name)
		}
		if ttl > 0 && access != 0 && ttlExpired(ttl, now, access) {
			return nil
		}
		if dec == nil {
			var err error
			if dec, err = diskstate.NewDecoder(vectorized.Mem, all); err != nil {
				return err
			}
		}
		kgs = append(kgs, int32(diskstate.KeyGroupOf(k)))
		if _, err := dec.AppendColumns(k[3:], 0, d.nk); err != nil {
			return err
		}
		if _, err := dec.AppendColumns(v, d.nk, len(all)); err != nil {
			return err
		}
		if len(kgs) >= aggStateChunk {
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
	return err
}

// restore fills the store: from store files (an incremental checkpoint
// under 'rocksdb') or from the canonical part (a savepoint, a checkpoint
// under 'hashmap').
func (d *aggDisk) restore(op string, r vectorized.StateReader) error {
	if fr, ok := r.(vectorized.FileStateReader); ok {
		stores, former := fr.StoreFiles()
		if len(stores) > 0 {
			var srcs []map[string]string
			whole := former == r.Parallelism()
			for _, s := range stores {
				if !whole || s.Subtask == r.Subtask() {
					srcs = append(srcs, s.Files)
				}
			}
			return d.store.Restore(srcs, whole, r.Owns)
		}
	}
	return readGroupChain(r, d.nk, func(rec arrow.RecordBatch) error {
		if err := aggCheckSchema(op, rec.Schema(), d.schema); err != nil {
			return err
		}
		own, err := aggOwnedRows(rec, r)
		if err != nil {
			return err
		}
		defer own.Release()
		b := d.store.NewBatch()
		if err := d.put(b, own, true); err != nil {
			b.Discard()
			return err
		}
		return b.Commit()
	})
}

func appendStoreKeyHead(buf []byte, kg int) []byte {
	return diskstate.Key(buf, kg, storeStateGroups, nil)
}

// aggKeyGroupOfNone is the key group of the aggregate without keys.
func aggKeyGroupOfNone() int {
	h := make([]uint64, 1)
	rec := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer rec.Release()
	vectorized.HashColumns(rec, nil, h)
	return vectorized.KeyGroup(h[0], vectorized.DefaultMaxParallelism)
}

// refuseStoreFiles fails the restore of a heap-state operator from a
// checkpoint whose state is store files.
func refuseStoreFiles(op string, r vectorized.StateReader) error {
	if fr, ok := r.(vectorized.FileStateReader); ok {
		if stores, _ := fr.StoreFiles(); len(stores) > 0 {
			return fmt.Errorf("not supported yet: restoring %s with state.backend.type 'hashmap' from an incremental checkpoint taken with 'rocksdb' (restore from a savepoint, which either backend reads, or set state.backend.type = 'rocksdb')", op)
		}
	}
	return nil
}

// ---- GroupAggregate ----

// SetDiskState keeps the aggregate's groups in the disk backend, in a
// store named name (the task). Call before Open.
func (h *GroupAggregate) SetDiskState(b *diskstate.Backend, name string) {
	h.disk = &aggDisk{diskStore: diskStore{backend: b, name: name}}
}

// DiskBytes returns the bytes the aggregate's store takes on disk (0
// with the heap backend).
func (h *GroupAggregate) DiskBytes() uint64 {
	if h.disk == nil || h.disk.store == nil {
		return 0
	}
	return h.disk.store.DiskBytes()
}

// DiskEvictions returns how often the cache of hot groups was emptied
// into the store.
func (h *GroupAggregate) DiskEvictions() int {
	if h.disk == nil {
		return 0
	}
	return h.disk.evictions
}

// openDisk opens the store (from Open).
func (h *GroupAggregate) openDisk() error {
	states, err := h.stepStaters()
	if err != nil {
		return fmt.Errorf("not supported yet: state.backend.type 'rocksdb' for GroupAggregate: %w", err)
	}
	schema, err := h.stateSchema(states)
	if err != nil {
		return err
	}
	return h.disk.setup("GroupAggregate", schema, len(h.groupKeys), true)
}

func (h *GroupAggregate) closeDisk() error { return h.disk.close() }

// loadNew gives the groups a batch inserted (ids at or above before)
// their state from the store.
func (h *GroupAggregate) loadNew(rec arrow.RecordBatch, ids []uint32, before int) error {
	keys, groups, err := h.disk.newKeys(rec, h.groupKeys, ids, before, h.nGroups)
	if err != nil {
		return err
	}
	found, cols, err := h.disk.lookup(keys, groups, h.opts.StateTTL, h.ttl.nanos())
	if err != nil || len(found) == 0 {
		return err
	}
	defer releaseArrays(cols)
	return h.setGroups(found, cols)
}

// setGroups sets the state of fresh groups from the value columns (row
// count, access, the aggregates' state), row i for groups[i].
func (h *GroupAggregate) setGroups(groups []uint32, cols []arrow.Array) error {
	states, err := h.stepStaters()
	if err != nil {
		return err
	}
	rows := cols[0].(*array.Int64)
	access := cols[1].(*array.Int64)
	for len(h.ttl.access) < h.nGroups {
		h.ttl.access = append(h.ttl.access, 0)
	}
	now := h.ttl.nanos()
	for i, g := range groups {
		h.rows[g] = rows.Value(i)
		h.ttl.access[g] = access.Value(i)
		if h.ttl.access[g] == 0 {
			h.ttl.access[g] = now
		}
	}
	col := 2
	for _, st := range states {
		k := len(st.StepStateTypes())
		if err := st.SetStepState(groups, cols[col:col+k]); err != nil {
			return err
		}
		col += k
	}
	return nil
}

// flushDisk writes the dirty groups into the store in one write batch.
func (h *GroupAggregate) flushDisk() error {
	groups := h.disk.takeDirty(h.nGroups)
	if len(groups) == 0 {
		return nil
	}
	states, err := h.stepStaters()
	if err != nil {
		return err
	}
	tk := &aggKeys{t: h.table}
	defer tk.release()
	return h.disk.flush(groups, func(groups []uint32) (arrow.RecordBatch, error) { return h.stateRecord(groups, states, tk) })
}

// cacheBytes estimates the memory the cached groups hold.
func (h *GroupAggregate) cacheBytes() int64 {
	n := int64(cap(h.rows))*8 + int64(cap(h.ttl.access))*8 + int64(cap(h.disk.dirty))
	if h.table != nil {
		n += h.table.SizeBytes()
	}
	for _, s := range h.steps {
		n += s.step.SizeBytes()
	}
	return n
}

// maybeEvict empties the cache when it outgrew its budget: the dirty
// groups go to the store and the table starts afresh. Called before a
// batch's insert.
func (h *GroupAggregate) maybeEvict(ctx context.Context) error {
	d := h.disk
	if d.global || h.table == nil || h.nGroups == 0 || !d.overBudget(h.nGroups, h.cacheBytes) {
		return nil
	}
	if err := h.flushDisk(); err != nil {
		return err
	}
	h.closeSteppers()
	h.table, h.steps, h.rows, h.nGroups = nil, nil, nil, 0
	h.ttl.access = h.ttl.access[:0]
	d.dirty = d.dirty[:0]
	h.delta.renumbered()
	return h.Open(ctx)
}

// diskSnapshot writes the checkpoint of a disk-state aggregate.
func (h *GroupAggregate) diskSnapshot(w vectorized.StateWriter) error {
	if err := h.flushDisk(); err != nil {
		return err
	}
	return h.disk.snapshot(w, h.opts.StateTTL, h.ttl.nanos())
}

// diskRestore restores a disk-state aggregate.
func (h *GroupAggregate) diskRestore(r vectorized.StateReader) error {
	return h.disk.restore("GroupAggregate", r)
}

// ---- the global phase of two-phase aggregation ----

// SetDiskState keeps the global phase's groups in the disk backend, in
// a store named name (the task). Call before Open.
func (g *GlobalGroupAggregate) SetDiskState(b *diskstate.Backend, name string) {
	g.disk = &aggDisk{diskStore: diskStore{backend: b, name: name}}
}

// DiskBytes returns the bytes the global phase's store takes on disk
// (0 with the heap backend).
func (g *GlobalGroupAggregate) DiskBytes() uint64 {
	if g.disk == nil || g.disk.store == nil {
		return 0
	}
	return g.disk.store.DiskBytes()
}

// DiskEvictions returns how often the cache of hot groups was emptied
// into the store.
func (g *GlobalGroupAggregate) DiskEvictions() int {
	if g.disk == nil {
		return 0
	}
	return g.disk.evictions
}

func (g *GlobalGroupAggregate) openDisk() error {
	return g.disk.setup("GlobalGroupAggregate", g.stateSchema(), len(g.groupKeys), false)
}

// loadNew gives the groups a bundle inserted (ids at or above before)
// their merged state from the store; it returns those found.
func (g *GlobalGroupAggregate) loadNew(rec arrow.RecordBatch, ids []uint32, before int) ([]uint32, error) {
	keys, groups, err := g.disk.newKeys(rec, g.groupKeys, ids, before, g.nGroups)
	if err != nil {
		return nil, err
	}
	found, cols, err := g.disk.lookup(keys, groups, g.opts.StateTTL, g.ttl.nanos())
	if err != nil || len(found) == 0 {
		return nil, err
	}
	defer releaseArrays(cols)
	access := cols[0].(*array.Int64)
	for len(g.ttl.access) < g.nGroups {
		g.ttl.access = append(g.ttl.access, 0)
	}
	for i, id := range found {
		g.ttl.access[id] = access.Value(i)
	}
	col := 1
	for _, acc := range g.accs {
		k := len(acc.StateTypes())
		acc.Resize(g.nGroups)
		if err := acc.Merge(found, cols[col:col+k]); err != nil {
			return nil, err
		}
		col += k
	}
	return found, nil
}

// flushDisk writes the dirty groups into the store in one write batch.
func (g *GlobalGroupAggregate) flushDisk() error {
	groups := g.disk.takeDirty(g.nGroups)
	if len(groups) == 0 {
		return nil
	}
	states, err := g.mergerStates()
	if err != nil {
		return err
	}
	defer releaseStates(states)
	tk := &aggKeys{t: g.table}
	defer tk.release()
	return g.disk.flush(groups, func(groups []uint32) (arrow.RecordBatch, error) { return g.stateRecord(groups, states, tk) })
}

func (g *GlobalGroupAggregate) cacheBytes() int64 {
	n := int64(cap(g.ttl.access))*8 + int64(cap(g.disk.dirty)) + int64(cap(g.seen))*8
	if g.table != nil {
		n += g.table.SizeBytes()
	}
	for _, acc := range g.accs {
		n += acc.SizeBytes()
	}
	return n
}

// evictDisk writes the dirty groups and empties the cache.
func (g *GlobalGroupAggregate) evictDisk(ctx context.Context) error {
	if err := g.flushDisk(); err != nil {
		return err
	}
	closeMergers(g.accs)
	g.table, g.accs, g.nGroups = nil, nil, 0
	g.ttl.access = g.ttl.access[:0]
	g.disk.dirty = g.disk.dirty[:0]
	g.delta.renumbered()
	g.seen, g.last = nil, nil
	return g.Open(ctx)
}

// diskBundle maps a bundle's keys to groups on the disk backend: the
// cache is emptied first when it outgrew its budget, or when a key of the
// bundle belongs to a cached group whose state expired (its expired state
// goes to the store, where lookups skip it). It returns the groups
// before the bundle and the bundle's groups the store had.
func (g *GlobalGroupAggregate) diskBundle(ctx context.Context, rec arrow.RecordBatch, n int) (old int, found []uint32, err error) {
	d := g.disk
	if !d.global && g.table != nil && g.nGroups > 0 && d.overBudget(g.nGroups, g.cacheBytes) {
		if err := g.evictDisk(ctx); err != nil {
			return 0, nil, err
		}
	}
	for pass := 0; ; pass++ {
		old = g.nGroups
		if err := g.insertBundle(rec, n); err != nil {
			return 0, nil, err
		}
		stale := false
		if g.opts.StateTTL > 0 && pass == 0 {
			now := g.ttl.nanos()
			for _, id := range g.ids {
				if int(id) < old && int(id) < len(g.ttl.access) && ttlExpired(g.opts.StateTTL, now, g.ttl.access[id]) {
					stale = true
					break
				}
			}
		}
		if !stale {
			break
		}
		if err := g.evictDisk(ctx); err != nil {
			return 0, nil, err
		}
		d.loaded = false
	}
	found, err = g.loadNew(rec, g.ids, old)
	if err != nil {
		return 0, nil, err
	}
	d.markDirty(g.ids, g.nGroups)
	return old, found, nil
}

// insertBundle maps the bundle's keys to group ids (g.ids).
func (g *GlobalGroupAggregate) insertBundle(rec arrow.RecordBatch, n int) error {
	g.ids = resize(g.ids, n)
	if g.table != nil {
		for i, k := range g.groupKeys {
			g.keyBuf[i] = rec.Column(k)
		}
		if err := g.table.Insert(g.keyBuf, n, g.ids); err != nil {
			return err
		}
		g.nGroups = g.table.Len()
	} else {
		clear(g.ids)
		g.nGroups = 1
	}
	return nil
}

// diskStore is the Pebble store of one operator's keyed state on the
// rocksdb backend (aggDisk, joinDisk, rowsDisk), opened on first use with
// the backend's cache budget.
type diskStore struct {
	backend *diskstate.Backend
	name    string
	store   *diskstate.Store
	budget  int64
}

func (d *diskStore) openStore() error {
	if d.store != nil {
		return nil
	}
	s, err := d.backend.Open(d.name)
	if err != nil {
		return err
	}
	d.store, d.budget = s, d.backend.CacheBudget()
	return nil
}

func (d *diskStore) closeStore() error {
	if d.store == nil {
		return nil
	}
	err := d.store.Close()
	d.store = nil
	return err
}
