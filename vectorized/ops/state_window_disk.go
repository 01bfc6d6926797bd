package ops

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// Window aggregates (WindowAggregate, GlobalWindowAggregate) on the disk
// state backend (state.backend.type = 'rocksdb', vectorized/diskstate).
//
// The per-window groups in memory (the heap backend's hash aggregations
// or group tables and mergers) are a cache in front of the store. Once a
// window's groups went to the store, a batch's keys new to the cached
// window are looked up in one sorted pass and get their stored state
// (agg.Merger.Merge into the empty group, an exact copy) before the batch
// updates them, so a group goes on from its state as on the heap. When
// the cache outgrows its share of the memory budget
// (taskmanager.memory.managed.size), every cached window goes to the
// store in one write batch and the cache starts empty; a checkpoint
// barrier writes them too but keeps the cache. When the watermark passes a window's end, its stored
// groups are read (one range per key group, the key groups without rows
// skipped by seeking), the cached ones replace theirs, and the window
// fires as on the heap; its ranges are then deleted (range deletes).
//
// Store rows: key = key group, 'w', window_end and window_start (8 bytes
// each, big-endian with the sign bit flipped, so that they sort as
// numbers), the encoded group key; value = the group's sequence number
// (8 bytes little-endian), then the calls' partial states. The sequence
// number (the spill's number, then the group's id in its cached window)
// orders a window's groups as their first row arrived, so that a fired
// window emits its rows in the heap backend's order, and a savepoint
// writes each window's groups in that order.
//
// Checkpoints: an incremental checkpoint holds the store's files, the
// part "window_meta" and the part "window_seq" (the next spill's
// number); a savepoint or a checkpoint with incremental checkpoints off
// writes the canonical parts "windows" and "window_meta" (state_window.go),
// read from the store a window at a time, so that it restores under
// either backend.

// storeStateWindows is the state byte of the window groups in a store key.
const storeStateWindows = 'w'

// StatePartWindowSeq is the part of an incremental window-aggregate
// checkpoint holding the next spill's number.
const StatePartWindowSeq = "window_seq"

var windowSeqSchema = arrow.NewSchema([]arrow.Field{{Name: "epoch", Type: arrow.PrimitiveTypes.Int64}}, nil)

// windowDisk is a window aggregate's disk state.
type windowDisk struct {
	diskStore
	onDisk map[[2]int64]bool // windows with rows in the store
	// loaded: the sequence numbers of cached groups loaded from the store
	loaded     map[[2]int64]map[uint32]uint64
	epoch      uint64 // the number of the next spill
	keyTypes   []arrow.DataType
	stateTypes []arrow.DataType
	evictions  int
	kbuf, vbuf []byte
}

// cachedWindow is the groups of one window held in memory.
type cachedWindow interface {
	groups() int
	keyArrays() []arrow.Array
	stateArrays() ([]arrow.Array, error)
	mergeStates(ids []uint32, cols []arrow.Array) error
}

// appendOrdered appends v so that the bytes sort as the numbers.
func appendOrdered(buf []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(buf, uint64(v)^(1<<63))
}

func decodeOrdered(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)) }

// windowKeyHead appends the key prefix of a window's rows in key group kg.
func windowKeyHead(buf []byte, kg int, win [2]int64) []byte {
	buf = diskstate.Key(buf, kg, storeStateWindows, nil)
	buf = appendOrdered(buf, win[1])
	return appendOrdered(buf, win[0])
}

// windowHeadLen is the length of windowKeyHead.
const windowHeadLen = 3 + 16

func (d *windowDisk) setup(op string, kts, sts []arrow.DataType) error {
	d.keyTypes, d.stateTypes = kts, sts
	if err := diskstate.CheckTypes(append(append([]arrow.DataType{}, kts...), sts...)); err != nil {
		return fmt.Errorf("not supported yet: state.backend.type 'rocksdb' for %s: %w", op, err)
	}
	if d.onDisk == nil {
		d.onDisk = map[[2]int64]bool{}
		d.loaded = map[[2]int64]map[uint32]uint64{}
	}
	return d.openStore()
}

func (d *windowDisk) close() error {
	if d == nil {
		return nil
	}
	return d.closeStore()
}

// seq returns the sequence number of group g of cached window win.
func (d *windowDisk) seq(win [2]int64, g int) uint64 {
	if s, ok := d.loaded[win][uint32(g)]; ok {
		return s
	}
	return d.epoch<<32 | uint64(g)
}

