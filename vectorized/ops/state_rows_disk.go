package ops

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// The disk state (state.backend.type = 'rocksdb') of the operators whose
// keyed state is a list of rows per key: Deduplicate and
// ChangelogNormalize (the kept row of a key) and the streaming Rank (a
// partition's rows in rank order).
//
// As for the group aggregates and the join, the operator's own maps are
// the cache of hot keys in front of the store. Store rows: key = key
// group, 'r', the encoded key columns; value = the key's rows, each
// encoded whole (diskstate.AppendRow), concatenated in order. At the start
// of a batch, when the cache outgrew the operator's share of the budget,
// the dirty keys are written in one write batch and the cache starts
// empty; then the batch's keys new to the cache are looked up in one
// sorted pass and their rows decoded into one record. A barrier writes
// the dirty keys, then takes a Pebble checkpoint into an incremental
// checkpoint, or writes the canonical part "rows" (key group, the rows'
// columns: what the heap backend writes) read back from the store, so
// savepoints move between the backends. A restore from the canonical part
// appends each row to its key's value with Pebble's concatenating merge,
// which keeps the rows' order and holds nothing in memory.

// storeStateRows is the state byte of the row lists in a store key.
const storeStateRows = 'r'

// rowsDisk is the disk state of a row-list operator.
type rowsDisk struct {
	diskStore

	in      types.Schema
	keys    []int
	as      *arrow.Schema
	ts      []arrow.DataType
	rowCost int64 // estimated heap bytes of one cached row

	known map[string][]byte // the store key of every key in the cache
	dirty map[string]bool
	bytes int64 // estimated bytes of the cache

	evictions int // times the cache was emptied into the store
}

func newRowsDisk(b *diskstate.Backend, name string) *rowsDisk {
	return &rowsDisk{diskStore: diskStore{backend: b, name: name}}
}

// open checks the row types and opens the store (op names the node in
// errors).
func (d *rowsDisk) open(op string, in types.Schema, keys []int) error {
	as, err := types.ArrowSchema(in)
	if err != nil {
		return err
	}
	d.in, d.keys, d.as = in, keys, as
	d.ts = d.ts[:0]
	for _, f := range as.Fields() {
		d.ts = append(d.ts, f.Type)
	}
	if err := diskstate.CheckTypes(d.ts); err != nil {
		return fmt.Errorf("not supported yet: state.backend.type 'rocksdb' for %s: %w", op, err)
	}
	// a []any row: its slice, an interface per value and the payload
	d.rowCost = 24 + 32*int64(len(in))
	d.known, d.dirty = map[string][]byte{}, map[string]bool{}
	return d.openStore()
}

func (d *rowsDisk) close() error {
	if d == nil {
		return nil
	}
	return d.closeStore()
}

// touch marks key k changed.
func (d *rowsDisk) touch(k string) { d.dirty[k] = true }

// grow records n more rows in the cache.
func (d *rowsDisk) grow(n int) { d.bytes += int64(n) * d.rowCost }

// prepare readies the cache for a batch of rows whose keys are ks: past
// the budget the dirty keys (get returns a key's rows) are written and
// evict empties the operator's cache; then the keys new to the cache get
// their rows from the store through put.
func (d *rowsDisk) prepare(rows [][]any, ks []string, get func(k string) [][]any, evict func(), put func(k string, rows [][]any)) error {
	if d.bytes > d.budget && len(d.known) > 0 {
		if err := d.flush(get); err != nil {
			return err
		}
		evict()
		d.known, d.bytes = map[string][]byte{}, 0
		d.evictions++
	}
	var fresh [][]any
	var freshKeys []string
	for i, k := range ks {
		if _, ok := d.known[k]; ok {
			continue
		}
		d.known[k] = nil // the store key follows
		fresh = append(fresh, rows[i])
		freshKeys = append(freshKeys, k)
	}
	if len(fresh) == 0 {
		return nil
	}
	storeKeys, err := d.storeKeys(fresh)
	if err != nil {
		return err
	}
	for i, k := range freshKeys {
		d.known[k] = storeKeys[i]
	}
	if d.store.Empty() {
		return nil
	}
	dec, err := diskstate.NewDecoder(vectorized.Mem, d.ts)
	if err != nil {
		return err
	}
	defer dec.Release()
	type found struct{ key, n int }
	var fs []found
	err = d.store.Lookup(storeKeys, func(i int, v []byte) error {
		f := found{key: i}
		d.bytes += int64(len(v))
		for len(v) > 0 {
			var err error
			if v, err = dec.Append(v); err != nil {
				return fmt.Errorf("corrupt disk state of %s: %w", d.name, err)
			}
			f.n++
		}
		fs = append(fs, f)
		return nil
	})
	if err != nil || len(fs) == 0 {
		return err
	}
	cols := dec.Finish()
	rec, err := NewRecord(d.as, cols, int64(cols[0].Len()))
	releaseArrays(cols)
	if err != nil {
		return err
	}
	loaded := types.RecordRows(rec, d.in)
	rec.Release()
	at := 0
	for _, f := range fs {
		put(freshKeys[f.key], loaded[at:at+f.n:at+f.n])
		d.grow(f.n)
		at += f.n
	}
	return nil
}

