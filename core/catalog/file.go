package catalog

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Catalog type names accepted by CREATE CATALOG … WITH ('type' = …).
const (
	// TypeGenericInMemory is Flink's in-memory catalog.
	TypeGenericInMemory = "generic_in_memory"
	// TypeFile is tablerun's persistent catalog (see File).
	TypeFile = "tablerun_file"
)

// File is tablerun's persistent catalog (type 'tablerun_file'): every
// database is a directory under the catalog's path and every table or view
// one JSON document in it, so permanent objects survive a restart:
//
//	<path>/catalog.json                       marker {"type":"tablerun_file","version":1}
//	<path>/<db>/database.json                 comment and properties of the database
//	<path>/<db>/objects/<name>.json           one table or view
//	<path>/<db>/functions/<name>.json         one catalog function
//
// Names are escaped for the file system (letters, digits, '_' and '-' are
// kept, every other byte becomes %XX). Each write goes to a temporary file
// that is fsynced and renamed over the target, then the directory is
// fsynced, so a crash leaves either the old or the new document, never a
// half-written one. Creating a database renames a fully written temporary
// directory into place; dropping one renames it away before deleting it.
// A document that cannot be read fails with an error naming the file
// (matching ErrCorrupt). The catalog is safe for concurrent use within one
// process; several processes must not write the same path at once.
type File struct {
	mu        sync.Mutex
	name      string
	root      string
	defaultDB string
}

// OpenFile opens (creating if needed) a file catalog under dir, creating
// its default database when it does not exist yet.
func OpenFile(name, dir, defaultDB string) (*File, error) {
	if dir == "" {
		return nil, catalogErr(nil, "The 'path' option of catalog %s must not be empty.", name)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, ioErr(name, dir, err)
	}
	c := &File{name: name, root: abs, defaultDB: defaultDB}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, ioErr(name, abs, err)
	}
	marker := filepath.Join(abs, "catalog.json")
	data, err := os.ReadFile(marker)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		entries, rerr := os.ReadDir(abs)
		if rerr != nil {
			return nil, ioErr(name, abs, rerr)
		}
		if len(entries) > 0 {
			return nil, catalogErr(nil, "Directory %s is not empty and holds no tablerun_file catalog (no catalog.json).", abs)
		}
		doc, _ := json.MarshalIndent(map[string]any{"type": TypeFile, "version": formatVersion}, "", "  ")
		if err := writeAtomic(marker, doc); err != nil {
			return nil, ioErr(name, marker, err)
		}
	case err != nil:
		return nil, ioErr(name, marker, err)
	default:
		var m struct {
			Type    string `json:"type"`
			Version int    `json:"version"`
		}
		if err := json.Unmarshal(data, &m); err != nil || m.Type != TypeFile || m.Version < 1 || m.Version > formatVersion {
			if err == nil {
				err = fmt.Errorf("type %q version %d", m.Type, m.Version)
			}
			return nil, corrupt(name, marker, err)
		}
	}
	if err := c.CreateDatabase(defaultDB, &Database{}, true); err != nil {
		return nil, err
	}
	return c, nil
}

// Path returns the catalog's directory.
func (c *File) Path() string { return c.root }

// DefaultDatabase implements Catalog.
func (c *File) DefaultDatabase() string { return c.defaultDB }

func (c *File) dbDir(db string) string { return filepath.Join(c.root, escapeName(db)) }

func (c *File) objectFile(db, name string) string {
	return filepath.Join(c.dbDir(db), "objects", escapeName(name)+".json")
}

// dbExists reports whether database db exists: its database.json is
// present. A database.json that cannot be read or decoded is an error
// naming the file, so that every statement touching the database (listing
// databases, its tables, reading one of its objects) fails the same way
// instead of some treating it as present and others as missing.
func (c *File) dbExists(db string) (bool, error) {
	p := filepath.Join(c.dbDir(db), "database.json")
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, ioErr(c.name, p, err)
	}
	if st.IsDir() {
		return false, corrupt(c.name, p, errors.New("is a directory"))
	}
	if _, err := c.readDatabase(db); err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, nil // removed meanwhile
		}
		return false, err
	}
	return true, nil
}

// ListDatabases implements Catalog.
func (c *File) ListDatabases() ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries, err := os.ReadDir(c.root)
	if err != nil {
		return nil, ioErr(c.name, c.root, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		db, ok := unescapeName(e.Name())
		if !ok {
			continue
		}
		if exists, err := c.dbExists(db); err != nil {
			return nil, err
		} else if exists {
			out = append(out, db)
		}
	}
	sort.Strings(out)
	return out, nil
}