// storeKeys returns the store keys of rows of key columns keys (all rows
// when rows is nil) in window win.
func (d *windowDisk) storeKeys(win [2]int64, keys []arrow.Array, n int, rows []int) ([][]byte, error) {
	kga := aggKeyGroups(keys, n)
	defer kga.Release()
	kg := kga.(*array.Int32)
	if rows == nil {
		rows = make([]int, n)
		for i := range rows {
			rows[i] = i
		}
	}
	buf := d.kbuf[:0]
	starts := make([]int, len(rows)+1)
	var err error
	for j, i := range rows {
		starts[j] = len(buf)
		buf = windowKeyHead(buf, int(kg.Value(i)), win)
		if buf, err = diskstate.AppendRow(buf, keys, i); err != nil {
			return nil, err
		}
	}
	starts[len(rows)] = len(buf)
	d.kbuf = buf
	out := make([][]byte, len(rows))
	for j := range rows {
		out[j] = buf[starts[j]:starts[j+1]:starts[j+1]]
	}
	return out, nil
}

// loadNew gives the groups of cached window win that a batch added (ids
// at or above before; keys are the batch's key columns) their state from
// the store, before the batch updates them: a window the cache spilled
// goes on from its stored state, as on the heap.
func (d *windowDisk) loadNew(win [2]int64, keys []arrow.Array, ids []uint32, before int, w cachedWindow) error {
	if !d.onDisk[win] || d.store.Empty() {
		return nil
	}
	var rows []int
	var groups []uint32
	seen := map[uint32]bool{}
	for i, g := range ids {
		if int(g) >= before && !seen[g] {
			seen[g] = true
			rows = append(rows, i)
			groups = append(groups, g)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	skeys, err := d.storeKeys(win, keys, len(ids), rows)
	if err != nil {
		return err
	}
	dec, err := diskstate.NewDecoder(vectorized.Mem, d.stateTypes)
	if err != nil {
		return err
	}
	defer dec.Release()
	var found []uint32
	var seqs []uint64
	err = d.store.Lookup(skeys, func(i int, v []byte) error {
		if len(v) < 8 {
			return fmt.Errorf("corrupt disk state of %s", d.name)
		}
		if _, err := dec.Append(v[8:]); err != nil {
			return err
		}
		found = append(found, groups[i])
		seqs = append(seqs, binary.LittleEndian.Uint64(v))
		return nil
	})
	cols := dec.Finish()
	defer releaseArrays(cols)
	if err != nil || len(found) == 0 {
		return err
	}
	if d.loaded[win] == nil {
		d.loaded[win] = map[uint32]uint64{}
	}
	for i, g := range found {
		d.loaded[win][g] = seqs[i]
	}
	return w.mergeStates(found, cols)
}

// spill writes the groups of a cached window into b (those loaded from
// the store replace their stored rows).
func (d *windowDisk) spill(win [2]int64, w cachedWindow, b *diskstate.Batch) error {
	n := w.groups()
	if n == 0 {
		return nil
	}
	keys := w.keyArrays()
	defer releaseArrays(keys)
	skeys, err := d.storeKeys(win, keys, n, nil)
	if err != nil {
		return err
	}
	states, err := w.stateArrays()
	if err != nil {
		return err
	}
	defer releaseArrays(states)
	vbuf := d.vbuf[:0]
	for i := range n {
		vbuf = binary.LittleEndian.AppendUint64(vbuf[:0], d.seq(win, i))
		if vbuf, err = diskstate.AppendRow(vbuf, states, i); err != nil {
			return err
		}
		if err := b.Set(skeys[i], vbuf); err != nil {
			return err
		}
	}
	d.vbuf = vbuf
	d.onDisk[win] = true
	return nil
}

// spillAll writes the cached windows (wins, by end then start) into the
// store in one write batch. keep: the cache stays (a checkpoint barrier:
// the cached groups and their stored rows are equal, the cache still
// replaces them); otherwise the next spill starts and the caller empties
// its cache.
func (d *windowDisk) spillAll(wins [][2]int64, get func([2]int64) cachedWindow, keep bool) error {
	if len(wins) == 0 {
		return nil
	}
	b := d.store.NewBatch()
	for _, win := range wins {
		if err := d.spill(win, get(win), b); err != nil {
			b.Discard()
			return err
		}
	}
	if err := b.Commit(); err != nil {
		return err
	}
	if !keep {
		clear(d.loaded)
		d.epoch++
		d.evictions++
	}
	return nil
}

// collect returns the groups of window win — the cached ones (nil: none)
// and the store's others — as a record of schema (key_group,
// window_start, window_end, keys, states: the "windows" part), its rows
// in the order of the groups' sequence numbers; kgs are the key groups
// of the store that hold rows of the window.
func (d *windowDisk) collect(win [2]int64, cached cachedWindow, schema *arrow.Schema) (arrow.RecordBatch, []int, error) {
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var seqs []uint64
	var kgs []int
	var cachedRec arrow.RecordBatch
	var cachedSeqs []uint64
	skip := map[string]bool{}
	if cached != nil && cached.groups() > 0 {
		n := cached.groups()
		keys := cached.keyArrays()
		states, err := cached.stateArrays()
		if err != nil {
			releaseArrays(keys)
			return nil, nil, err
		}
		if d.onDisk[win] {
			skeys, err := d.storeKeys(win, keys, n, nil)
			if err != nil {
				releaseArrays(keys)
				releaseArrays(states)
				return nil, nil, err
			}
			for _, k := range skeys {
				skip[string(k)] = true
			}
		}
		ws, we := make([]int64, n), make([]int64, n)
		for i := range n {
			ws[i], we[i] = win[0], win[1]
			cachedSeqs = append(cachedSeqs, d.seq(win, i))
		}
		cols := []arrow.Array{aggKeyGroups(keys, n), aggInt64s(vectorized.Mem, ws), aggInt64s(vectorized.Mem, we)}
		cols = append(append(cols, keys...), states...)
		cachedRec, err = NewRecord(schema, cols, int64(n))
		releaseArrays(cols)
		if err != nil {
			return nil, nil, err
		}
	}
	if d.onDisk[win] && !d.store.Empty() {
		rec, s, k, err := d.read(win, schema, skip)
		if err != nil {
			if cachedRec != nil {
				cachedRec.Release()
			}
			return nil, nil, err
		}
		if rec != nil {
			recs = append(recs, rec)
		}
		seqs, kgs = s, k
	}
	if cachedRec != nil {
		recs = append(recs, cachedRec)
		seqs = append(seqs, cachedSeqs...)
	}
	if len(recs) == 0 {
		return nil, kgs, nil
	}
	all, err := concatRecords(schema, recs)
	if err != nil {
		return nil, nil, err
	}
	if len(recs) == 1 {
		all.Retain()
	}
	defer all.Release()
	perm := make([]int32, len(seqs))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int {
		if seqs[a] < seqs[b] {
			return -1
		}
		if seqs[a] > seqs[b] {
			return 1
		}
		return 0
	})
	out, err := Gather(all, perm, nil)
	return out, kgs, err
}

// read returns the store's rows of window win (all key groups: the key
// groups without rows are skipped by seeking) as a record of schema, their
// sequence numbers and the key groups holding them.
func (d *windowDisk) read(win [2]int64, schema *arrow.Schema, skip map[string]bool) (arrow.RecordBatch, []uint64, []int, error) {
	all := append(append([]arrow.DataType{}, d.keyTypes...), d.stateTypes...)
	nk := len(d.keyTypes)
	dec, err := diskstate.NewDecoder(vectorized.Mem, all)
	if err != nil {
		return nil, nil, nil, err
	}
	defer dec.Release()
	it, err := d.store.NewIter()
	if err != nil {
		return nil, nil, nil, err
	}
	var seqs []uint64
	var kgIDs []int32
	var kgs []int
	var head []byte
	for kg := 0; kg < vectorized.DefaultMaxParallelism; {
		head = windowKeyHead(head[:0], kg, win)
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
			if len(skip) > 0 && skip[string(it.Key())] {
				continue // the cache holds the group
			}
			v, err := it.Value()
			if err != nil {
				it.Close()
				return nil, nil, nil, err
			}
			if len(v) < 8 {
				it.Close()
				return nil, nil, nil, fmt.Errorf("corrupt disk state of %s", d.name)
			}
			if _, err := dec.AppendColumns(it.Key()[windowHeadLen:], 0, nk); err != nil {
				it.Close()
				return nil, nil, nil, err
			}
			if _, err := dec.AppendColumns(v[8:], nk, len(all)); err != nil {
				it.Close()
				return nil, nil, nil, err
			}
			seqs = append(seqs, binary.LittleEndian.Uint64(v))
			kgIDs = append(kgIDs, int32(kg))
		}
		kg++
	}
	if err := it.Close(); err != nil {
		return nil, nil, nil, err
	}
	cols := dec.Finish()
	if len(seqs) == 0 {
		releaseArrays(cols)
		return nil, nil, kgs, nil
	}
	n := len(seqs)
	ws, we := make([]int64, n), make([]int64, n)
	for i := range n {
		ws[i], we[i] = win[0], win[1]
	}
	cols = append([]arrow.Array{int32Array(kgIDs), aggInt64s(vectorized.Mem, ws), aggInt64s(vectorized.Mem, we)}, cols...)
	rec, err := NewRecord(schema, cols, int64(n))
	releaseArrays(cols)
	if err != nil {
		return nil, nil, nil, err
	}
	return rec, seqs, kgs, nil
}

