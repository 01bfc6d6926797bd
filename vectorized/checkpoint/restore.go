package checkpoint

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
)

// Restored is a complete, verified checkpoint or savepoint opened for
// restoring a job.
type Restored struct {
	path  string
	md    *metadata
	files map[string][]*restoredTask // by operator, in subtask order
}

// restoredTask is the state of one task: its file chain, the full
// snapshot first, then the deltas oldest first (one file without
// incremental checkpoints).
type restoredTask struct {
	subtask int
	chain   []*restoredFile
	store   map[string]string // store files: name → path (storefiles.go)
}

// restoredFile is one verified state file.
type restoredFile struct {
	path     string
	sections []section
}

// Open opens the checkpoint or savepoint to restore from.
//
// path may be a checkpoint (chk-<n>) or savepoint directory, or its
// _metadata file: it must be complete and valid, otherwise the error names
// the bad file. Any other directory (a job directory or the checkpoint
// root) is searched, one and two levels deep, for checkpoint and savepoint
// directories, and the newest valid one (by completion time, then id) is
// opened: a corrupt or incomplete one (missing or unreadable _metadata, a
// state file missing or with a wrong size or checksum) is skipped with a
// message through logf (which may be nil), falling back to the previous.
func Open(path string, logf func(format string, args ...any)) (*Restored, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("Cannot access checkpoint or savepoint path '%s': %w", path, err)
	}
	if !st.IsDir() {
		if filepath.Base(path) != MetadataFile {
			return nil, fmt.Errorf("'%s' is not a checkpoint or savepoint directory", path)
		}
		path = filepath.Dir(path)
	}
	if isCheckpointDir(path) {
		r, err := load(path)
		if err != nil {
			return nil, fmt.Errorf("cannot restore from %s: %w", path, err)
		}
		return r, nil
	}
	type candidate struct {
		dir string
		md  *metadata
	}
	var cands []candidate
	for _, dir := range findCheckpointDirs(path) {
		md, err := readMetadata(dir)
		if err != nil {
			if _, err := os.Stat(filepath.Join(dir, discardedMarker)); err == nil {
				continue // only holds state files a later checkpoint uses
			}
			logf("Skipping checkpoint %s: %v", dir, err)
			continue
		}
		cands = append(cands, candidate{dir, md})
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i].md, cands[j].md
		if a.Timestamp != b.Timestamp {
			return a.Timestamp > b.Timestamp
		}
		return a.CheckpointID > b.CheckpointID
	})
	for _, cd := range cands {
		r, err := loadWith(cd.dir, cd.md)
		if err != nil {
			logf("Skipping corrupt checkpoint %s: %v; falling back to an older checkpoint", cd.dir, err)
			continue
		}
		return r, nil
	}
	return nil, fmt.Errorf("no valid checkpoint or savepoint found under %s", path)
}

// isCheckpointDir reports whether dir is itself a checkpoint or savepoint.
func isCheckpointDir(dir string) bool {
	if isCheckpointDirName(filepath.Base(dir)) {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, MetadataFile))
	return err == nil
}

// findCheckpointDirs lists the checkpoint and savepoint directories in
// root and in its subdirectories (job directories).
func findCheckpointDirs(root string) []string {
	var out []string
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if isCheckpointDirName(e.Name()) {
			out = append(out, dir)
			continue
		}
		sub, _ := os.ReadDir(dir)
		for _, s := range sub {
			if s.IsDir() && isCheckpointDirName(s.Name()) {
				out = append(out, filepath.Join(dir, s.Name()))
			}
		}
	}
	return out
}

func load(dir string) (*Restored, error) {
	md, err := readMetadata(dir)
	if err != nil {
		return nil, err
	}
	return loadWith(dir, md)
}

// loadWith verifies every state file of a checkpoint against its
// metadata, the earlier files its deltas build on included.
func loadWith(dir string, md *metadata) (*Restored, error) {
	r := &Restored{path: dir, md: md, files: map[string][]*restoredTask{}}
	jobDir := filepath.Dir(dir)
	for _, t := range md.Tasks {
		rt := &restoredTask{subtask: t.Subtask}
		for _, ref := range t.Base {
			f, err := verifyFile(filepath.Join(jobDir, filepath.FromSlash(ref.File)), ref.Size, ref.CRC32C)
			if err != nil {
				return nil, fmt.Errorf("base of %s: %w", t.File, err)
			}
			rt.chain = append(rt.chain, f)
		}
		f, err := verifyFile(filepath.Join(dir, t.File), t.Size, t.CRC32C)
		if err != nil {
			return nil, err
		}
		rt.chain = append(rt.chain, f)
		if rt.store, err = verifyStoreFiles(jobDir, t.Files); err != nil {
			return nil, err
		}
		r.files[t.Operator] = append(r.files[t.Operator], rt)
	}
	for _, ts := range r.files {
		sort.Slice(ts, func(i, j int) bool { return ts[i].subtask < ts[j].subtask })
	}
	return r, nil
}

