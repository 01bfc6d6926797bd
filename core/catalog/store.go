package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// FileCatalogStore keeps the descriptors of the catalogs made by CREATE
// CATALOG in a directory, one YAML file per catalog (<dir>/<name>.yaml with
// the catalog's options and, under "comment", its comment), so that a new
// session re-creates them: Flink's catalog store of kind 'file'
// (table.catalog-store.kind = 'file', table.catalog-store.file.path). Files
// are written atomically like the file catalog's.
type FileCatalogStore struct {
	dir string
}

// OpenFileCatalogStore opens (creating if needed) a catalog store in dir.
func OpenFileCatalogStore(dir string) (*FileCatalogStore, error) {
	if dir == "" {
		return nil, CatalogException("The catalog store of kind 'file' needs the option 'table.catalog-store.file.path'.")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to open catalog store directory %s: %v", dir, err), Cause: err}
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to open catalog store directory %s: %v", abs, err), Cause: err}
	}
	return &FileCatalogStore{dir: abs}, nil
}

func (s *FileCatalogStore) file(name string) string {
	return filepath.Join(s.dir, escapeName(name)+".yaml")
}

// Load returns the stored descriptors by catalog name.
func (s *FileCatalogStore) Load() (map[string]Descriptor, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to read catalog store directory %s: %v", s.dir, err), Cause: err}
	}
	out := map[string]Descriptor{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".yaml") {
			continue
		}
		name, ok := unescapeName(strings.TrimSuffix(n, ".yaml"))
		if !ok {
			continue
		}
		p := filepath.Join(s.dir, n)
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to read catalog store file %s: %v", p, err), Cause: err}
		}
		var m map[string]string
		if err := yaml.Unmarshal(data, &m); err != nil || m["type"] == "" {
			if err == nil {
				err = errors.New("no 'type' option")
			}
			return nil, &Error{Class: ClassCatalogException, Kind: ErrCorrupt, Cause: err,
				Msg: fmt.Sprintf("Cannot read catalog store file %s (corrupt): %v", p, err)}
		}
		d := Descriptor{Comment: m["comment"], Options: map[string]string{}}
		for k, v := range m {
			if k != "comment" {
				d.Options[k] = v
			}
		}
		out[name] = d
	}
	return out, nil
}

// Store writes the descriptor of a catalog.
func (s *FileCatalogStore) Store(name string, d Descriptor) error {
	keys := make([]string, 0, len(d.Options))
	for k := range d.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "# catalog %s, written by tablerun\n", name)
	for _, k := range keys {
		line, err := yaml.Marshal(map[string]string{k: d.Options[k]})
		if err != nil {
			return &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to store catalog %s: %v", name, err), Cause: err}
		}
		b.Write(line)
	}
	if d.Comment != "" {
		line, _ := yaml.Marshal(map[string]string{"comment": d.Comment})
		b.Write(line)
	}
	if err := writeAtomic(s.file(name), []byte(b.String())); err != nil {
		return &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to store catalog %s in %s: %v", name, s.file(name), err), Cause: err}
	}
	return nil
}

// Remove deletes the descriptor of a catalog (no error if absent).
func (s *FileCatalogStore) Remove(name string) error {
	err := os.Remove(s.file(name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to remove catalog %s from %s: %v", name, s.file(name), err), Cause: err}
	}
	if err == nil {
		if err := syncDir(s.dir); err != nil {
			return &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to remove catalog %s: %v", name, err), Cause: err}
		}
	}
	return nil
}
