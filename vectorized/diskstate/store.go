// Package diskstate is the disk state backend of the streaming operators
// (state.backend.type = 'rocksdb'): keyed state in an embedded LSM, Pebble
// (github.com/cockroachdb/pebble/v2), whose on-disk format it is.
//
// A Backend is one job's: a working directory under the job's temporary
// directory (io.tmp.dirs), removed when the job ends, one block cache
// shared by the job's stores, and the memory budget
// (taskmanager.memory.managed.size) split among them. A Store is one
// operator instance's Pebble database: one per instance, as Flink keeps
// one RocksDB instance per keyed operator subtask, because a checkpoint
// of an instance is taken when the barrier passes that instance — a
// Pebble checkpoint is a point in time of one database, so a database
// shared by several instances could not give each its own point in time.
//
// Keys start with the key group (two bytes, big-endian), then one byte
// naming the state within the operator, then the key's bytes (Key), so
// the rows of a range of key groups are one range of the store: a restore
// at another parallelism copies the ranges the new instance owns.
//
// The store is reached a batch at a time: Lookup takes a batch of keys,
// sorts them and walks them with one iterator; writes go into a
// pebble.Batch committed once. The WAL is off: a store is recovered from
// checkpoints, never from its own directory.
package diskstate

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Config configures a job's disk state.
type Config struct {
	// TmpDir is the directory the job's working directory goes under
	// ('' is os.TempDir).
	TmpDir string
	// Managed is state.backend.rocksdb.memory.managed: Budget is shared
	// by all stores of the job.
	Managed bool
	// Budget is taskmanager.memory.managed.size in bytes.
	Budget int64
	// CacheBytes, when positive, replaces each operator's share of the
	// budget for its cache of hot keys (tests: 1 empties the cache at
	// every batch).
	CacheBytes int64
}

// Backend is the disk state of one job.
type Backend struct {
	cfg   Config
	root  string
	cache *pebble.Cache

	mu      sync.Mutex
	stores  int // stores the job will open (Reserve), for the budget split
	open    map[*Store]bool
	closed  bool
	created bool
}

// NewBackend returns the disk state of a job; its directory is created
// when the first store opens. Call Close when the job ends.
func NewBackend(cfg Config) *Backend {
	if cfg.Budget <= 0 {
		cfg.Budget = 128 << 20
	}
	return &Backend{cfg: cfg, open: map[*Store]bool{}}
}

// Reserve announces one more store the job will open (called while the
// job is built, so that each store's share of the budget is known when
// it opens).
func (b *Backend) Reserve() {
	b.mu.Lock()
	b.stores++
	b.mu.Unlock()
}

// CacheBudget returns the bytes of hot keys one operator instance may
// keep in memory in front of its store: half the budget, split among the
// job's stores.
func (b *Backend) CacheBudget() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cfg.CacheBytes > 0 {
		return b.cfg.CacheBytes
	}
	return max(b.cfg.Budget/2/int64(max(b.stores, 1)), 32<<10)
}

// Root returns the working directory (” before the first store).
func (b *Backend) Root() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.created {
		return ""
	}
	return b.root
}

func randomHex(n int) string {
	p := make([]byte, n)
	_, _ = rand.Read(p)
	return hex.EncodeToString(p)
}

// Open opens a new, empty store for an operator instance (name: the task,
// "3-GroupAggregate-0").
func (b *Backend) Open(name string) (*Store, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("disk state backend closed")
	}
	if !b.created {
		tmp := b.cfg.TmpDir
		if tmp == "" {
			tmp = os.TempDir()
		}
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return nil, fmt.Errorf("state.backend.type 'rocksdb': %w", err)
		}
		root, err := os.MkdirTemp(tmp, "tablerun-rocksdb-")
		if err != nil {
			return nil, fmt.Errorf("state.backend.type 'rocksdb': %w", err)
		}
		b.root, b.created = root, true
		share := b.cfg.Budget / 4
		if !b.cfg.Managed {
			share = 8 << 20 * int64(max(b.stores, 1)) // Flink's block-cache default per instance
		}
		b.cache = pebble.NewCache(share)
	}
	uid := randomHex(6)
	dir := filepath.Join(b.root, sanitize(name)+"-"+uid)
	mem := uint64(64 << 20) // Flink's write-buffer default without managed memory
	if b.cfg.Managed {
		mem = uint64(min(max(b.cfg.Budget/4/int64(max(b.stores, 1)), 256<<10), 64<<20))
	}
	opts := &pebble.Options{
		Cache:                       b.cache,
		DisableWAL:                  true,
		MemTableSize:                mem,
		MemTableStopWritesThreshold: 4,
		Logger:                      quietLogger{},
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("state.backend.type 'rocksdb': opening the store of %s: %w", name, err)
	}
	s := &Store{b: b, db: db, dir: dir, uid: uid, opts: opts}
	b.open[s] = true
	return s, nil
}

