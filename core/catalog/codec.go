package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tablerun/tablerun/core/types"
)

// formatVersion is the version of the JSON metadata documents written by
// the file catalog. A reader refuses documents of a newer version.
const formatVersion = 1

// kindNames spells the type kinds as Flink's LogicalTypeRoot does; the
// JSON documents use these names, never the numeric Kind values.
var kindNames = map[types.Kind]string{
	types.Null: "NULL", types.Boolean: "BOOLEAN", types.TinyInt: "TINYINT",
	types.SmallInt: "SMALLINT", types.Int: "INTEGER", types.BigInt: "BIGINT",
	types.Float: "FLOAT", types.Double: "DOUBLE", types.Decimal: "DECIMAL",
	types.Char: "CHAR", types.VarChar: "VARCHAR", types.Binary: "BINARY",
	types.VarBinary: "VARBINARY", types.Date: "DATE", types.Time: "TIME_WITHOUT_TIME_ZONE",
	types.Timestamp: "TIMESTAMP_WITHOUT_TIME_ZONE", types.TimestampLTZ: "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
	types.IntervalDayTime: "INTERVAL_DAY_TIME", types.IntervalYearMonth: "INTERVAL_YEAR_MONTH",
	types.Array: "ARRAY", types.Map: "MAP", types.Row: "ROW",
}

var kindByName = func() map[string]types.Kind {
	m := make(map[string]types.Kind, len(kindNames))
	for k, n := range kindNames {
		m[n] = k
	}
	return m
}()

type typeDoc struct {
	Kind      string     `json:"kind"`
	NotNull   bool       `json:"notNull,omitempty"`
	Precision int        `json:"precision,omitempty"`
	Scale     int        `json:"scale,omitempty"`
	Unit      string     `json:"unit,omitempty"`
	Elem      *typeDoc   `json:"elem,omitempty"`
	Value     *typeDoc   `json:"value,omitempty"`
	Fields    []fieldDoc `json:"fields,omitempty"`
}

type fieldDoc struct {
	Name        string  `json:"name"`
	Type        typeDoc `json:"type"`
	Description string  `json:"description,omitempty"`
}

func encodeType(t types.Type) (typeDoc, error) {
	name, ok := kindNames[t.Kind]
	if !ok {
		return typeDoc{}, fmt.Errorf("unknown type kind %d", t.Kind)
	}
	d := typeDoc{Kind: name, NotNull: t.NotNull, Precision: t.Precision, Scale: t.Scale, Unit: t.Unit}
	if t.Elem != nil {
		e, err := encodeType(*t.Elem)
		if err != nil {
			return d, err
		}
		d.Elem = &e
	}
	if t.Value != nil {
		v, err := encodeType(*t.Value)
		if err != nil {
			return d, err
		}
		d.Value = &v
	}
	for _, f := range t.Fields {
		ft, err := encodeType(f.Type)
		if err != nil {
			return d, err
		}
		d.Fields = append(d.Fields, fieldDoc{Name: f.Name, Type: ft, Description: f.Description})
	}
	return d, nil
}

func decodeType(d typeDoc) (types.Type, error) {
	k, ok := kindByName[d.Kind]
	if !ok {
		return types.Type{}, fmt.Errorf("unknown type kind %q", d.Kind)
	}
	t := types.Type{Kind: k, NotNull: d.NotNull, Precision: d.Precision, Scale: d.Scale, Unit: d.Unit}
	if d.Elem != nil {
		e, err := decodeType(*d.Elem)
		if err != nil {
			return t, err
		}
		t.Elem = &e
	}
	if d.Value != nil {
		v, err := decodeType(*d.Value)
		if err != nil {
			return t, err
		}
		t.Value = &v
	}
	for _, f := range d.Fields {
		ft, err := decodeType(f.Type)
		if err != nil {
			return t, err
		}
		t.Fields = append(t.Fields, types.Field{Name: f.Name, Type: ft, Description: f.Description})
	}
	switch {
	case k == types.Array && t.Elem == nil, k == types.Map && (t.Elem == nil || t.Value == nil):
		return t, fmt.Errorf("%s type without its element type", d.Kind)
	}
	return t, nil
}

type columnDoc struct {
	Name        string  `json:"name"`
	Type        typeDoc `json:"type"`
	Comment     string  `json:"comment,omitempty"`
	Expr        string  `json:"expr,omitempty"`
	Metadata    bool    `json:"metadata,omitempty"`
	MetadataKey string  `json:"metadataKey,omitempty"`
	Virtual     bool    `json:"virtual,omitempty"`
}

type tableDoc struct {
	Columns       []columnDoc       `json:"columns"`
	PrimaryKey    *PrimaryKey       `json:"primaryKey,omitempty"`
	Watermark     *Watermark        `json:"watermark,omitempty"`
	Comment       string            `json:"comment,omitempty"`
	PartitionKeys []string          `json:"partitionKeys,omitempty"`
	Options       map[string]string `json:"options"`
}

type viewDoc struct {
	Columns        []fieldDoc `json:"columns"`
	OriginalQuery  string     `json:"originalQuery"`
	ExpandedQuery  string     `json:"expandedQuery"`
	Comment        string     `json:"comment,omitempty"`
	TimeAttributes []string   `json:"timeAttributes,omitempty"`
}

