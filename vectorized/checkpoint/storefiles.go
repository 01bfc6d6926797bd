package checkpoint

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tablerun/tablerun/vectorized"
)

// Store files of disk-state operators (state.backend.type = 'rocksdb').
//
// An incremental checkpoint of such an operator holds its store's
// checkpoint (vectorized.FileStateWriter): the immutable files (Pebble's
// tables, named by the store's unique id) live in the job directory's
// shared/<task>/ — moved there by the first checkpoint that has them and
// referenced by every later one that still does, as Flink's shared state
// of incremental RocksDB checkpoints — and the rest (manifest, options)
// in chk-<n>/<task>.files/. The task's _metadata entry lists every file
// with its path relative to the job directory, size and CRC32C. Retention
// deletes a shared file once no retained checkpoint lists it.

// sharedDir is the job directory's folder of shared store files.
const sharedDir = "shared"

// storeFile is one store file of a task's snapshot.
type storeFile struct {
	// Name is the file's name in the store.
	Name string `json:"name"`
	// Path is relative to the job directory, with '/'.
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	CRC32C uint32 `json:"crc32c"`
}

// validStoreFile checks the form of a store file entry of checkpoint chk.
func validStoreFile(f storeFile, chk string, savepoint bool) bool {
	if savepoint || f.Name == "" || f.Name != filepath.Base(f.Name) || strings.HasPrefix(f.Name, ".") {
		return false
	}
	if path.Clean(f.Path) != f.Path || strings.Contains(f.Path, "..") || strings.HasPrefix(f.Path, "/") {
		return false
	}
	parts := strings.Split(f.Path, "/")
	if len(parts) != 3 {
		return false
	}
	return parts[0] == sharedDir || parts[0] == chk
}

// storeTarget is where a fileWriter puts store files.
type storeTarget struct {
	c              *Coordinator
	p              *pendingCheckpoint
	jobDir, chkDir string
	task           TaskID
	dirGiven       bool
	files          []storeFile
}

var _ vectorized.FileStateWriter = (*fileWriter)(nil)

func (t *storeTarget) fileDir() string { return filepath.Join(t.chkDir, t.task.String()+".files") }

// FileDir implements vectorized.FileStateWriter.
func (w *fileWriter) FileDir() (string, error) {
	if !w.Incremental() || w.store.c == nil {
		return "", fmt.Errorf("checkpoint %d cannot hold store files (a savepoint, or incremental checkpoints are off)", w.id)
	}
	if w.store.dirGiven {
		return "", fmt.Errorf("checkpoint %d: FileDir called twice", w.id)
	}
	w.store.dirGiven = true
	return w.store.fileDir(), nil
}