// storeKeys returns the store keys of the keys of rows: the key group and
// the encoding of the key columns of a record built from the rows, as the
// heap backend's snapshot computes the key group.
func (d *rowsDisk) storeKeys(rows [][]any) ([][]byte, error) {
	rec, err := buildRows(d.as, d.in, rows)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	kgs := keyGroupsOf(rec, d.keys)
	cols := make([]arrow.Array, len(d.keys))
	for i, k := range d.keys {
		cols[i] = rec.Column(k)
	}
	out := make([][]byte, len(rows))
	for i, kg := range kgs {
		k := diskstate.Key(nil, int(kg), storeStateRows, nil)
		if k, err = diskstate.AppendRow(k, cols, i); err != nil {
			return nil, err
		}
		out[i] = k
	}
	return out, nil
}

// flush writes the dirty keys' rows (get) in one write batch; a key
// without rows is deleted.
func (d *rowsDisk) flush(get func(k string) [][]any) error {
	if len(d.dirty) == 0 {
		return nil
	}
	keys := make([]string, 0, len(d.dirty))
	for k := range d.dirty {
		keys = append(keys, k)
	}
	clear(d.dirty)
	slices.Sort(keys)
	b := d.store.NewBatch()
	var val []byte
	for lo := 0; lo < len(keys); {
		// a chunk of keys with at most about stateRowsPerBatch rows
		var rows [][]any
		var lists []int
		hi := lo
		for ; hi < len(keys) && (hi == lo || len(rows) < stateRowsPerBatch); hi++ {
			list := get(keys[hi])
			rows = append(rows, list...)
			lists = append(lists, len(list))
		}
		var rec arrow.RecordBatch
		if len(rows) > 0 {
			var err error
			if rec, err = buildRows(d.as, d.in, rows); err != nil {
				b.Discard()
				return err
			}
		}
		at := 0
		var err error
		for i, n := range lists {
			sk := d.known[keys[lo+i]]
			if sk == nil {
				err = fmt.Errorf("internal: %s: a dirty key without its store key", d.name)
				break
			}
			if n == 0 {
				if err = b.Delete(sk); err != nil {
					break
				}
				continue
			}
			val = val[:0]
			for r := at; r < at+n && err == nil; r++ {
				val, err = diskstate.AppendRow(val, rec.Columns(), r)
			}
			at += n
			if err == nil {
				err = b.Set(sk, val)
			}
			if err != nil {
				break
			}
		}
		if rec != nil {
			rec.Release()
		}
		if err != nil {
			b.Discard()
			return err
		}
		lo = hi
	}
	return b.Commit()
}

// snapshot writes the checkpoint of the store (after flush): its files
// into an incremental checkpoint, or the canonical part of sr.
func (d *rowsDisk) snapshot(w vectorized.StateWriter, sr *stateRows) error {
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
	var dec *diskstate.Decoder
	var kgs []int32
	emit := func() error {
		if dec == nil {
			return nil
		}
		cols := append([]arrow.Array{int32Array(kgs)}, dec.Finish()...)
		dec.Release()
		dec, kgs = nil, nil
		rec, err := NewRecord(sr.schema, cols, int64(cols[0].Len()))
		releaseArrays(cols)
		if err != nil {
			return err
		}
		defer rec.Release()
		return w.Write(sr.part, rec)
	}
	err := d.store.Scan(0, vectorized.DefaultMaxParallelism, storeStateRows, func(k, v []byte) error {
		if dec == nil {
			var err error
			if dec, err = diskstate.NewDecoder(vectorized.Mem, d.ts); err != nil {
				return err
			}
		}
		kg := int32(diskstate.KeyGroupOf(k))
		for len(v) > 0 {
			var err error
			if v, err = dec.Append(v); err != nil {
				return fmt.Errorf("corrupt disk state of %s: %w", d.name, err)
			}
			kgs = append(kgs, kg)
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
	return err
}

// restore fills the store: from store files, or from the canonical part
// of sr (each row merged onto its key's value, in order).
func (d *rowsDisk) restore(r vectorized.StateReader, sr *stateRows) error {
	if fr, ok := r.(vectorized.FileStateReader); ok {
		if stores, former := fr.StoreFiles(); len(stores) > 0 {
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
	return r.Read(sr.part, func(rec arrow.RecordBatch) error {
		if err := checkStateSchema(sr.part, rec, sr.schema); err != nil {
			return err
		}
		kg := rec.Column(0).(*array.Int32)
		cols := rec.Columns()[1:]
		keyCols := make([]arrow.Array, len(d.keys))
		for i, k := range d.keys {
			keyCols[i] = cols[k]
		}
		b := d.store.NewBatch()
		var key, val []byte
		for i := 0; i < kg.Len(); i++ {
			if !r.Owns(int(kg.Value(i))) {
				continue
			}
			key = diskstate.Key(key[:0], int(kg.Value(i)), storeStateRows, nil)
			var err error
			if key, err = diskstate.AppendRow(key, keyCols, i); err == nil {
				if val, err = diskstate.AppendRow(val[:0], cols, i); err == nil {
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
}
