package core

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/planner/ast"
)

// likeFeatures are the features a LIKE clause merges, in Flink's order.
var likeFeatures = []string{"CONSTRAINTS", "DISTRIBUTION", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS", "WATERMARKS"}

// likeStrategies computes the merging strategy of every feature of a LIKE
// clause: Flink's defaults (INCLUDING ALL, OVERWRITING OPTIONS) changed by
// the written options in order; ALL sets every feature.
func likeStrategies(opts []ast.LikeOption) (map[string]string, error) {
	m := map[string]string{}
	for _, f := range likeFeatures {
		m[f] = "INCLUDING"
	}
	m["OPTIONS"] = "OVERWRITING"
	for _, o := range opts {
		mode, feat := strings.ToUpper(o.Mode), strings.ToUpper(o.Feature)
		if mode == "OVERWRITING" && (feat == "CONSTRAINTS" || feat == "PARTITIONS" || feat == "DISTRIBUTION" || feat == "ALL") {
			return nil, fmt.Errorf("Illegal merging strategy '%s' for '%s' option.", mode, feat)
		}
		if feat == "ALL" {
			for _, f := range likeFeatures {
				m[f] = mode
			}
			continue
		}
		if _, ok := m[feat]; !ok {
			return nil, fmt.Errorf("Unknown LIKE option %s %s", mode, feat)
		}
		m[feat] = mode
	}
	return m, nil
}

// mergeLike resolves CREATE TABLE … LIKE source: the statement is rewritten
// into a plain CREATE TABLE whose columns, constraint, watermark,
// partitions and options merge the source table's with the statement's
// own, following Flink's merging rules and messages.
func (e *TableEnvironment) mergeLike(s *ast.CreateTable) (*ast.CreateTable, error) {
	id, err := e.cat.Qualify(s.Like.Name.Parts)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	obj, _, err := e.cat.Lookup(id)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return nil, classify(KindValidation, fmt.Errorf("Source table '%s' of the LIKE clause not found in the catalog, at line %d, column %d", id.Summary(), s.Like.Line, s.Like.Col))
		}
		return nil, classify(KindCatalog, err)
	}
	src, ok := obj.(*catalog.Table)
	if !ok {
		return nil, classify(KindValidation, fmt.Errorf("Source table '%s' of the LIKE clause can not be a VIEW, at line %d, column %d", id.Summary(), s.Like.Line, s.Like.Col))
	}
	strat, err := likeStrategies(s.Like.Options)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	base, err := tableAST(id, src)
	if err != nil {
		return nil, err
	}
	out := *s
	out.Like = nil
	fail := func(format string, args ...any) (*ast.CreateTable, error) {
		return nil, classify(KindValidation, fmt.Errorf(format, args...))
	}

	// columns: the source's (computed / metadata ones unless excluded),
	// then the new ones
	var cols []ast.ColumnDef
	for _, c := range base.Columns {
		switch {
		case c.Kind == ast.ComputedColumn && strat["GENERATED"] == "EXCLUDING":
		case c.Kind == ast.MetadataColumn && strat["METADATA"] == "EXCLUDING":
		default:
			cols = append(cols, c)
		}
	}
	for _, c := range s.Columns {
		i := columnIndex(cols, c.Name)
		if i < 0 {
			cols = append(cols, c)
			continue
		}
		old := cols[i]
		switch {
		case c.Kind == ast.PhysicalColumn || old.Kind == ast.PhysicalColumn:
			return fail("A column named '%s' already exists in the base table.", c.Name)
		case c.Kind == ast.ComputedColumn && old.Kind == ast.ComputedColumn && strat["GENERATED"] == "OVERWRITING",
			c.Kind == ast.MetadataColumn && old.Kind == ast.MetadataColumn && strat["METADATA"] == "OVERWRITING":
			cols[i] = c
		case old.Kind == ast.ComputedColumn:
			return fail("A generated column named '%s' already exists in the base table. You might want to specify EXCLUDING GENERATED or OVERWRITING GENERATED.", c.Name)
		default:
			return fail("A metadata column named '%s' already exists in the base table. You might want to specify EXCLUDING METADATA or OVERWRITING METADATA.", c.Name)
		}
	}
	out.Columns = cols

	if base.PrimaryKey != nil && strat["CONSTRAINTS"] == "INCLUDING" {
		if s.PrimaryKey != nil {
			return fail("The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS.")
		}
		out.PrimaryKey = base.PrimaryKey
	}
	if base.Watermark != nil && strat["WATERMARKS"] != "EXCLUDING" {
		switch {
		case s.Watermark == nil:
			out.Watermark = base.Watermark
		case strat["WATERMARKS"] == "OVERWRITING" && s.Watermark.Column == base.Watermark.Column:
		case s.Watermark.Column == base.Watermark.Column:
			return fail("There already exists a watermark spec for column '%s' in the base table. You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.", s.Watermark.Column)
		default:
			return nil, unsupported("watermarks on two columns (LIKE merges '%s' and '%s')", base.Watermark.Column, s.Watermark.Column)
		}
	}
	if len(base.PartitionedBy) > 0 && strat["PARTITIONS"] == "INCLUDING" {
		if len(s.PartitionedBy) > 0 {
			return fail("The base table already has partitions defined. You might want to specify EXCLUDING PARTITIONS.")
		}
		out.PartitionedBy = base.PartitionedBy
	}
	switch strat["OPTIONS"] {
	case "INCLUDING", "OVERWRITING":
		opts := append([]ast.Option(nil), base.Options...)
		for _, o := range s.Options {
			found := false
			for i := range opts {
				if opts[i].Key == o.Key {
					if strat["OPTIONS"] == "INCLUDING" {
						return fail("There already exists an option ['%s' -> '%s']  in the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.", o.Key, opts[i].Value)
					}
					opts[i].Value, found = o.Value, true
				}
			}
			if !found {
				opts = append(opts, o)
			}
		}
		out.Options = opts
	}
	return &out, nil
}