// AddFiles implements vectorized.FileStateWriter.
func (w *fileWriter) AddFiles(prefix string, shared func(name string) bool) error {
	t := &w.store
	if !t.dirGiven {
		return errors.New("AddFiles before FileDir")
	}
	if prefix == "" || strings.ContainsAny(prefix, `/\`) || strings.HasPrefix(prefix, ".") {
		return fmt.Errorf("bad store file prefix %q", prefix)
	}
	dir := t.fileDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	chk := filepath.Base(t.chkDir)
	sharedTask := filepath.Join(t.jobDir, sharedDir, t.task.String())
	madeShared := false
	for _, e := range entries {
		if e.IsDir() {
			return fmt.Errorf("store checkpoint holds a directory %s", e.Name())
		}
		name := e.Name()
		src := filepath.Join(dir, name)
		if !shared(name) {
			f, err := describe(src)
			if err != nil {
				return err
			}
			f.Name, f.Path = name, chk+"/"+filepath.Base(dir)+"/"+name
			if err := syncFile(src); err != nil {
				return err
			}
			t.files = append(t.files, f)
			continue
		}
		rel := sharedDir + "/" + t.task.String() + "/" + prefix + "-" + name
		dst := filepath.Join(t.jobDir, filepath.FromSlash(rel))
		if f, ok := t.c.sharedFile(rel, t.p); ok {
			if _, err := os.Stat(dst); err == nil {
				_ = os.Remove(src)
				f.Name = name
				t.files = append(t.files, f)
				continue
			}
		}
		if !madeShared {
			if err := os.MkdirAll(sharedTask, 0o755); err != nil {
				return err
			}
			madeShared = true
		}
		if err := os.Rename(src, dst); err != nil {
			return fmt.Errorf("moving store file %s: %w", name, err)
		}
		if err := syncFile(dst); err != nil {
			return err
		}
		f, err := describe(dst)
		if err != nil {
			return err
		}
		f.Name, f.Path = name, rel
		t.c.addShared(f, t.p)
		t.files = append(t.files, f)
	}
	if madeShared {
		if err := syncDir(sharedTask); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// describe returns the size and CRC32C of a file.
func describe(name string) (storeFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return storeFile{}, err
	}
	defer f.Close()
	h := crc32.New(crcTable)
	n, err := io.Copy(h, f)
	if err != nil {
		return storeFile{}, err
	}
	return storeFile{Size: n, CRC32C: h.Sum32()}, nil
}

func syncFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// sharedFile returns the shared store file at rel, if there is one, for
// checkpoint p to reference. A file that only a checkpoint still in
// progress or discarded references passes to p: if p is discarded too,
// the file goes with it (discardShared).
func (c *Coordinator) sharedFile(rel string, p *pendingCheckpoint) (storeFile, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.shared[rel]
	if ok {
		if _, owned := c.sharedOwner[rel]; owned {
			c.sharedOwner[rel] = p
		}
	}
	return f, ok
}

// addShared records a store file that checkpoint p moved into the shared
// directory: p owns it until p completes.
func (c *Coordinator) addShared(f storeFile, p *pendingCheckpoint) {
	c.mu.Lock()
	c.shared[f.Path] = f
	c.sharedOwner[f.Path] = p
	c.mu.Unlock()
}

// ownShared ends p's ownership of the shared files it added: p completed,
// so retention decides about them from now on.
func (c *Coordinator) ownShared(p *pendingCheckpoint) {
	c.mu.Lock()
	for rel, o := range c.sharedOwner {
		if o == p {
			delete(c.sharedOwner, rel)
		}
	}
	c.mu.Unlock()
}

// discardShared deletes the shared files only the discarded checkpoint p
// referenced: no completed checkpoint lists them, and none ever will.
func (c *Coordinator) discardShared(p *pendingCheckpoint) {
	c.mu.Lock()
	var drop []string
	for rel, o := range c.sharedOwner {
		if o == p {
			drop = append(drop, rel)
			delete(c.sharedOwner, rel)
			delete(c.shared, rel)
		}
	}
	c.mu.Unlock()
	if len(drop) == 0 {
		return
	}
	jobDir := filepath.Join(c.cfg.Dir, c.cfg.JobID)
	for _, rel := range drop {
		if err := os.Remove(filepath.Join(jobDir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.logf("Failed to discard shared state file %s: %v", rel, err)
		}
	}
}

// sweepShared deletes the shared store files no retained checkpoint
// lists (keep: paths relative to the job directory). It runs when a
// checkpoint completes, while no other is in progress.
func (c *Coordinator) sweepShared(jobDir string, keep map[string]bool) {
	root := filepath.Join(jobDir, sharedDir)
	tasks, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, td := range tasks {
		if !td.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, td.Name()))
		if err != nil {
			continue
		}
		left := 0
		for _, f := range files {
			rel := sharedDir + "/" + td.Name() + "/" + f.Name()
			c.mu.Lock()
			_, owned := c.sharedOwner[rel]
			c.mu.Unlock()
			if keep[rel] || owned {
				left++
				continue
			}
			if err := os.Remove(filepath.Join(root, td.Name(), f.Name())); err != nil {
				c.logf("Failed to discard shared state file %s: %v", rel, err)
				left++
				continue
			}
			c.mu.Lock()
			delete(c.shared, rel)
			c.mu.Unlock()
		}
		if left == 0 {
			_ = os.Remove(filepath.Join(root, td.Name()))
		}
	}
}

// verifyStoreFiles checks the store files of a task against _metadata
// and returns them by name (nil when there are none).
func verifyStoreFiles(jobDir string, files []storeFile) (map[string]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(files))
	for _, f := range files {
		p := filepath.Join(jobDir, filepath.FromSlash(f.Path))
		got, err := describe(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("store file %s is missing", p)
			}
			return nil, fmt.Errorf("reading store file %s: %w", p, err)
		}
		if got.Size != f.Size {
			return nil, fmt.Errorf("store file %s has %d bytes, _metadata records %d", p, got.Size, f.Size)
		}
		if got.CRC32C != f.CRC32C {
			return nil, fmt.Errorf("store file %s has checksum %08x, _metadata records %08x", p, got.CRC32C, f.CRC32C)
		}
		if _, dup := out[f.Name]; dup {
			return nil, fmt.Errorf("store file %s listed twice", f.Name)
		}
		out[f.Name] = p
	}
	return out, nil
}

var _ vectorized.FileStateReader = (*stateReader)(nil)

// StoreFiles implements vectorized.FileStateReader.
func (s *stateReader) StoreFiles() ([]vectorized.StoreFiles, int) { return s.stores, s.formerPar }
