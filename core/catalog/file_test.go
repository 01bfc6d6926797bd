package catalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestEscapeName(t *testing.T) {
	for _, n := range []string{"t", "My_Table-1", "we.ird", "a/b", "..", "", "with space", "ünï", "`q`", "%41"} {
		e := escapeName(n)
		require.NotContains(t, e, "/", n)
		require.NotEqual(t, ".", e[:1], n)
		back, ok := unescapeName(e)
		require.True(t, ok, n)
		require.Equal(t, n, back)
	}
	_, ok := unescapeName("bad%4")
	require.False(t, ok)
	_, ok = unescapeName("bad%zz")
	require.False(t, ok)
}

func TestCodecRoundTrip(t *testing.T) {
	row := types.RowOf(types.Field{Name: "f", Type: types.IntT, Description: "d"}, types.Field{Name: "g", Type: types.ArrayOf(types.StringT)})
	tbl := &Table{
		Columns: []Column{
			{Name: "id", Type: types.BigIntT.WithNullable(false), Comment: "key"},
			{Name: "dec", Type: types.DecimalOf(10, 2)},
			{Name: "m", Type: types.MapOf(types.StringT, types.TimestampLTZOf(3))},
			{Name: "r", Type: row},
			{Name: "iv", Type: types.IntervalDT},
			{Name: "c", Type: types.IntT, Expr: "`id` + 1"},
			{Name: "md", Type: types.StringT, Metadata: true, MetadataKey: "k", Virtual: true},
			{Name: "ts", Type: types.TimestampOf(3)},
		},
		PrimaryKey:    &PrimaryKey{Name: "PK_id", Columns: []string{"id"}},
		Watermark:     &Watermark{Column: "ts", Expr: "`ts` - INTERVAL '1' SECOND"},
		Comment:       "c",
		PartitionKeys: []string{"dec"},
		Options:       map[string]string{"connector": "datagen"},
	}
	data, err := EncodeObject(tbl)
	require.NoError(t, err)
	back, err := DecodeObject(data)
	require.NoError(t, err)
	require.Equal(t, tbl, back)

	view := &View{
		Columns:        types.Schema{{Name: "a", Type: types.IntT}, {Name: "ts", Type: types.TimestampOf(3)}},
		OriginalQuery:  "SELECT a, ts FROM t",
		ExpandedQuery:  "SELECT `t`.`a`, `t`.`ts`\nFROM `c`.`d`.`t`",
		Comment:        "v",
		TimeAttributes: []TimeAttribute{NoTimeAttribute, RowtimeAttribute},
	}
	data, err = EncodeObject(view)
	require.NoError(t, err)
	back, err = DecodeObject(data)
	require.NoError(t, err)
	require.Equal(t, view, back)

	for _, bad := range []string{``, `{`, `{"version":1,"kind":"TABLE"}`, `{"version":2,"kind":"TABLE","table":{}}`, `{"version":1,"kind":"VIEW","view":{"columns":[]}}`} {
		_, err := DecodeObject([]byte(bad))
		require.Error(t, err, bad)
	}
}

func TestFileCatalog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, err := OpenFile("c", dir, "db")
	require.NoError(t, err)
	require.NoError(t, c.CreateObject("db", "t", table("a"), false))
	require.ErrorIs(t, c.CreateObject("db", "t", table("a"), false), ErrAlreadyExists)
	require.ErrorIs(t, c.CreateObject("nope", "t", table("a"), false), ErrNotFound)
	require.NoError(t, c.CreateDatabase("db2", &Database{Comment: "x"}, false))
	dbs, err := c.ListDatabases()
	require.NoError(t, err)
	require.Equal(t, []string{"db", "db2"}, dbs)

	// no temporary files are left behind
	var leftovers []string
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if filepath.Base(p)[0] == '.' {
			leftovers = append(leftovers, p)
		}
		return err
	}))
	require.Empty(t, leftovers)

	// reopening sees everything
	c2, err := OpenFile("c", dir, "db")
	require.NoError(t, err)
	o, err := c2.GetObject("db", "t")
	require.NoError(t, err)
	require.Equal(t, table("a"), o)
	d, err := c2.GetDatabase("db2")
	require.NoError(t, err)
	require.Equal(t, "x", d.Comment)
	require.ErrorIs(t, c2.DropDatabase("db", false, false), ErrNotEmpty)
	require.NoError(t, c2.DropDatabase("db", false, true))
	require.ErrorIs(t, c2.DropDatabase("db", false, false), ErrNotFound)
	require.NoError(t, c2.DropDatabase("db", true, false))
	// a half-created database (no database.json) is not listed
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "half", "objects"), 0o755))
	dbs, err = c2.ListDatabases()
	require.NoError(t, err)
	require.Equal(t, []string{"db2"}, dbs)
	require.NoError(t, c2.CreateDatabase("half", &Database{}, false))

	_, err = OpenFile("c", "", "db")
	require.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(`{"type":"other","version":1}`), 0o644))
	_, err = OpenFile("c", dir, "db")
	require.ErrorIs(t, err, ErrCorrupt)
}