// GetDatabase implements Catalog.
func (c *File) GetDatabase(name string) (*Database, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readDatabase(name)
}

func (c *File) readDatabase(name string) (*Database, error) {
	p := filepath.Join(c.dbDir(name), "database.json")
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, DatabaseNotExist(c.name, name)
	}
	if err != nil {
		return nil, ioErr(c.name, p, err)
	}
	d, err := decodeDatabase(data)
	if err != nil {
		return nil, corrupt(c.name, p, err)
	}
	return d, nil
}

// CreateDatabase implements Catalog.
func (c *File) CreateDatabase(name string, db *Database, ignoreIfExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.dbExists(name)
	if err != nil {
		return err
	}
	if exists {
		if ignoreIfExists {
			return nil
		}
		return DatabaseAlreadyExist(c.name, name)
	}
	data, err := encodeDatabase(db.clone())
	if err != nil {
		return ioErr(c.name, c.dbDir(name), err)
	}
	tmp := filepath.Join(c.root, ".tmp-db-"+randomSuffix())
	if err := os.MkdirAll(filepath.Join(tmp, "objects"), 0o755); err != nil {
		return ioErr(c.name, tmp, err)
	}
	if err := writeAtomic(filepath.Join(tmp, "database.json"), data); err != nil {
		_ = os.RemoveAll(tmp)
		return ioErr(c.name, tmp, err)
	}
	dir := c.dbDir(name)
	// a left-over directory without database.json is not a database
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return ioErr(c.name, dir, err)
	}
	if err := syncDir(c.root); err != nil {
		return ioErr(c.name, c.root, err)
	}
	return nil
}

// AlterDatabase implements Catalog.
func (c *File) AlterDatabase(name string, db *Database, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.dbExists(name)
	if err != nil {
		return err
	}
	if !exists {
		if ignoreIfNotExists {
			return nil
		}
		return DatabaseNotExist(c.name, name)
	}
	data, err := encodeDatabase(db.clone())
	if err != nil {
		return ioErr(c.name, c.dbDir(name), err)
	}
	p := filepath.Join(c.dbDir(name), "database.json")
	if err := writeAtomic(p, data); err != nil {
		return ioErr(c.name, p, err)
	}
	return nil
}

// DropDatabase implements Catalog.
func (c *File) DropDatabase(name string, ignoreIfNotExists, cascade bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.dbExists(name)
	if err != nil {
		return err
	}
	if !exists {
		if ignoreIfNotExists {
			return nil
		}
		return DatabaseNotExist(c.name, name)
	}
	names, err := c.listObjects(name)
	if err != nil {
		return err
	}
	fns, err := c.listFunctions(name)
	if err != nil {
		return err
	}
	if (len(names) > 0 || len(fns) > 0) && !cascade {
		return DatabaseNotEmpty(c.name, name)
	}
	trash := filepath.Join(c.root, ".trash-"+randomSuffix())
	if err := os.Rename(c.dbDir(name), trash); err != nil {
		return ioErr(c.name, c.dbDir(name), err)
	}
	if err := syncDir(c.root); err != nil {
		return ioErr(c.name, c.root, err)
	}
	if err := os.RemoveAll(trash); err != nil {
		return ioErr(c.name, trash, err)
	}
	return nil
}

// GetObject implements Catalog.
func (c *File) GetObject(db, name string) (Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readObject(db, name)
}

func (c *File) readObject(db, name string) (Object, error) {
	if exists, err := c.dbExists(db); err != nil {
		return nil, err
	} else if !exists {
		return nil, TableNotExist(c.name, db, name)
	}
	p := c.objectFile(db, name)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, TableNotExist(c.name, db, name)
	}
	if err != nil {
		return nil, ioErr(c.name, p, err)
	}
	o, err := DecodeObject(data)
	if err != nil {
		return nil, corrupt(c.name, p, err)
	}
	return o, nil
}

// ListObjects implements Catalog.
func (c *File) ListObjects(db string) ([]string, error) { return c.listDB(db, "objects") }

// listDB lists the documents of one kind (the subdirectory sub: "objects"
// or "functions") of database db, under the catalog's lock.
func (c *File) listDB(db, sub string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.dbExists(db)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, DatabaseNotExist(c.name, db)
	}
	return c.listDocs(db, sub)
}

func (c *File) listObjects(db string) ([]string, error) { return c.listDocs(db, "objects") }