// verifyFile checks a state file's size, checksum and layout.
func verifyFile(name string, size int64, crc uint32) (*restoredFile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("state file %s is missing", name)
		}
		return nil, fmt.Errorf("reading state file %s: %w", name, err)
	}
	if int64(len(data)) != size {
		return nil, fmt.Errorf("state file %s has %d bytes, _metadata records %d", name, len(data), size)
	}
	if sum := crc32.Checksum(data, crcTable); sum != crc {
		return nil, fmt.Errorf("state file %s has checksum %08x, _metadata records %08x", name, sum, crc)
	}
	secs, err := parseStateFile(data)
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", name, err)
	}
	return &restoredFile{path: name, sections: secs}, nil
}

// ID returns the checkpoint's id.
func (r *Restored) ID() int64 { return r.md.CheckpointID }

// Path returns the checkpoint's or savepoint's directory.
func (r *Restored) Path() string { return r.path }

// JobID returns the id of the job that took the checkpoint.
func (r *Restored) JobID() string { return r.md.JobID }

// Savepoint reports whether this is a savepoint.
func (r *Restored) Savepoint() bool { return r.md.Savepoint }

// Timestamp returns the checkpoint's completion time in epoch
// milliseconds.
func (r *Restored) Timestamp() int64 { return r.md.Timestamp }

// Meta returns the key/value pairs set with Coordinator.SetMeta (nil if
// none).
func (r *Restored) Meta() map[string]string { return r.md.Meta }

// Parallelism returns the parallelism of an operator when the checkpoint
// was taken (0 if the operator is unknown).
func (r *Restored) Parallelism(operator string) int { return r.md.Parallelism[operator] }

// Operators returns the operators that have state files, sorted.
func (r *Restored) Operators() []string {
	out := make([]string, 0, len(r.files))
	for op := range r.files {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// Reader returns the state reader of subtask among parallelism instances
// of operator: Read merges the parts written by every subtask of the
// operator at snapshot time (in subtask order), and Owns keeps the key
// groups vectorized.SubtaskOf assigns to subtask. An operator without
// state in the checkpoint gives a reader with no parts. A parallelism
// below 1 counts as 1.
//
// When an instance wrote deltas (incremental checkpoints), the reader is
// a vectorized.LayeredStateReader: Layers gives the full snapshots, then
// the deltas, and Read refuses to merge them.
func (r *Restored) Reader(operator string, subtask, parallelism int) vectorized.StateReader {
	if parallelism < 1 {
		parallelism = 1
	}
	s := &stateReader{operator: operator, subtask: subtask, parallelism: parallelism, formerPar: r.md.Parallelism[operator]}
	for _, t := range r.files[operator] {
		if t.store != nil {
			s.stores = append(s.stores, vectorized.StoreFiles{Subtask: t.subtask, Files: t.store})
		}
		for i, f := range t.chain {
			if i == len(s.layers) {
				s.layers = append(s.layers, nil)
			}
			s.layers[i] = append(s.layers[i], f)
		}
	}
	return s
}

var _ vectorized.LayeredStateReader = (*stateReader)(nil)

type stateReader struct {
	operator    string
	layers      [][]*restoredFile // layer → files in subtask order
	subtask     int
	parallelism int
	stores      []vectorized.StoreFiles // storefiles.go
	formerPar   int
}

// Read implements vectorized.StateReader. A batch is valid only during
// fn: fn calls Retain on it to keep it longer.
func (s *stateReader) Read(part string, fn func(rec arrow.RecordBatch) error) error {
	if len(s.layers) > 1 {
		return fmt.Errorf("the state of %s holds incremental snapshots: the operator must read it by layers", s.operator)
	}
	if len(s.layers) == 0 {
		return nil
	}
	for _, f := range s.layers[0] {
		for _, sec := range f.sections {
			if sec.name != part {
				continue
			}
			if err := readSection(f.path, sec, fn); err != nil {
				return fmt.Errorf("reading state part %s of %s: %w", part, f.path, err)
			}
		}
	}
	return nil
}

// Layers implements vectorized.LayeredStateReader.
func (s *stateReader) Layers() []vectorized.StateReader {
	out := make([]vectorized.StateReader, len(s.layers))
	for i, l := range s.layers {
		out[i] = &stateReader{operator: s.operator, layers: [][]*restoredFile{l}, subtask: s.subtask, parallelism: s.parallelism, stores: s.stores, formerPar: s.formerPar}
	}
	return out
}

func readSection(path string, sec section, fn func(rec arrow.RecordBatch) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, sec.length)
	if _, err := f.ReadAt(buf, sec.offset); err != nil {
		return err
	}
	return readPart(buf, fn)
}

// Owns implements vectorized.StateReader.
func (s *stateReader) Owns(keyGroup int) bool {
	return vectorized.SubtaskOf(keyGroup, vectorized.DefaultMaxParallelism, s.parallelism) == s.subtask
}

// Subtask implements vectorized.StateReader.
func (s *stateReader) Subtask() int { return s.subtask }

// Parallelism implements vectorized.StateReader.
func (s *stateReader) Parallelism() int { return s.parallelism }
