package core

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
)

// catalogInfo is what CREATE CATALOG said about a catalog: the session
// keeps it for DESCRIBE CATALOG and SHOW CREATE CATALOG.
type catalogInfo struct {
	comment string
	options map[string]string
}

// genericInMemory is the type of the only catalog factory so far.
const genericInMemory = "generic_in_memory"

// createCatalog registers a generic_in_memory catalog.
func (e *TableEnvironment) createCatalog(s *ast.CreateCatalog) (*TableResult, error) {
	if _, ok := e.cat.Catalog(s.Name); ok {
		if s.IfNotExists {
			return okResult(), nil
		}
		return nil, classify(KindCatalog, fmt.Errorf("Catalog %s already exists.", s.Name))
	}
	opts := map[string]string{}
	for _, o := range s.Options {
		opts[o.Key] = o.Value
	}
	typ, ok := opts["type"]
	if !ok {
		return nil, classify(KindValidation, fmt.Errorf("Catalog options do not contain an option key 'type' for discovering a catalog."))
	}
	if typ != genericInMemory {
		return nil, classify(KindValidation, fmt.Errorf("Could not find any factory for identifier '%s' that implements 'org.apache.flink.table.factories.CatalogFactory' in the classpath.\n\nAvailable factory identifiers are:\n\n%s", typ, genericInMemory))
	}
	var unsupported []string
	for k := range opts {
		if k != "type" && k != "default-database" && k != "property-version" {
			unsupported = append(unsupported, k)
		}
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		return nil, classify(KindValidation, fmt.Errorf("Unsupported options found for '%s'.\n\nUnsupported options:\n\n%s\n\nSupported options:\n\ndefault-database\nproperty-version\ntype", genericInMemory, strings.Join(unsupported, "\n")))
	}
	db := opts["default-database"]
	if db == "" {
		db = "default"
	}
	if err := e.cat.RegisterCatalog(s.Name, catalog.NewInMemory(s.Name, db)); err != nil {
		return nil, classify(KindCatalog, err)
	}
	e.catalogInfo[s.Name] = &catalogInfo{comment: s.Comment, options: opts}
	return okResult(), nil
}

func (e *TableEnvironment) catalogMeta(name string) (*catalogInfo, error) {
	if _, ok := e.cat.Catalog(name); !ok {
		return nil, classify(KindValidation, fmt.Errorf("Cannot obtain metadata information from Catalog %s.", name))
	}
	if info, ok := e.catalogInfo[name]; ok {
		return info, nil
	}
	return &catalogInfo{options: map[string]string{"type": genericInMemory}}, nil
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
	res.rows = [][]any{{"name", s.Name}, {"type", info.options["type"]}, {"comment", info.comment}}
	if s.Extended {
		keys := make([]string, 0, len(info.options))
		for k := range info.options {
			if k != "type" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			res.rows = append(res.rows, []any{"option:" + k, info.options[k]})
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
	if info.comment != "" {
		fmt.Fprintf(&b, "COMMENT %s\n", quoteString(info.comment))
	}
	opts := make([]string, 0, len(info.options))
	for k, v := range info.options {
		opts = append(opts, "  "+quoteString(k)+" = "+quoteString(v))
	}
	sort.Strings(opts)
	fmt.Fprintf(&b, "WITH (\n%s\n)\n", strings.Join(opts, ",\n"))
	return stringResult("result", []string{b.String()}), nil
}

// alterCatalog runs ALTER CATALOG SET (…) / RESET (…) / COMMENT '…' on the
// catalog's stored description; the catalog itself keeps its contents.
func (e *TableEnvironment) alterCatalog(s *ast.AlterCatalog) (*TableResult, error) {
	info, err := e.catalogMeta(s.Name)
	if err != nil {
		return nil, err
	}
	next := &catalogInfo{comment: info.comment, options: make(map[string]string, len(info.options))}
	for k, v := range info.options {
		next.options[k] = v
	}
	switch {
	case s.HasComment:
		next.comment = s.Comment
	case s.Reset != nil || (len(s.Set) == 0 && !s.HasComment):
		if len(s.Reset) == 0 {
			return nil, classify(KindValidation, fmt.Errorf("ALTER CATALOG RESET does not support empty key"))
		}
		for _, k := range s.Reset {
			if k == "type" {
				return nil, classify(KindValidation, fmt.Errorf("ALTER CATALOG RESET does not support changing 'type'"))
			}
			delete(next.options, k)
		}
	default:
		for _, o := range s.Set {
			if o.Key == "type" && o.Value != next.options["type"] {
				return nil, classify(KindValidation, fmt.Errorf("ALTER CATALOG SET does not support changing 'type'"))
			}
			next.options[o.Key] = o.Value
		}
	}
	e.catalogInfo[s.Name] = next
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
	d.Properties = props
	return okResult(), nil
}