// listDocs returns the unescaped names of the JSON documents in the
// subdirectory sub of database db, sorted; a missing directory is empty.
func (c *File) listDocs(db, sub string) ([]string, error) {
	dir := filepath.Join(c.dbDir(db), sub)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ioErr(c.name, dir, err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") {
			continue
		}
		if name, ok := unescapeName(strings.TrimSuffix(n, ".json")); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (c *File) objectExists(db, name string) (bool, error) {
	_, err := os.Stat(c.objectFile(db, name))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, ioErr(c.name, c.objectFile(db, name), err)
}

func (c *File) writeObject(db, name string, obj Object) error {
	data, err := EncodeObject(obj)
	if err != nil {
		return &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Cannot store %s.%s in catalog %s: %v", db, name, c.name, err), Cause: err}
	}
	return c.writeDoc(c.objectFile(db, name), data)
}

// CreateObject implements Catalog.
func (c *File) CreateObject(db, name string, obj Object, ignoreIfExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.dbExists(db)
	if err != nil {
		return err
	}
	if !exists {
		return DatabaseNotExist(c.name, db)
	}
	if exists, err = c.objectExists(db, name); err != nil {
		return err
	}
	if exists {
		if ignoreIfExists {
			return nil
		}
		return TableAlreadyExist(c.name, db, name)
	}
	return c.writeObject(db, name, obj)
}

// AlterObject implements Catalog.
func (c *File) AlterObject(db, name string, obj Object, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.objectExists(db, name)
	if err != nil {
		return err
	}
	if !exists {
		if ignoreIfNotExists {
			return nil
		}
		return TableNotExist(c.name, db, name)
	}
	return c.writeObject(db, name, obj)
}

// RenameObject implements Catalog. The rename is one atomic rename(2).
func (c *File) RenameObject(db, name, newName string, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.objectExists(db, name)
	if err != nil {
		return err
	}
	if !exists {
		if ignoreIfNotExists {
			return nil
		}
		return TableNotExist(c.name, db, name)
	}
	if exists, err = c.objectExists(db, newName); err != nil {
		return err
	}
	if exists {
		return TableAlreadyExist(c.name, db, newName)
	}
	from, to := c.objectFile(db, name), c.objectFile(db, newName)
	if err := os.Rename(from, to); err != nil {
		return ioErr(c.name, from, err)
	}
	if err := syncDir(filepath.Dir(to)); err != nil {
		return ioErr(c.name, filepath.Dir(to), err)
	}
	return nil
}

// DropObject implements Catalog.
func (c *File) DropObject(db, name string, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.objectFile(db, name)
	err := os.Remove(p)
	if errors.Is(err, fs.ErrNotExist) {
		if ignoreIfNotExists {
			return nil
		}
		return TableNotExist(c.name, db, name)
	}
	if err != nil {
		return ioErr(c.name, p, err)
	}
	if err := syncDir(filepath.Dir(p)); err != nil {
		return ioErr(c.name, filepath.Dir(p), err)
	}
	return nil
}

// Close implements Catalog; every write is already durable.
func (c *File) Close() error { return nil }

var _ Catalog = (*File)(nil)

// writeAtomic writes data to path through a fsynced temporary file in the
// same directory renamed over path, then fsyncs the directory.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return syncDir(dir)
}

// syncDir fsyncs a directory so that renames in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func randomSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// escapeName maps a database or object name to a file name: ASCII letters,
// digits, '_' and '-' are kept, every other byte is written %XX.
func escapeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', ch == '_', ch == '-':
			b.WriteByte(ch)
		default:
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	if b.Len() == 0 {
		return "%"
	}
	return b.String()
}

// unescapeName inverts escapeName; ok is false for names it never makes.
func unescapeName(s string) (string, bool) {
	if s == "%" {
		return "", true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+3 > len(s) {
			return "", false
		}
		v, err := hex.DecodeString(s[i+1 : i+3])
		if err != nil {
			return "", false
		}
		b.WriteByte(v[0])
		i += 2
	}
	return b.String(), true
}

func ioErr(catalog, path string, err error) *Error {
	return &Error{Class: ClassCatalogException, Cause: err,
		Msg: fmt.Sprintf("Catalog %s failed to access %s: %v", catalog, path, err)}
}

func corrupt(catalog, path string, err error) *Error {
	return &Error{Class: ClassCatalogException, Kind: ErrCorrupt, Cause: err,
		Msg: fmt.Sprintf("Catalog %s cannot read its metadata file %s (corrupt or written by a newer tablerun): %v", catalog, path, err)}
}

// writeDoc writes one metadata document atomically at p, creating its
// directory first.
func (c *File) writeDoc(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return ioErr(c.name, filepath.Dir(p), err)
	}
	if err := writeAtomic(p, data); err != nil {
		return ioErr(c.name, p, err)
	}
	return nil
}
