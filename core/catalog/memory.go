package catalog

import (
	"sort"
	"sync"
)

// InMemory is Flink's generic_in_memory catalog: databases, tables and
// views kept in maps for the life of the session. It is safe for
// concurrent use.
type InMemory struct {
	mu        sync.RWMutex
	name      string
	defaultDB string
	dbs       map[string]*memDB
}

type memDB struct {
	db      *Database
	objects map[string]Object
}

// NewInMemory returns an in-memory catalog holding one database, defaultDB.
func NewInMemory(name, defaultDB string) *InMemory {
	c := &InMemory{name: name, defaultDB: defaultDB, dbs: map[string]*memDB{}}
	c.dbs[defaultDB] = &memDB{db: &Database{}, objects: map[string]Object{}}
	return c
}

// DefaultDatabase implements Catalog.
func (c *InMemory) DefaultDatabase() string { return c.defaultDB }

// ListDatabases implements Catalog.
func (c *InMemory) ListDatabases() ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.dbs))
	for k := range c.dbs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// GetDatabase implements Catalog. It returns a copy.
func (c *InMemory) GetDatabase(name string) (*Database, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, ok := c.dbs[name]
	if !ok {
		return nil, DatabaseNotExist(c.name, name)
	}
	return d.db.clone(), nil
}

// CreateDatabase implements Catalog.
func (c *InMemory) CreateDatabase(name string, db *Database, ignoreIfExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.dbs[name]; ok {
		if ignoreIfExists {
			return nil
		}
		return DatabaseAlreadyExist(c.name, name)
	}
	c.dbs[name] = &memDB{db: db.clone(), objects: map[string]Object{}}
	return nil
}

// AlterDatabase implements Catalog.
func (c *InMemory) AlterDatabase(name string, db *Database, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dbs[name]
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return DatabaseNotExist(c.name, name)
	}
	d.db = db.clone()
	return nil
}

// DropDatabase implements Catalog.
func (c *InMemory) DropDatabase(name string, ignoreIfNotExists, cascade bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dbs[name]
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return DatabaseNotExist(c.name, name)
	}
	if (len(d.objects) > 0 || hasMemFunctions(d)) && !cascade {
		return DatabaseNotEmpty(c.name, name)
	}
	delete(c.dbs, name)
	forgetMemFunctions(d)
	return nil
}

// GetObject implements Catalog.
func (c *InMemory) GetObject(db, name string) (Object, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, ok := c.dbs[db]
	if !ok {
		return nil, TableNotExist(c.name, db, name)
	}
	o, ok := d.objects[name]
	if !ok {
		return nil, TableNotExist(c.name, db, name)
	}
	return o, nil
}

// ListObjects implements Catalog.
func (c *InMemory) ListObjects(db string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, ok := c.dbs[db]
	if !ok {
		return nil, DatabaseNotExist(c.name, db)
	}
	out := make([]string, 0, len(d.objects))
	for k := range d.objects {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// CreateObject implements Catalog.
func (c *InMemory) CreateObject(db, name string, obj Object, ignoreIfExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dbs[db]
	if !ok {
		return DatabaseNotExist(c.name, db)
	}
	if _, ok := d.objects[name]; ok {
		if ignoreIfExists {
			return nil
		}
		return TableAlreadyExist(c.name, db, name)
	}
	d.objects[name] = obj
	return nil
}

// AlterObject implements Catalog.
func (c *InMemory) AlterObject(db, name string, obj Object, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dbs[db]
	if ok {
		if _, ok = d.objects[name]; ok {
			d.objects[name] = obj
			return nil
		}
	}
	if ignoreIfNotExists {
		return nil
	}
	return TableNotExist(c.name, db, name)
}

// RenameObject implements Catalog.
func (c *InMemory) RenameObject(db, name, newName string, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dbs[db]
	var o Object
	if ok {
		o, ok = d.objects[name]
	}
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return TableNotExist(c.name, db, name)
	}
	if _, exists := d.objects[newName]; exists {
		return TableAlreadyExist(c.name, db, newName)
	}
	delete(d.objects, name)
	d.objects[newName] = o
	return nil
}

// DropObject implements Catalog.
func (c *InMemory) DropObject(db, name string, ignoreIfNotExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dbs[db]
	if ok {
		if _, ok = d.objects[name]; ok {
			delete(d.objects, name)
			return nil
		}
	}
	if ignoreIfNotExists {
		return nil
	}
	return TableNotExist(c.name, db, name)
}

// Close implements Catalog: it releases the catalog's functions (kept
// beside it, see functions.go).
func (c *InMemory) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.dbs {
		forgetMemFunctions(d)
	}
	return nil
}

// hasMemFunctions reports whether a database holds functions; Flink's
// DROP DATABASE (without CASCADE) refuses a database with functions too.
func hasMemFunctions(d *memDB) bool {
	memFunctions.Lock()
	defer memFunctions.Unlock()
	return len(memFunctions.m[d]) > 0
}

// forgetMemFunctions releases the functions of a dropped database.
func forgetMemFunctions(d *memDB) {
	memFunctions.Lock()
	defer memFunctions.Unlock()
	delete(memFunctions.m, d)
}

var _ Catalog = (*InMemory)(nil)
