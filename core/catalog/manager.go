package catalog

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// Descriptor is what CREATE CATALOG said about a catalog: its comment and
// options ('type' included). DESCRIBE CATALOG and SHOW CREATE CATALOG print
// it.
type Descriptor struct {
	Comment string
	// HasComment: a COMMENT was given (DESCRIBE CATALOG shows NULL
	// without one, '' for COMMENT '').
	HasComment bool
	Options    map[string]string
}

func (d Descriptor) clone() Descriptor {
	c := Descriptor{Comment: d.Comment, HasComment: d.HasComment, Options: make(map[string]string, len(d.Options))}
	for k, v := range d.Options {
		c.Options[k] = v
	}
	return c
}

// Manager resolves names against the current catalog and database and holds
// the session's temporary objects, which shadow permanent ones. It is safe
// for concurrent use.
type Manager struct {
	mu        sync.RWMutex
	catalogs  map[string]Catalog
	descs     map[string]Descriptor
	currentC  string
	currentDB string
	temp      map[ObjectIdentifier]Object
	// store keeps the descriptors of catalogs made from descriptors; nil
	// keeps them in memory only.
	store *FileCatalogStore
}

// SetStore makes the Manager write the descriptor of every catalog
// registered with one from now on (and remove it when the catalog is
// dropped) to store; nil stops it.
func (m *Manager) SetStore(store *FileCatalogStore) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.store = store
}

// NewManager returns a Manager with one in-memory catalog, current.
func NewManager(builtinCatalog, builtinDatabase string) *Manager {
	m := &Manager{catalogs: map[string]Catalog{}, descs: map[string]Descriptor{}, temp: map[ObjectIdentifier]Object{}}
	m.catalogs[builtinCatalog] = NewInMemory(builtinCatalog, builtinDatabase)
	m.currentC, m.currentDB = builtinCatalog, builtinDatabase
	return m
}

// CurrentCatalog returns the current catalog name.
func (m *Manager) CurrentCatalog() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.currentC
}

// CurrentDatabase returns the current database name.
func (m *Manager) CurrentDatabase() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.currentDB
}

// Current returns the current catalog and database together.
func (m *Manager) Current() (catalog, database string) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.currentC, m.currentDB
}

// Catalog returns a registered catalog.
func (m *Manager) Catalog(name string) (Catalog, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c, ok := m.catalogs[name]
	return c, ok
}

// RegisterCatalog adds a catalog under name, without a descriptor.
func (m *Manager) RegisterCatalog(name string, c Catalog) error {
	return m.RegisterCatalogWithDescriptor(name, c, nil)
}

// RegisterCatalogWithDescriptor adds a catalog under name and keeps its
// descriptor (nil for none) for DESCRIBE CATALOG.
func (m *Manager) RegisterCatalogWithDescriptor(name string, c Catalog, d *Descriptor) error {
	if name == "" {
		return catalogErr(nil, "Catalog name cannot be null or empty.")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.catalogs[name]; ok {
		return catalogErr(ErrAlreadyExists, "Catalog %s already exists.", name)
	}
	if d != nil && m.store != nil {
		if err := m.store.Store(name, *d); err != nil {
			return err
		}
	}
	m.catalogs[name] = c
	if d != nil {
		m.descs[name] = d.clone()
	}
	return nil
}

// UnregisterCatalog removes a catalog and closes it. The current catalog
// cannot be removed ("Cannot drop a catalog which is currently in use.").
// Temporary objects of the catalog stay, as in Flink.
func (m *Manager) UnregisterCatalog(name string, ignoreIfNotExists bool) error {
	m.mu.Lock()
	c, ok := m.catalogs[name]
	if !ok {
		m.mu.Unlock()
		if ignoreIfNotExists {
			return nil
		}
		return catalogErr(ErrNotFound, "Catalog %s does not exist.", name)
	}
	if name == m.currentC {
		m.mu.Unlock()
		return catalogErr(nil, "Cannot drop a catalog which is currently in use.")
	}
	if _, stored := m.descs[name]; stored && m.store != nil {
		if err := m.store.Remove(name); err != nil {
			m.mu.Unlock()
			return err
		}
	}
	delete(m.catalogs, name)
	delete(m.descs, name)
	m.mu.Unlock()
	if err := c.Close(); err != nil {
		return &Error{Class: ClassCatalogException, Msg: fmt.Sprintf("Failed to close catalog %s: %v", name, err), Cause: err}
	}
	return nil
}

// Descriptor returns the descriptor a catalog was registered with.
func (m *Manager) Descriptor(name string) (Descriptor, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	d, ok := m.descs[name]
	if !ok {
		return Descriptor{}, false
	}
	return d.clone(), true
}

// SetDescriptor replaces the descriptor of a registered catalog (ALTER
// CATALOG).
func (m *Manager) SetDescriptor(name string, d Descriptor) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.catalogs[name]; !ok {
		return catalogErr(ErrNotFound, "Catalog %s does not exist.", name)
	}
	if m.store != nil {
		if err := m.store.Store(name, d); err != nil {
			return err
		}
	}
	m.descs[name] = d.clone()
	return nil
}