func TestFileCatalogFunctions(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenFile("c", dir, "db")
	require.NoError(t, err)
	f := &Function{Name: "Plus1", Language: "SQL", Kind: "SCALAR", Params: []types.Field{{Name: "x", Type: types.IntT}},
		Returns: types.IntT.WithNullable(false), Body: "x + 1"}
	require.NoError(t, c.CreateFunction("db", "plus1", f, false))
	require.ErrorIs(t, c.CreateFunction("db", "PLUS1", f, false), ErrAlreadyExists)
	require.NoError(t, c.CreateFunction("db", "up", &Function{ClassName: "UpperUDF", Language: "JAVA", Resources: []string{"a.jar"}}, false))
	require.ErrorIs(t, c.DropDatabase("db", false, false), ErrNotEmpty)

	c2, err := OpenFile("c", dir, "db")
	require.NoError(t, err)
	names, err := c2.ListFunctions("db")
	require.NoError(t, err)
	require.Equal(t, []string{"plus1", "up"}, names)
	got, err := c2.GetFunction("db", "Plus1")
	require.NoError(t, err)
	require.Equal(t, f, got)
	require.NoError(t, c2.AlterFunction("db", "up", &Function{ClassName: "LowerUDF", Language: "JAVA"}, false))
	got, err = c2.GetFunction("db", "up")
	require.NoError(t, err)
	require.Equal(t, "LowerUDF", got.ClassName)
	require.NoError(t, c2.DropFunction("db", "up", false))
	require.ErrorIs(t, c2.DropFunction("db", "up", false), ErrNotFound)
	require.NoError(t, os.WriteFile(c2.functionFile("db", "plus1"), []byte("{"), 0o644))
	_, err = c2.GetFunction("db", "plus1")
	require.ErrorIs(t, err, ErrCorrupt)
}

func TestInMemoryReleasesFunctions(t *testing.T) {
	before := func() int {
		memFunctions.Lock()
		defer memFunctions.Unlock()
		return len(memFunctions.m)
	}()
	for i := 0; i < 50; i++ {
		c := NewInMemory("c", "db")
		require.NoError(t, c.CreateDatabase("db2", &Database{}, false))
		require.NoError(t, c.CreateFunction("db", "f", &Function{ClassName: "X"}, false))
		require.NoError(t, c.CreateFunction("db2", "f", &Function{ClassName: "X"}, false))
		require.ErrorIs(t, c.DropDatabase("db2", false, false), ErrNotEmpty, "a database with functions is not empty")
		require.NoError(t, c.DropDatabase("db2", false, true))
		require.NoError(t, c.Close())
	}
	memFunctions.Lock()
	defer memFunctions.Unlock()
	require.Equal(t, before, len(memFunctions.m))
}

func TestFileCatalogStore(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenFileCatalogStore(dir)
	require.NoError(t, err)
	m := NewManager("default_catalog", "default_database")
	m.SetStore(s)
	d := &Descriptor{Comment: "it's: a \"comment\"\nwith a newline", Options: map[string]string{"type": TypeGenericInMemory, "default-database": "x: y"}}
	require.NoError(t, m.RegisterCatalogWithDescriptor("we.ird/name", NewInMemory("c", "x: y"), d))
	require.NoError(t, m.RegisterCatalog("nodesc", NewInMemory("n", "d")))
	loaded, err := s.Load()
	require.NoError(t, err)
	require.Equal(t, map[string]Descriptor{"we.ird/name": *d}, loaded, "only catalogs with descriptors are stored")
	d2 := Descriptor{Options: map[string]string{"type": TypeGenericInMemory}}
	require.NoError(t, m.SetDescriptor("we.ird/name", d2))
	loaded, err = s.Load()
	require.NoError(t, err)
	require.Equal(t, d2, loaded["we.ird/name"])
	require.NoError(t, m.UnregisterCatalog("we.ird/name", false))
	loaded, err = s.Load()
	require.NoError(t, err)
	require.Empty(t, loaded)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("default-database: x\n"), 0o644))
	_, err = s.Load()
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = OpenFileCatalogStore("")
	require.Error(t, err)
}