// drop deletes window win's ranges of the key groups kgs.
func (d *windowDisk) drop(win [2]int64, kgs []int) error {
	delete(d.onDisk, win)
	delete(d.loaded, win)
	if len(kgs) == 0 {
		return nil
	}
	b := d.store.NewBatch()
	for _, kg := range kgs {
		head := windowKeyHead(nil, kg, win)
		if err := b.DeleteRange(head, diskstate.PrefixEnd(head)); err != nil {
			b.Discard()
			return err
		}
	}
	return b.Commit()
}

// due returns the windows in the store that fire at watermark wm and are
// not in cached.
func (d *windowDisk) due(wm int64, clock *zoneClock, cached func([2]int64) bool) [][2]int64 {
	var out [][2]int64
	for win := range d.onDisk {
		if clock.instant(win[1])-1 <= wm && !cached(win) {
			out = append(out, win)
		}
	}
	return out
}

// stored returns the windows in the store, by end then start.
func (d *windowDisk) stored() [][2]int64 {
	wins := make([][2]int64, 0, len(d.onDisk))
	for win := range d.onDisk {
		wins = append(wins, win)
	}
	sortWindows(wins)
	return wins
}

// scanWindows rebuilds the set of windows in the store (after a restore
// from store files), seeking from window to window.
func (d *windowDisk) scanWindows() error {
	clear(d.onDisk)
	if d.store.Empty() {
		return nil
	}
	it, err := d.store.NewIter()
	if err != nil {
		return err
	}
	seek := diskstate.Key(nil, 0, storeStateWindows, nil)
	for it.SeekGE(seek) {
		k := it.Key()
		kg := diskstate.KeyGroupOf(k)
		if len(k) < 3 || k[2] != storeStateWindows {
			if len(k) >= 3 && k[2] < storeStateWindows {
				seek = diskstate.Key(seek[:0], kg, storeStateWindows, nil)
			} else if kg+1 < 1<<16 {
				seek = diskstate.Key(seek[:0], kg+1, storeStateWindows, nil)
			} else {
				break
			}
			continue
		}
		if len(k) < windowHeadLen {
			it.Close()
			return fmt.Errorf("corrupt disk state of %s", d.name)
		}
		win := [2]int64{decodeOrdered(k[11:19]), decodeOrdered(k[3:11])}
		d.onDisk[win] = true
		seek = diskstate.PrefixEnd(k[:windowHeadLen])
	}
	return it.Close()
}