// objectDoc is the JSON document of one table or view.
type objectDoc struct {
	Version int       `json:"version"`
	Kind    string    `json:"kind"`
	Table   *tableDoc `json:"table,omitempty"`
	View    *viewDoc  `json:"view,omitempty"`
}

// databaseDoc is the JSON document of one database.
type databaseDoc struct {
	Version    int               `json:"version"`
	Comment    string            `json:"comment,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
}

var timeAttrNames = map[TimeAttribute]string{NoTimeAttribute: "", RowtimeAttribute: "ROWTIME", ProctimeAttribute: "PROCTIME"}

// EncodeObject serialises a table or view as the file catalog's JSON
// document.
func EncodeObject(obj Object) ([]byte, error) {
	doc := objectDoc{Version: formatVersion}
	switch o := obj.(type) {
	case *Table:
		td := &tableDoc{PrimaryKey: o.PrimaryKey, Watermark: o.Watermark, Comment: o.Comment,
			PartitionKeys: o.PartitionKeys, Options: o.Options}
		if td.Options == nil {
			td.Options = map[string]string{}
		}
		for _, c := range o.Columns {
			ct, err := encodeType(c.Type)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", c.Name, err)
			}
			td.Columns = append(td.Columns, columnDoc{Name: c.Name, Type: ct, Comment: c.Comment, Expr: c.Expr,
				Metadata: c.Metadata, MetadataKey: c.MetadataKey, Virtual: c.Virtual})
		}
		doc.Kind, doc.Table = "TABLE", td
	case *View:
		vd := &viewDoc{OriginalQuery: o.OriginalQuery, ExpandedQuery: o.ExpandedQuery, Comment: o.Comment}
		for _, f := range o.Columns {
			ft, err := encodeType(f.Type)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", f.Name, err)
			}
			vd.Columns = append(vd.Columns, fieldDoc{Name: f.Name, Type: ft, Description: f.Description})
		}
		for _, a := range o.TimeAttributes {
			vd.TimeAttributes = append(vd.TimeAttributes, timeAttrNames[a])
		}
		doc.Kind, doc.View = "VIEW", vd
	default:
		return nil, fmt.Errorf("cannot store a %T", obj)
	}
	return json.MarshalIndent(doc, "", "  ")
}

// DecodeObject parses a document written by EncodeObject.
func DecodeObject(data []byte) (Object, error) {
	var doc objectDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if doc.Version < 1 || doc.Version > formatVersion {
		return nil, fmt.Errorf("unsupported format version %d", doc.Version)
	}
	switch {
	case doc.Kind == "TABLE" && doc.Table != nil:
		td := doc.Table
		t := &Table{PrimaryKey: td.PrimaryKey, Watermark: td.Watermark, Comment: td.Comment,
			PartitionKeys: td.PartitionKeys, Options: td.Options}
		if t.Options == nil {
			t.Options = map[string]string{}
		}
		for _, c := range td.Columns {
			ct, err := decodeType(c.Type)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", c.Name, err)
			}
			if c.Name == "" {
				return nil, fmt.Errorf("a column without a name")
			}
			t.Columns = append(t.Columns, Column{Name: c.Name, Type: ct, Comment: c.Comment, Expr: c.Expr,
				Metadata: c.Metadata, MetadataKey: c.MetadataKey, Virtual: c.Virtual})
		}
		return t, nil
	case doc.Kind == "VIEW" && doc.View != nil:
		vd := doc.View
		if vd.ExpandedQuery == "" && vd.OriginalQuery == "" {
			return nil, fmt.Errorf("a view without a query")
		}
		v := &View{OriginalQuery: vd.OriginalQuery, ExpandedQuery: vd.ExpandedQuery, Comment: vd.Comment}
		for _, f := range vd.Columns {
			ft, err := decodeType(f.Type)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", f.Name, err)
			}
			v.Columns = append(v.Columns, types.Field{Name: f.Name, Type: ft, Description: f.Description})
		}
		for _, a := range vd.TimeAttributes {
			switch a {
			case "":
				v.TimeAttributes = append(v.TimeAttributes, NoTimeAttribute)
			case "ROWTIME":
				v.TimeAttributes = append(v.TimeAttributes, RowtimeAttribute)
			case "PROCTIME":
				v.TimeAttributes = append(v.TimeAttributes, ProctimeAttribute)
			default:
				return nil, fmt.Errorf("unknown time attribute %q", a)
			}
		}
		return v, nil
	}
	return nil, fmt.Errorf("unknown object kind %q", doc.Kind)
}

func encodeDatabase(d *Database) ([]byte, error) {
	return json.MarshalIndent(databaseDoc{Version: formatVersion, Comment: d.Comment, Properties: d.Properties}, "", "  ")
}

func decodeDatabase(data []byte) (*Database, error) {
	var doc databaseDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Version < 1 || doc.Version > formatVersion {
		return nil, fmt.Errorf("unsupported format version %d", doc.Version)
	}
	return &Database{Comment: doc.Comment, Properties: doc.Properties}, nil
}

func fieldDocToField(d fieldDoc, t types.Type) types.Field {
	return types.Field{Name: d.Name, Type: t, Description: d.Description}
}