// Close closes every store still open and removes the working directory.
func (b *Backend) Close() error {
	b.mu.Lock()
	stores := make([]*Store, 0, len(b.open))
	for s := range b.open {
		stores = append(stores, s)
	}
	b.closed = true
	b.mu.Unlock()
	var first error
	for _, s := range stores {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cache != nil {
		b.cache.Unref()
		b.cache = nil
	}
	if b.created {
		if err := os.RemoveAll(b.root); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, name)
}

type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}

// Store is one operator instance's state database.
type Store struct {
	b    *Backend
	db   *pebble.DB
	dir  string
	uid  string
	opts *pebble.Options
	// written: something was ever written (a lookup in a store never
	// written to is skipped).
	written bool
}

// Key appends the store key of (key group, state, key bytes) to buf.
func Key(buf []byte, keyGroup int, state byte, key []byte) []byte {
	buf = binary.BigEndian.AppendUint16(buf, uint16(keyGroup))
	buf = append(buf, state)
	return append(buf, key...)
}

// KeyGroupOf returns the key group of a store key.
func KeyGroupOf(k []byte) int { return int(binary.BigEndian.Uint16(k)) }

// Empty reports whether nothing was ever written into the store.
func (s *Store) Empty() bool { return !s.written }

// Lookup looks keys up in one pass: they are visited in sorted order with
// one iterator, and found is called with the index in keys and the value
// of each key the store holds (valid only during the call).
func (s *Store) Lookup(keys [][]byte, found func(i int, val []byte) error) error {
	if !s.written || len(keys) == 0 {
		return nil
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return bytes.Compare(keys[order[a]], keys[order[b]]) < 0 })
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: keys[order[0]]})
	if err != nil {
		return err
	}
	for _, i := range order {
		k := keys[i]
		if !it.SeekGE(k) || !bytes.Equal(it.Key(), k) {
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return err
		}
		if err := found(i, v); err != nil {
			it.Close()
			return err
		}
	}
	return it.Close()
}

// Batch is a write batch of a store.
type Batch struct {
	s *Store
	b *pebble.Batch
}

// NewBatch returns an empty write batch.
func (s *Store) NewBatch() *Batch { return &Batch{s: s, b: s.db.NewBatch()} }

// Set puts key = val into the batch (both are copied).
func (b *Batch) Set(key, val []byte) error { return b.b.Set(key, val, nil) }

// Merge appends val to key's value (Pebble's default merger
// concatenates): rows of a list restored one at a time.
func (b *Batch) Merge(key, val []byte) error { return b.b.Merge(key, val, nil) }

// Delete removes key.
func (b *Batch) Delete(key []byte) error { return b.b.Delete(key, nil) }

// Len returns the number of operations in the batch.
func (b *Batch) Len() int { return int(b.b.Count()) }

// Commit applies the batch (not synced: durability comes from
// checkpoints) and releases it.
func (b *Batch) Commit() error {
	defer b.b.Close()
	if b.b.Empty() {
		return nil
	}
	b.s.written = true
	return b.b.Commit(pebble.NoSync)
}

// Discard releases the batch without applying it.
func (b *Batch) Discard() { _ = b.b.Close() }

// Scan calls fn with every key and value of state whose key group is in
// [lo, hi), in key order (key and val valid only during the call).
func (s *Store) Scan(lo, hi int, state byte, fn func(key, val []byte) error) error {
	if !s.written {
		return nil
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: Key(nil, lo, 0, nil), UpperBound: Key(nil, hi, 0, nil)})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) < 3 || k[2] != state {
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return err
		}
		if err := fn(k, v); err != nil {
			it.Close()
			return err
		}
	}
	return it.Close()
}

