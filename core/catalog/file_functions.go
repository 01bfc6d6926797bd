package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Functions of the file catalog live beside the tables and views:
//
//	<path>/<db>/functions/<name>.json
//
// written atomically like every other document; names are stored lower
// case (function names are case-insensitive).

type functionDoc struct {
	Version   int        `json:"version"`
	Name      string     `json:"name,omitempty"`
	ClassName string     `json:"className,omitempty"`
	Language  string     `json:"language,omitempty"`
	Resources []string   `json:"resources,omitempty"`
	Kind      string     `json:"kind,omitempty"`
	Params    []fieldDoc `json:"params,omitempty"`
	Returns   *typeDoc   `json:"returns,omitempty"`
	Body      string     `json:"body,omitempty"`
}

// EncodeFunction serialises a catalog function as the file catalog's JSON
// document.
func EncodeFunction(f *Function) ([]byte, error) {
	doc := functionDoc{Version: formatVersion, Name: f.Name, ClassName: f.ClassName, Language: f.Language,
		Resources: f.Resources, Kind: f.Kind, Body: f.Body}
	for _, p := range f.Params {
		pt, err := encodeType(p.Type)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", p.Name, err)
		}
		doc.Params = append(doc.Params, fieldDoc{Name: p.Name, Type: pt, Description: p.Description})
	}
	if f.Returns.Kind != 0 || f.Returns.NotNull || f.Returns.Fields != nil {
		rt, err := encodeType(f.Returns)
		if err != nil {
			return nil, fmt.Errorf("result type: %w", err)
		}
		doc.Returns = &rt
	}
	return json.MarshalIndent(doc, "", "  ")
}

// DecodeFunction parses a document written by EncodeFunction.
func DecodeFunction(data []byte) (*Function, error) {
	var doc functionDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Version < 1 || doc.Version > formatVersion {
		return nil, fmt.Errorf("unsupported format version %d", doc.Version)
	}
	if doc.ClassName == "" && doc.Body == "" {
		return nil, fmt.Errorf("a function without a class name or body")
	}
	f := &Function{Name: doc.Name, ClassName: doc.ClassName, Language: doc.Language,
		Resources: doc.Resources, Kind: doc.Kind, Body: doc.Body}
	for _, p := range doc.Params {
		pt, err := decodeType(p.Type)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", p.Name, err)
		}
		f.Params = append(f.Params, fieldDocToField(p, pt))
	}
	if doc.Returns != nil {
		rt, err := decodeType(*doc.Returns)
		if err != nil {
			return nil, fmt.Errorf("result type: %w", err)
		}
		f.Returns = rt
	}
	return f, nil
}

func (c *File) functionFile(db, name string) string {
	return filepath.Join(c.dbDir(db), "functions", escapeName(strings.ToLower(name))+".json")
}

// ListFunctions implements FunctionStore.
func (c *File) ListFunctions(db string) ([]string, error) { return c.listDB(db, "functions") }

func (c *File) listFunctions(db string) ([]string, error) { return c.listDocs(db, "functions") }

// GetFunction implements FunctionStore.
func (c *File) GetFunction(db, name string) (*Function, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if exists, err := c.dbExists(db); err != nil {
		return nil, err
	} else if !exists {
		return nil, FunctionNotExist(c.name, db, name)
	}
	p := c.functionFile(db, name)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, FunctionNotExist(c.name, db, name)
	}
	if err != nil {
		return nil, ioErr(c.name, p, err)
	}
	f, err := DecodeFunction(data)
	if err != nil {
		return nil, corrupt(c.name, p, err)
	}
	return f, nil
}

func (c *File) functionExists(db, name string) (bool, error) {
	_, err := os.Stat(c.functionFile(db, name))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, ioErr(c.name, c.functionFile(db, name), err)
}

func (c *File) writeFunction(db, name string, f *Function) error {
	data, err := EncodeFunction(f)
	if err != nil {
		return &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Cannot store function %s.%s in catalog %s: %v", db, name, c.name, err), Cause: err}
	}
	return c.writeDoc(c.functionFile(db, name), data)
}

// CreateFunction implements FunctionStore.
func (c *File) CreateFunction(db, name string, f *Function, ignoreIfExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.dbExists(db)
	if err != nil {
		return err
	}
	if !exists {
		return DatabaseNotExist(c.name, db)
	}
	if exists, err = c.functionExists(db, name); err != nil {
		return err
	}
	if exists {
		if ignoreIfExists {
			return nil
		}
		return FunctionAlreadyExist(c.name, db, name)
	}
	return c.writeFunction(db, name, f)
}

// AlterFunction implements FunctionStore.
func (c *File) AlterFunction(db, name string, f *Function, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.functionExists(db, name)
	if err != nil {
		return err
	}
	if !exists {
		if ignoreIfNotExists {
			return nil
		}
		return FunctionNotExist(c.name, db, name)
	}
	return c.writeFunction(db, name, f)
}

// DropFunction implements FunctionStore.
func (c *File) DropFunction(db, name string, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.functionFile(db, name)
	err := os.Remove(p)
	if errors.Is(err, fs.ErrNotExist) {
		if ignoreIfNotExists {
			return nil
		}
		return FunctionNotExist(c.name, db, name)
	}
	if err != nil {
		return ioErr(c.name, p, err)
	}
	if err := syncDir(filepath.Dir(p)); err != nil {
		return ioErr(c.name, filepath.Dir(p), err)
	}
	return nil
}

var _ FunctionStore = (*File)(nil)
