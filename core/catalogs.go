package core

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
)

// catalogFactory creates a catalog of one 'type' from its options.
type catalogFactory struct {
	// options lists the supported option keys besides 'type' (sorted).
	options  []string
	required []string
	create   func(name string, opts map[string]string) (catalog.Catalog, error)
}

// catalogFactories are the catalog types CREATE CATALOG knows, by 'type'.
var catalogFactories = map[string]catalogFactory{
	catalog.TypeGenericInMemory: {
		options: []string{"default-database", "property-version"},
		create: func(name string, opts map[string]string) (catalog.Catalog, error) {
			db := opts["default-database"]
			if db == "" {
				db = "default"
			}
			return catalog.NewInMemory(name, db), nil
		},
	},
	catalog.TypeFile: {
		options:  []string{"default-database", "path", "property-version"},
		required: []string{"path"},
		create: func(name string, opts map[string]string) (catalog.Catalog, error) {
			db := opts["default-database"]
			if db == "" {
				db = "default"
			}
			return catalog.OpenFile(name, opts["path"], db)
		},
	},
}

// newCatalog validates the options of CREATE CATALOG and creates the
// catalog, with Flink's factory discovery and option validation messages.
func newCatalog(name string, opts map[string]string) (catalog.Catalog, error) {
	typ, ok := opts["type"]
	if !ok {
		return nil, classify(KindValidation, fmt.Errorf("Catalog options do not contain an option key 'type' for discovering a catalog."))
	}
	f, ok := catalogFactories[typ]
	if !ok {
		ids := make([]string, 0, len(catalogFactories))
		for k := range catalogFactories {
			ids = append(ids, k)
		}
		sort.Strings(ids)
		return nil, classify(KindValidation, fmt.Errorf("Could not find any factory for identifier '%s' that implements 'org.apache.flink.table.factories.CatalogFactory' in the classpath.\n\nAvailable factory identifiers are:\n\n%s", typ, strings.Join(ids, "\n")))
	}
	supported := map[string]bool{"type": true}
	for _, k := range f.options {
		supported[k] = true
	}
	var missing []string
	for _, k := range f.required {
		if opts[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, classify(KindValidation, fmt.Errorf("One or more required options are missing.\n\nMissing required options are:\n\n%s", strings.Join(missing, "\n")))
	}
	var bad []string
	for k := range opts {
		if !supported[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		all := append([]string{"type"}, f.options...)
		sort.Strings(all)
		return nil, classify(KindValidation, fmt.Errorf("Unsupported options found for '%s'.\n\nUnsupported options:\n\n%s\n\nSupported options:\n\n%s", typ, strings.Join(bad, "\n"), strings.Join(all, "\n")))
	}
	c, err := f.create(name, opts)
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	return c, nil
}

// createCatalog runs CREATE CATALOG [IF NOT EXISTS] name [COMMENT] WITH (…).
func (e *TableEnvironment) createCatalog(s *ast.CreateCatalog) (*TableResult, error) {
	if _, ok := e.cat.Catalog(s.Name); ok {
		if s.IfNotExists {
			return okResult(), nil
		}
		return nil, classify(KindCatalog, catalog.CatalogException(fmt.Sprintf("Catalog %s already exists.", s.Name)))
	}
	opts := map[string]string{}
	for _, o := range s.Options {
		opts[o.Key] = o.Value
	}
	c, err := newCatalog(s.Name, opts)
	if err != nil {
		return nil, err
	}
	if err := e.cat.RegisterCatalogWithDescriptor(s.Name, c, &catalog.Descriptor{Comment: s.Comment, HasComment: s.HasComment || s.Comment != "", Options: opts}); err != nil {
		_ = c.Close()
		if s.IfNotExists {
			return okResult(), nil
		}
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

// dropCatalog runs DROP CATALOG [IF EXISTS] name.
func (e *TableEnvironment) dropCatalog(s *ast.DropCatalog) (*TableResult, error) {
	if err := e.cat.UnregisterCatalog(s.Name, s.IfExists); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

func (e *TableEnvironment) catalogMeta(name string) (catalog.Descriptor, error) {
	if _, ok := e.cat.Catalog(name); !ok {
		return catalog.Descriptor{}, classify(KindValidation, fmt.Errorf("Cannot obtain metadata information from Catalog %s.", name))
	}
	if d, ok := e.cat.Descriptor(name); ok {
		return d, nil
	}
	return catalog.Descriptor{Options: map[string]string{"type": catalog.TypeGenericInMemory}}, nil
}

// describeCatalog builds DESCRIBE CATALOG [EXTENDED]: rows name, type,
// comment, and with EXTENDED one option:<key> row per other option.
func (e *TableEnvironment) describeCatalog(s *ast.DescribeCatalog) (*TableResult, error) {
	info, err := e.catalogMeta(s.Name)
	if err != nil {
		return nil, err
	}
	res := &TableResult{kind: SuccessWithContent, schema: types.Schema{
		{Name: "info name", Type: types.StringT}, {Name: "info value", Type: types.StringT},
	}}
	var comment any // NULL without a comment, as Flink (printed empty)
	if info.HasComment || info.Comment != "" {
		comment = info.Comment
	}
	res.rows = [][]any{{"name", s.Name}, {"type", info.Options["type"]}, {"comment", comment}}
	if s.Extended {
		keys := make([]string, 0, len(info.Options))
		for k := range info.Options {
			if k != "type" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			res.rows = append(res.rows, []any{"option:" + k, info.Options[k]})
		}
	}
	return res, nil
}

// showCreateCatalog prints CREATE CATALOG `c` [COMMENT '…'] WITH (…).
func (e *TableEnvironment) showCreateCatalog(s *ast.ShowCreateCatalog) (*TableResult, error) {
	info, err := e.catalogMeta(s.Name)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE CATALOG %s\n", catalog.Quote(s.Name))
	if info.Comment != "" {
		fmt.Fprintf(&b, "COMMENT %s\n", quoteString(info.Comment))
	}
	opts := make([]string, 0, len(info.Options))
	for k, v := range info.Options {
		opts = append(opts, "  "+quoteString(k)+" = "+quoteString(v))
	}
	sort.Strings(opts)
	fmt.Fprintf(&b, "WITH (\n%s\n)\n", strings.Join(opts, ",\n"))
	return stringResult("result", []string{b.String()}), nil
}

// alterCatalog runs ALTER CATALOG SET (…) / RESET (…) / COMMENT '…' on the
// catalog's stored description; the catalog itself keeps its contents.
func (e *TableEnvironment) alterCatalog(s *ast.AlterCatalog) (*TableResult, error) {
	next, err := e.catalogMeta(s.Name)
	if err != nil {
		return nil, err
	}
	switch {
	case s.HasComment:
		next.Comment, next.HasComment = s.Comment, true
	case s.Reset != nil || (len(s.Set) == 0 && !s.HasComment):
		if len(s.Reset) == 0 {
			return nil, classify(KindValidation, fmt.Errorf("ALTER CATALOG RESET does not support empty key"))
		}
		for _, k := range s.Reset {
			if k == "type" {
				return nil, classify(KindValidation, fmt.Errorf("ALTER CATALOG RESET does not support changing 'type'"))
			}
			delete(next.Options, k)
		}
	default:
		for _, o := range s.Set {
			if o.Key == "type" && o.Value != next.Options["type"] {
				return nil, classify(KindValidation, fmt.Errorf("ALTER CATALOG SET does not support changing 'type'"))
			}
			next.Options[o.Key] = o.Value
		}
	}
	if err := e.cat.SetDescriptor(s.Name, next); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

// alterDatabase runs ALTER DATABASE [cat.]db SET (…), merging the options
// into the database's properties.
func (e *TableEnvironment) alterDatabase(s *ast.AlterDatabase) (*TableResult, error) {
	c, _, db, err := e.databaseTarget(s.Name)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	d, err := c.GetDatabase(db)
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	props := make(map[string]string, len(d.Properties)+len(s.Set))
	for k, v := range d.Properties {
		props[k] = v
	}
	for _, o := range s.Set {
		props[o.Key] = o.Value
	}
	if err := c.AlterDatabase(db, &catalog.Database{Comment: d.Comment, Properties: props}, false); err != nil {
		return nil, classify(KindCatalog, err)
	}
	return okResult(), nil
}

// Catalog store options (Flink's names): with kind 'file' the catalogs
// made by CREATE CATALOG are kept in table.catalog-store.file.path and
// re-created by every new session.
const (
	keyCatalogStoreKind = "table.catalog-store.kind"
	keyCatalogStorePath = "table.catalog-store.file.path"
)

// openCatalogStore reads the catalog store options of a new session; with
// kind 'file' it re-creates the stored catalogs and keeps storing new ones.
func (e *TableEnvironment) openCatalogStore() error {
	kind, _ := e.cfg.Get(keyCatalogStoreKind)
	switch kind {
	case "", "generic_in_memory":
		return nil
	case "file":
	default:
		return classify(KindValidation, fmt.Errorf("Could not find any factory for identifier '%s' that implements 'org.apache.flink.table.factories.CatalogStoreFactory' in the classpath.\n\nAvailable factory identifiers are:\n\nfile\ngeneric_in_memory", kind))
	}
	path, _ := e.cfg.Get(keyCatalogStorePath)
	store, err := catalog.OpenFileCatalogStore(path)
	if err != nil {
		return classify(KindCatalog, err)
	}
	descs, err := store.Load()
	if err != nil {
		return classify(KindCatalog, err)
	}
	names := make([]string, 0, len(descs))
	for n := range descs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := descs[n]
		if _, exists := e.cat.Catalog(n); exists {
			continue // the built-in catalog keeps its place
		}
		c, err := newCatalog(n, d.Options)
		if err != nil {
			return classify(KindCatalog, fmt.Errorf("re-creating catalog %s from the catalog store %s: %w", n, path, err))
		}
		if err := e.cat.RegisterCatalogWithDescriptor(n, c, &d); err != nil {
			return classify(KindCatalog, err)
		}
	}
	e.cat.SetStore(store)
	return nil
}