// ListCatalogs returns the catalog names, sorted.
func (m *Manager) ListCatalogs() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.catalogs))
	for k := range m.catalogs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UseCatalog makes a catalog current, with its default database.
func (m *Manager) UseCatalog(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.catalogs[name]
	if !ok {
		return catalogErr(ErrNotFound, "A catalog with name [%s] does not exist.", name)
	}
	m.currentC, m.currentDB = name, c.DefaultDatabase()
	return nil
}

// UseDatabase makes a database of the current catalog current.
func (m *Manager) UseDatabase(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.useLocked(m.currentC, name)
}

// UseCatalogDatabase makes catalog.database current in one step (USE c.db).
func (m *Manager) UseCatalogDatabase(catalog, database string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.useLocked(catalog, database)
}

func (m *Manager) useLocked(catalog, database string) error {
	c, ok := m.catalogs[catalog]
	if !ok {
		return catalogErr(ErrNotFound, "A catalog with name [%s] does not exist.", catalog)
	}
	if _, err := c.GetDatabase(database); err != nil {
		if errors.Is(err, ErrNotFound) {
			return catalogErr(ErrNotFound, "A database with name [%s] does not exist in the catalog: [%s].", database, catalog)
		}
		return err
	}
	m.currentC, m.currentDB = catalog, database
	return nil
}

// Qualify completes a 1-, 2- or 3-part name with the current catalog and
// database.
func (m *Manager) Qualify(parts []string) (ObjectIdentifier, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	switch len(parts) {
	case 1:
		return ObjectIdentifier{m.currentC, m.currentDB, parts[0]}, nil
	case 2:
		return ObjectIdentifier{m.currentC, parts[0], parts[1]}, nil
	case 3:
		return ObjectIdentifier{parts[0], parts[1], parts[2]}, nil
	}
	return ObjectIdentifier{}, validationErr(nil, "Object identifier can have 1 to 3 parts, got %d", len(parts))
}

// Lookup finds the object at id: the temporary one first, then the
// catalog's. It returns an error wrapping ErrNotFound when neither exists.
func (m *Manager) Lookup(id ObjectIdentifier) (obj Object, temporary bool, err error) {
	m.mu.RLock()
	o, ok := m.temp[id]
	c, cok := m.catalogs[id.Catalog]
	m.mu.RUnlock()
	if ok {
		return o, true, nil
	}
	if !cok {
		return nil, false, validationErr(ErrNotFound, "Catalog %s does not exist", id.Catalog)
	}
	o, err = c.GetObject(id.Database, id.Object)
	if err != nil {
		return nil, false, err
	}
	return o, false, nil
}

// LookupPermanent finds the permanent object at id, ignoring temporary
// objects that shadow it.
func (m *Manager) LookupPermanent(id ObjectIdentifier) (Object, error) {
	c, ok := m.Catalog(id.Catalog)
	if !ok {
		return nil, validationErr(ErrNotFound, "Catalog %s does not exist", id.Catalog)
	}
	return c.GetObject(id.Database, id.Object)
}

// CreateObject stores a table or view, temporary or permanent. A second
// temporary object at the same identifier fails with Flink's "Temporary
// table '…' already exists" (Flink says "table" for views too).
func (m *Manager) CreateObject(id ObjectIdentifier, obj Object, temporary, ignoreIfExists bool) error {
	if temporary {
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, ok := m.temp[id]; ok {
			if ignoreIfExists {
				return nil
			}
			return validationErr(ErrAlreadyExists, "Temporary table '%s' already exists", id.String())
		}
		m.temp[id] = obj
		return nil
	}
	c, ok := m.Catalog(id.Catalog)
	if !ok {
		return validationErr(ErrNotFound, "Catalog %s does not exist.", id.Catalog)
	}
	return c.CreateObject(id.Database, id.Object, obj, ignoreIfExists)
}