// snapshot writes an incremental checkpoint (the store's files and the
// spill number) and reports true, or reports false for the canonical
// parts; the cache was spilled.
func (d *windowDisk) snapshotFiles(w vectorized.StateWriter) (bool, error) {
	fw, ok := w.(vectorized.FileStateWriter)
	if !ok || !fw.Incremental() {
		return false, nil
	}
	dir, err := fw.FileDir()
	if err != nil {
		return true, err
	}
	if _, err := d.store.Checkpoint(dir); err != nil {
		return true, fmt.Errorf("checkpointing the store of %s: %w", d.name, err)
	}
	if err := fw.AddFiles(d.store.UID(), d.store.Shared); err != nil {
		return true, err
	}
	col := aggInt64s(vectorized.Mem, []int64{int64(d.epoch)})
	defer col.Release()
	rec := array.NewRecordBatch(windowSeqSchema, []arrow.Array{col}, 1)
	defer rec.Release()
	return true, w.Write(StatePartWindowSeq, rec)
}

// writeCanonical writes the store's windows, one at a time, as the part
// "windows" (each window's groups in their order).
func (d *windowDisk) writeCanonical(w vectorized.StateWriter, schema *arrow.Schema) error {
	for _, win := range d.stored() {
		rec, _, err := d.collect(win, nil, schema)
		if err != nil {
			return err
		}
		if rec == nil {
			continue
		}
		err = w.Write(StatePartWindows, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// restoreFiles fills the store from the store files of a checkpoint and
// finds its windows, and reports true, or reports false when the
// checkpoint has none.
func (d *windowDisk) restoreFiles(r vectorized.StateReader) (bool, error) {
	ok, err := d.restoreStoreFiles(r)
	if !ok || err != nil {
		return ok, err
	}
	return true, d.scanWindows()
}

// restoreStoreFiles fills the store from the store files of a checkpoint
// and takes the spill number, and reports true, or reports false when the
// checkpoint has none.
func (d *windowDisk) restoreStoreFiles(r vectorized.StateReader) (bool, error) {
	fr, ok := r.(vectorized.FileStateReader)
	if !ok {
		return false, nil
	}
	stores, former := fr.StoreFiles()
	if len(stores) == 0 {
		return false, nil
	}
	var srcs []map[string]string
	whole := former == r.Parallelism()
	for _, s := range stores {
		if !whole || s.Subtask == r.Subtask() {
			srcs = append(srcs, s.Files)
		}
	}
	if err := d.store.Restore(srcs, whole, r.Owns); err != nil {
		return true, err
	}
	epoch := int64(0)
	err := r.Read(StatePartWindowSeq, func(rec arrow.RecordBatch) error {
		if err := aggCheckSchema("window aggregate", rec.Schema(), windowSeqSchema); err != nil {
			return err
		}
		c := rec.Column(0).(*array.Int64)
		for i := 0; i < c.Len(); i++ {
			epoch = max(epoch, c.Value(i))
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	d.epoch = uint64(epoch) + 1
	return true, nil
}

// ---- WindowAggregate ----

// hashWindow is a cached window of a WindowAggregate.
type hashWindow struct {
	h  *HashAggregate
	ms []agg.Merger
}

func (c hashWindow) groups() int { return c.h.nGroups }
func (c hashWindow) keyArrays() []arrow.Array {
	if c.h.table == nil {
		return nil
	}
	return c.h.table.Keys(vectorized.Mem)
}
func (c hashWindow) stateArrays() ([]arrow.Array, error) {
	var cols []arrow.Array
	for i, m := range c.ms {
		m.Resize(c.h.nGroups)
		st, err := m.State(vectorized.Mem)
		if err != nil {
			releaseArrays(cols)
			if errors.Is(err, errScriptState) {
				return nil, scriptStateError(c.h.calls[i].Name, err)
			}
			return nil, err
		}
		cols = append(cols, st...)
	}
	return cols, nil
}
func (c hashWindow) mergeStates(ids []uint32, cols []arrow.Array) error {
	col := 0
	for _, m := range c.ms {
		k := len(m.StateTypes())
		m.Resize(c.h.nGroups)
		if err := m.Merge(ids, cols[col:col+k]); err != nil {
			return err
		}
		col += k
	}
	return nil
}

// SetDiskState keeps the windows' groups in the disk backend, in a store
// named name (the task). Call before Open.
func (w *WindowAggregate) SetDiskState(b *diskstate.Backend, name string) {
	w.disk = &windowDisk{diskStore: diskStore{backend: b, name: name}}
}

// DiskEvictions returns how often the cached windows went to the store.
func (w *WindowAggregate) DiskEvictions() int {
	if w.disk == nil {
		return 0
	}
	return w.disk.evictions
}

// DiskBytes returns the bytes the aggregate's store takes on disk (0
// with the heap backend).
func (w *WindowAggregate) DiskBytes() uint64 {
	if w.disk == nil || w.disk.store == nil {
		return 0
	}
	return w.disk.store.DiskBytes()
}

// diskSchema is the "windows" schema of the aggregate's calls.
func (w *WindowAggregate) diskSchema(ctx context.Context) (*arrow.Schema, []arrow.DataType, error) {
	probe, err := w.newWindowAgg(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer probe.Close()
	ms, err := hashAggMergers(probe)
	if err != nil {
		return nil, nil, err
	}
	var sts []arrow.DataType
	for _, m := range ms {
		sts = append(sts, m.StateTypes()...)
	}
	schema, err := w.windowStateSchema(ms)
	return schema, sts, err
}

func (w *WindowAggregate) openDisk(ctx context.Context) error {
	if w.disk.store != nil {
		return nil
	}
	schema, sts, err := w.diskSchema(ctx)
	if err != nil {
		return fmt.Errorf("not supported yet: state.backend.type 'rocksdb' for WindowAggregate: %w", err)
	}
	w.diskSch = schema
	kts, err := keyTypes(w.in, w.keys)
	if err != nil {
		return err
	}
	return w.disk.setup("WindowAggregate", kts, sts)
}

func (w *WindowAggregate) cached(win [2]int64) (cachedWindow, error) {
	h := w.windows[win]
	if h == nil {
		return nil, nil
	}
	ms, err := hashAggMergers(h)
	if err != nil {
		return nil, err
	}
	return hashWindow{h, ms}, nil
}

// cacheBytes estimates the memory of the cached windows.
func (w *WindowAggregate) cacheBytes() int64 {
	var n int64
	for _, h := range w.windows {
		n += h.stateBytes()
	}
	return n
}

// spillDisk writes every cached window into the store and empties the
// cache (keep: keeps it).
func (w *WindowAggregate) spillDisk(keep bool) error {
	wins := w.sortedWindows()
	var ferr error
	err := w.disk.spillAll(wins, func(win [2]int64) cachedWindow {
		c, err := w.cached(win)
		if err != nil && ferr == nil {
			ferr = err
		}
		if c == nil {
			return emptyWindow{}
		}
		return c
	}, keep)
	if ferr != nil {
		return ferr
	}
	if err != nil || keep {
		return err
	}
	for win, h := range w.windows {
		_ = h.Close()
		delete(w.windows, win)
	}
	return nil
}

// maybeSpill spills the cache when it outgrew its budget (before a
// batch).
func (w *WindowAggregate) maybeSpill(ctx context.Context) error {
	if err := w.openDisk(ctx); err != nil {
		return err
	}
	if len(w.windows) == 0 || w.cacheBytes() <= w.disk.budget {
		return nil
	}
	return w.spillDisk(false)
}

// loadDue brings window win, about to fire, from the store into the
// cache (merged with its cached groups), and deletes it from the store.
func (w *WindowAggregate) loadDue(ctx context.Context, win [2]int64) error {
	if w.disk == nil || !w.disk.onDisk[win] {
		return nil
	}
	c, err := w.cached(win)
	if err != nil {
		return err
	}
	rec, kgs, err := w.disk.collect(win, c, w.diskSch)
	if err != nil {
		return err
	}
	if h := w.windows[win]; h != nil {
		_ = h.Close()
		delete(w.windows, win)
	}
	if rec != nil {
		err = w.loadWindow(ctx, win, rec, len(w.keys))
		rec.Release()
		if err != nil {
			return err
		}
	}
	return w.disk.drop(win, kgs)
}

// loadBatch gives the groups a batch adds to cached window win (h;
// created: by this batch) their stored state, before the batch updates
// them.
func (w *WindowAggregate) loadBatch(win [2]int64, h *HashAggregate, rec arrow.RecordBatch, created bool) error {
	n := int(rec.NumRows())
	ids := make([]uint32, n)
	keys := make([]arrow.Array, len(w.keys))
	for i, k := range w.keys {
		keys[i] = rec.Column(k)
	}
	before := h.nGroups
	if h.table != nil {
		if err := h.table.Insert(keys, n, ids); err != nil {
			return err
		}
		if g := h.table.Len(); g > h.nGroups {
			h.nGroups = g
			for _, a := range h.accs {
				a.acc.Resize(g)
			}
		}
	} else if created {
		before = 0
	}
	c, err := w.cached(win)
	if err != nil {
		return err
	}
	return w.disk.loadNew(win, keys, ids, before, c)
}

// dueWindows returns the windows (cached or stored) that fire at wm, by
// end then start.
func (w *WindowAggregate) dueWindows(wm int64) [][2]int64 {
	var due [][2]int64
	for win := range w.windows {
		if w.clock.instant(win[1])-1 <= wm {
			due = append(due, win)
		}
	}
	if w.disk != nil {
		due = append(due, w.disk.due(wm, w.clock, func(win [2]int64) bool { return w.windows[win] != nil })...)
	}
	sortWindows(due)
	return due
}

// diskSnapshot writes the checkpoint of a disk-state window aggregate.
func (w *WindowAggregate) diskSnapshot(ctx context.Context, sw vectorized.StateWriter) error {
	if err := w.openDisk(ctx); err != nil {
		return err
	}
	if err := w.spillDisk(true); err != nil {
		return err
	}
	files, err := w.disk.snapshotFiles(sw)
	if err != nil {
		return err
	}
	if !files {
		if err := w.disk.writeCanonical(sw, w.diskSch); err != nil {
			return err
		}
	}
	return writeWindowMeta(sw, w.wm, w.late.Load())
}

// diskRestore restores a disk-state window aggregate from store files;
// it reports false for a checkpoint of canonical parts (restored into
// the cache as on the heap).
func (w *WindowAggregate) diskRestore(ctx context.Context, r vectorized.StateReader) (bool, error) {
	if err := w.openDisk(ctx); err != nil {
		return true, err
	}
	ok, err := w.disk.restoreFiles(r)
	if !ok || err != nil {
		return ok, err
	}
	wm, late, err := readWindowMeta(r)
	if err != nil {
		return true, err
	}
	w.wm = wm
	if r.Subtask() == 0 {
		w.late.Store(late)
	}
	return true, nil
}

// emptyWindow is a window without groups.
type emptyWindow struct{}

func (emptyWindow) groups() int                               { return 0 }
func (emptyWindow) keyArrays() []arrow.Array                  { return nil }
func (emptyWindow) stateArrays() ([]arrow.Array, error)       { return nil, nil }
func (emptyWindow) mergeStates([]uint32, []arrow.Array) error { return nil }

// ---- GlobalWindowAggregate ----

// groupsWindow is a cached window of a GlobalWindowAggregate.
type groupsWindow struct{ w *windowGroups }

func (c groupsWindow) groups() int              { return c.w.nGroups }
func (c groupsWindow) keyArrays() []arrow.Array { return c.w.keys() }
func (c groupsWindow) stateArrays() ([]arrow.Array, error) {
	var cols []arrow.Array
	for _, m := range c.w.accs {
		m.Resize(c.w.nGroups)
		st, err := m.State(vectorized.Mem)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols = append(cols, st...)
	}
	return cols, nil
}
func (c groupsWindow) mergeStates(ids []uint32, cols []arrow.Array) error {
	col := 0
	for _, m := range c.w.accs {
		k := len(m.StateTypes())
		if err := m.Merge(ids, cols[col:col+k]); err != nil {
			return err
		}
		col += k
	}
	return nil
}

// SetDiskState keeps the windows' groups in the disk backend, in a store
// named name (the task). Call before Open.
func (g *GlobalWindowAggregate) SetDiskState(b *diskstate.Backend, name string) {
	g.disk = &windowDisk{diskStore: diskStore{backend: b, name: name}}
}

// DiskEvictions returns how often the cached windows went to the store.
func (g *GlobalWindowAggregate) DiskEvictions() int {
	if g.disk == nil {
		return 0
	}
	return g.disk.evictions
}

// DiskBytes returns the bytes the aggregate's store takes on disk (0
// with the heap backend).
func (g *GlobalWindowAggregate) DiskBytes() uint64 {
	if g.disk == nil || g.disk.store == nil {
		return 0
	}
	return g.disk.store.DiskBytes()
}

func (g *GlobalWindowAggregate) openDisk() error {
	if g.disk.store != nil {
		return nil
	}
	probe, err := g.newGroups()
	if err != nil {
		return err
	}
	var sts []arrow.DataType
	for _, m := range probe.accs {
		sts = append(sts, m.StateTypes()...)
	}
	g.diskSch = g.stateSchema(probe.accs)
	closeMergers(probe.accs)
	return g.disk.setup("GlobalWindowAggregate", g.kts, sts)
}

// restoreCols returns the key and state columns of a "windows" record.
func (g *GlobalWindowAggregate) restoreCols(accs []agg.Merger) ([]int, [][]int) {
	nk := len(g.keys)
	keys := make([]int, nk)
	for i := range keys {
		keys[i] = 3 + i
	}
	var stateCols [][]int
	col := 3 + nk
	for _, m := range accs {
		var cs []int
		for range m.StateTypes() {
			cs = append(cs, col)
			col++
		}
		stateCols = append(stateCols, cs)
	}
	return keys, stateCols
}

func (g *GlobalWindowAggregate) cacheBytes() int64 {
	var n int64
	for _, w := range g.windows {
		if w.table != nil {
			n += w.table.SizeBytes()
		}
		for _, a := range w.accs {
			n += a.SizeBytes()
		}
	}
	return n
}

func (g *GlobalWindowAggregate) sortedWindows() [][2]int64 {
	wins := make([][2]int64, 0, len(g.windows))
	for win := range g.windows {
		wins = append(wins, win)
	}
	sortWindows(wins)
	return wins
}

func (g *GlobalWindowAggregate) spillDisk(keep bool) error {
	err := g.disk.spillAll(g.sortedWindows(), func(win [2]int64) cachedWindow { return groupsWindow{g.windows[win]} }, keep)
	if err != nil || keep {
		return err
	}
	for win, w := range g.windows {
		closeMergers(w.accs)
		delete(g.windows, win)
	}
	return nil
}

func (g *GlobalWindowAggregate) maybeSpill() error {
	if err := g.openDisk(); err != nil {
		return err
	}
	if len(g.windows) == 0 || g.cacheBytes() <= g.disk.budget {
		return nil
	}
	return g.spillDisk(false)
}

// loadDue brings window win, about to fire, from the store into the
// cache, and deletes it from the store.
func (g *GlobalWindowAggregate) loadDue(win [2]int64) error {
	if g.disk == nil || !g.disk.onDisk[win] {
		return nil
	}
	var c cachedWindow
	if w := g.windows[win]; w != nil {
		c = groupsWindow{w}
	}
	rec, kgs, err := g.disk.collect(win, c, g.diskSch)
	if err != nil {
		return err
	}
	if w := g.windows[win]; w != nil {
		closeMergers(w.accs)
		delete(g.windows, win)
	}
	if rec != nil {
		fresh, err := g.newGroups()
		if err != nil {
			rec.Release()
			return err
		}
		keys, stateCols := g.restoreCols(fresh.accs)
		g.windows[win] = fresh
		err = g.merge(win, rec, keys, stateCols, false)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return g.disk.drop(win, kgs)
}

// loadBatch gives the groups a batch of partial states adds to cached
// window win their stored state, before the batch merges into them.
func (g *GlobalWindowAggregate) loadBatch(win [2]int64, rec arrow.RecordBatch) error {
	w := g.windows[win]
	if w == nil {
		var err error
		if w, err = g.newGroups(); err != nil {
			return err
		}
		g.windows[win] = w
	}
	n := int(rec.NumRows())
	ids := make([]uint32, n)
	keys := make([]arrow.Array, len(g.keys))
	for i, k := range g.keys {
		keys[i] = rec.Column(k)
	}
	before := w.nGroups
	if err := w.insert(keys, n, ids); err != nil {
		return err
	}
	return g.disk.loadNew(win, keys, ids, before, groupsWindow{w})
}

func (g *GlobalWindowAggregate) dueWindows(wm int64) [][2]int64 {
	var due [][2]int64
	for win := range g.windows {
		if g.clock.instant(win[1])-1 <= wm {
			due = append(due, win)
		}
	}
	if g.disk != nil {
		due = append(due, g.disk.due(wm, g.clock, func(win [2]int64) bool { return g.windows[win] != nil })...)
	}
	sortWindows(due)
	return due
}

func (g *GlobalWindowAggregate) diskSnapshot(sw vectorized.StateWriter) error {
	if err := g.openDisk(); err != nil {
		return err
	}
	if err := g.spillDisk(true); err != nil {
		return err
	}
	files, err := g.disk.snapshotFiles(sw)
	if err != nil {
		return err
	}
	if !files {
		if err := g.disk.writeCanonical(sw, g.diskSch); err != nil {
			return err
		}
	}
	return writeWindowMeta(sw, g.wm, g.late.Load())
}

func (g *GlobalWindowAggregate) diskRestore(r vectorized.StateReader) (bool, error) {
	if err := g.openDisk(); err != nil {
		return true, err
	}
	ok, err := g.disk.restoreFiles(r)
	if !ok || err != nil {
		return ok, err
	}
	wm, late, err := readWindowMeta(r)
	if err != nil {
		return true, err
	}
	g.wm = wm
	if r.Subtask() == 0 {
		g.late.Store(late)
	}
	return true, nil
}