// DiskBytes returns the bytes the store takes on disk, its memtables
// flushed first (a measurement, not for the hot path).
func (s *Store) DiskBytes() uint64 {
	_ = s.db.Flush()
	return s.db.Metrics().DiskSpaceUsage()
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Checkpoint flushes the memtables and writes a checkpoint of the store
// into dir (which must not exist): hard links of the immutable files
// (copies across file systems), a copy of the others. It returns the
// file names; Shared tells the immutable ones.
func (s *Store) Checkpoint(dir string) ([]string, error) {
	if err := s.db.Flush(); err != nil {
		return nil, err
	}
	if err := s.db.Checkpoint(dir); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// Shared reports the files of a store checkpoint that never change once
// written (tables and blob files), named uniquely by the store's id: a
// checkpoint stores them once per job and every later checkpoint that
// still holds them references them.
func (s *Store) Shared(name string) bool { return IsImmutable(name) }

// IsImmutable reports the names of Pebble's immutable files.
func IsImmutable(name string) bool {
	return strings.HasSuffix(name, ".sst") || strings.HasSuffix(name, ".blob")
}

// UID returns the store's unique id (immutable files are stored under it).
func (s *Store) UID() string { return s.uid }

// Restore fills the empty store from checkpoints of stores of the same
// operator: each source is a map from file name to path. When one source
// holds exactly the key groups the store owns (a restore at the same
// parallelism) its files become the store (copied, as a checkpoint is
// never changed); otherwise every source is opened read-only from a copy
// and the rows whose key group owns reports are copied in.
func (s *Store) Restore(sources []map[string]string, whole bool, owns func(keyGroup int) bool) error {
	if len(sources) == 0 {
		return nil
	}
	if whole && len(sources) == 1 {
		if err := s.db.Close(); err != nil {
			return err
		}
		if err := os.RemoveAll(s.dir); err != nil {
			return err
		}
		if err := copyFiles(sources[0], s.dir); err != nil {
			return err
		}
		db, err := pebble.Open(s.dir, s.opts)
		if err != nil {
			return fmt.Errorf("opening the restored store: %w", err)
		}
		s.db = db
		s.written = true
		return nil
	}
	for i, src := range sources {
		tmp := s.dir + fmt.Sprintf(".restore-%d", i)
		if err := copyFiles(src, tmp); err != nil {
			return err
		}
		opts := *s.opts
		opts.ReadOnly = true
		db, err := pebble.Open(tmp, &opts)
		if err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("opening a restored store: %w", err)
		}
		err = s.copyOwned(db, owns)
		db.Close()
		os.RemoveAll(tmp)
		if err != nil {
			return err
		}
	}
	return nil
}

// copyOwned copies the rows of the key groups owns reports from db.
func (s *Store) copyOwned(db *pebble.DB, owns func(int) bool) error {
	it, err := db.NewIter(nil)
	if err != nil {
		return err
	}
	defer it.Close()
	b := s.NewBatch()
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) < 2 || !owns(KeyGroupOf(k)) {
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			b.Discard()
			return err
		}
		if err := b.Set(k, v); err != nil {
			b.Discard()
			return err
		}
		if b.Len() >= 4096 {
			if err := b.Commit(); err != nil {
				return err
			}
			b = s.NewBatch()
		}
	}
	return b.Commit()
}

// copyFiles copies (hard-links when possible: checkpoint files are never
// changed in place) the files of src into the new directory dir.
func copyFiles(src map[string]string, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(src))
	for n := range src {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		dst := filepath.Join(dir, n)
		if IsImmutable(n) {
			if err := os.Link(src[n], dst); err == nil {
				continue
			}
		}
		data, err := os.ReadFile(src[n])
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the store and removes its directory.
func (s *Store) Close() error {
	s.b.mu.Lock()
	if !s.b.open[s] {
		s.b.mu.Unlock()
		return nil
	}
	delete(s.b.open, s)
	s.b.mu.Unlock()
	err := s.db.Close()
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}
