package catalog

import (
	"errors"
	"fmt"
	"sort"
)

// Manager resolves names against the current catalog and database and holds
// the session's temporary objects, which shadow permanent ones.
type Manager struct {
	catalogs  map[string]Catalog
	currentC  string
	currentDB string
	temp      map[ObjectIdentifier]Object
}

// NewManager returns a Manager with one in-memory catalog, current.
func NewManager(builtinCatalog, builtinDatabase string) *Manager {
	m := &Manager{catalogs: map[string]Catalog{}, temp: map[ObjectIdentifier]Object{}}
	m.catalogs[builtinCatalog] = NewInMemory(builtinCatalog, builtinDatabase)
	m.currentC, m.currentDB = builtinCatalog, builtinDatabase
	return m
}

// CurrentCatalog returns the current catalog name.
func (m *Manager) CurrentCatalog() string { return m.currentC }

// CurrentDatabase returns the current database name.
func (m *Manager) CurrentDatabase() string { return m.currentDB }

// Catalog returns a registered catalog.
func (m *Manager) Catalog(name string) (Catalog, bool) {
	c, ok := m.catalogs[name]
	return c, ok
}

// RegisterCatalog adds a catalog under name.
func (m *Manager) RegisterCatalog(name string, c Catalog) error {
	if _, ok := m.catalogs[name]; ok {
		return fmt.Errorf("Catalog %s already exists.", name)
	}
	m.catalogs[name] = c
	return nil
}

// ListCatalogs returns the catalog names, sorted.
func (m *Manager) ListCatalogs() []string {
	out := make([]string, 0, len(m.catalogs))
	for k := range m.catalogs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UseCatalog makes a catalog current, with its default database.
func (m *Manager) UseCatalog(name string) error {
	c, ok := m.catalogs[name]
	if !ok {
		return fmt.Errorf("A catalog with name [%s] does not exist.", name)
	}
	m.currentC, m.currentDB = name, c.DefaultDatabase()
	return nil
}

// UseDatabase makes a database of the current catalog current.
func (m *Manager) UseDatabase(name string) error {
	c, ok := m.catalogs[m.currentC]
	if !ok {
		return fmt.Errorf("A catalog with name [%s] does not exist.", m.currentC)
	}
	if _, err := c.GetDatabase(name); err != nil {
		return fmt.Errorf("A database with name [%s] does not exist in the catalog: [%s].", name, m.currentC)
	}
	m.currentDB = name
	return nil
}

// Qualify completes a 1-, 2- or 3-part name with the current catalog and
// database.
func (m *Manager) Qualify(parts []string) (ObjectIdentifier, error) {
	switch len(parts) {
	case 1:
		return ObjectIdentifier{m.currentC, m.currentDB, parts[0]}, nil
	case 2:
		return ObjectIdentifier{m.currentC, parts[0], parts[1]}, nil
	case 3:
		return ObjectIdentifier{parts[0], parts[1], parts[2]}, nil
	}
	return ObjectIdentifier{}, fmt.Errorf("Object identifier can have 1 to 3 parts, got %d", len(parts))
}

// Lookup finds the object at id: the temporary one first, then the
// catalog's. It returns an error wrapping ErrNotFound when neither exists.
func (m *Manager) Lookup(id ObjectIdentifier) (obj Object, temporary bool, err error) {
	if o, ok := m.temp[id]; ok {
		return o, true, nil
	}
	c, ok := m.catalogs[id.Catalog]
	if !ok {
		return nil, false, fmt.Errorf("catalog %s: %w", id.Catalog, ErrNotFound)
	}
	o, err := c.GetObject(id.Database, id.Object)
	if err != nil {
		return nil, false, err
	}
	return o, false, nil
}

// CreateObject stores a table or view, temporary or permanent.
func (m *Manager) CreateObject(id ObjectIdentifier, obj Object, temporary, ignoreIfExists bool) error {
	if temporary {
		if _, ok := m.temp[id]; ok {
			if ignoreIfExists {
				return nil
			}
			kind := "table"
			if _, isView := obj.(*View); isView {
				kind = "view"
			}
			return fmt.Errorf("Temporary %s '%s' already exists", kind, id.String())
		}
		m.temp[id] = obj
		return nil
	}
	c, ok := m.catalogs[id.Catalog]
	if !ok {
		return fmt.Errorf("Catalog %s does not exist", id.Catalog)
	}
	return c.CreateObject(id.Database, id.Object, obj, ignoreIfExists)
}

// DropObject removes a table or view. wantView selects the kind the
// statement names (DROP VIEW vs DROP TABLE).
func (m *Manager) DropObject(id ObjectIdentifier, wantView, temporary, ignoreIfNotExists bool) error {
	kind := "Table"
	if wantView {
		kind = "View"
	}
	if temporary {
		o, ok := m.temp[id]
		if !ok || isView(o) != wantView {
			if ignoreIfNotExists {
				return nil
			}
			return fmt.Errorf("Temporary %s with identifier '%s' does not exist.", lower(kind), id.String())
		}
		delete(m.temp, id)
		return nil
	}
	if o, ok := m.temp[id]; ok && isView(o) == wantView {
		return fmt.Errorf("Temporary %s with identifier '%s' exists. Drop it first before removing the permanent %s.", lower(kind), id.String(), lower(kind))
	}
	c, ok := m.catalogs[id.Catalog]
	var o Object
	var err error = ErrNotFound
	if ok {
		o, err = c.GetObject(id.Database, id.Object)
	}
	if err != nil {
		if ignoreIfNotExists && errors.Is(err, ErrNotFound) {
			return nil
		}
		return fmt.Errorf("%s with identifier '%s' does not exist.", kind, id.Summary())
	}
	if isView(o) != wantView {
		if wantView {
			return fmt.Errorf("View with identifier '%s' does not exist.", id.Summary())
		}
		return fmt.Errorf("Table with identifier '%s' does not exist.", id.Summary())
	}
	return c.DropObject(id.Database, id.Object, ignoreIfNotExists)
}

// ListObjects returns the names of the tables (views=false) or views
// (views=true) of catalog.db, temporary and permanent, de-duplicated and
// sorted. With both=true it lists tables and views together.
func (m *Manager) ListObjects(catalog, db string, views, both bool) ([]string, error) {
	seen := map[string]bool{}
	if c, ok := m.catalogs[catalog]; ok {
		names, err := c.ListObjects(db)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			o, err := c.GetObject(db, n)
			if err == nil && (both || isView(o) == views) {
				seen[n] = true
			}
		}
	} else {
		return nil, fmt.Errorf("Catalog %s does not exist", catalog)
	}
	for id, o := range m.temp {
		if id.Catalog == catalog && id.Database == db && (both || isView(o) == views) {
			seen[id.Object] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

func isView(o Object) bool {
	_, ok := o.(*View)
	return ok
}

func lower(s string) string {
	if s == "Table" {
		return "table"
	}
	return "view"
}