// AlterObject replaces the permanent object at id (ALTER TABLE / VIEW).
func (m *Manager) AlterObject(id ObjectIdentifier, obj Object) error {
	c, ok := m.Catalog(id.Catalog)
	if !ok {
		return validationErr(ErrNotFound, "Catalog %s does not exist.", id.Catalog)
	}
	return c.AlterObject(id.Database, id.Object, obj, false)
}

// RenameObject renames the permanent object at id to newName in the same
// database.
func (m *Manager) RenameObject(id ObjectIdentifier, newName string) error {
	c, ok := m.Catalog(id.Catalog)
	if !ok {
		return validationErr(ErrNotFound, "Catalog %s does not exist.", id.Catalog)
	}
	return c.RenameObject(id.Database, id.Object, newName, false)
}

// DropObject removes a table or view. wantView selects the kind the
// statement names (DROP VIEW vs DROP TABLE).
func (m *Manager) DropObject(id ObjectIdentifier, wantView, temporary, ignoreIfNotExists bool) error {
	kind := "Table"
	if wantView {
		kind = "View"
	}
	m.mu.Lock()
	if temporary {
		defer m.mu.Unlock()
		o, ok := m.temp[id]
		if !ok || isView(o) != wantView {
			if ignoreIfNotExists {
				return nil
			}
			return validationErr(ErrNotFound, "Temporary table or view with identifier '%s' does not exist.", id.Summary())
		}
		delete(m.temp, id)
		return nil
	}
	o, ok := m.temp[id]
	c, cok := m.catalogs[id.Catalog]
	m.mu.Unlock()
	if ok && isView(o) == wantView {
		return validationErr(nil, "Temporary %s with identifier '%s' exists. Drop it first before removing the permanent %s.", lower(kind), id.String(), lower(kind))
	}
	var err error = ErrNotFound
	if cok {
		o, err = c.GetObject(id.Database, id.Object)
	}
	if err == nil && isView(o) != wantView {
		err = ErrNotFound
	}
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		if ignoreIfNotExists {
			return nil
		}
		return validationErr(ErrNotFound, "%s with identifier '%s' does not exist.", kind, id.Summary())
	}
	return c.DropObject(id.Database, id.Object, ignoreIfNotExists)
}

// ListObjects returns the names of the tables (views=false) or views
// (views=true) of catalog.db, temporary and permanent, de-duplicated and
// sorted. With both=true it lists tables and views together.
func (m *Manager) ListObjects(catalog, db string, views, both bool) ([]string, error) {
	c, ok := m.Catalog(catalog)
	if !ok {
		return nil, validationErr(ErrNotFound, "Catalog %s does not exist", catalog)
	}
	seen := map[string]bool{}
	names, err := c.ListObjects(db)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if both {
			seen[n] = true
			continue
		}
		o, err := c.GetObject(db, n)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue // dropped meanwhile
			}
			return nil, err
		}
		if isView(o) == views {
			seen[n] = true
		}
	}
	m.mu.RLock()
	for id, o := range m.temp {
		if id.Catalog == catalog && id.Database == db && (both || isView(o) == views) {
			seen[id.Object] = true
		}
	}
	m.mu.RUnlock()
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// ListTemporaryObjects returns the identifiers of the temporary tables
// (views=false) or views (views=true), sorted.
func (m *Manager) ListTemporaryObjects(views bool) []ObjectIdentifier {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []ObjectIdentifier
	for id, o := range m.temp {
		if isView(o) == views {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Summary() < out[j].Summary() })
	return out
}

// Close drops the temporary objects and closes every catalog; the first
// error is returned. The Manager must not be used afterwards.
func (m *Manager) Close() error {
	m.mu.Lock()
	cats := m.catalogs
	m.catalogs = map[string]Catalog{}
	m.descs = map[string]Descriptor{}
	m.temp = map[ObjectIdentifier]Object{}
	m.mu.Unlock()
	names := make([]string, 0, len(cats))
	for n := range cats {
		names = append(names, n)
	}
	sort.Strings(names)
	var first error
	for _, n := range names {
		if err := cats[n].Close(); err != nil && first == nil {
			first = fmt.Errorf("closing catalog %s: %w", n, err)
		}
	}
	return first
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
