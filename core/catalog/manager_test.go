package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func table(cols ...string) *Table {
	t := &Table{Options: map[string]string{"connector": "values"}}
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c, Type: types.IntT})
	}
	return t
}

func TestQualify(t *testing.T) {
	m := NewManager("default_catalog", "default_database")
	id, err := m.Qualify([]string{"t"})
	require.NoError(t, err)
	require.Equal(t, ObjectIdentifier{"default_catalog", "default_database", "t"}, id)
	id, err = m.Qualify([]string{"db", "t"})
	require.NoError(t, err)
	require.Equal(t, ObjectIdentifier{"default_catalog", "db", "t"}, id)
	id, err = m.Qualify([]string{"c", "db", "t"})
	require.NoError(t, err)
	require.Equal(t, "`c`.`db`.`t`", id.String())
	require.Equal(t, "c.db.t", id.Summary())
	_, err = m.Qualify([]string{"a", "b", "c", "d"})
	require.Error(t, err)
}

func TestTemporaryShadowsPermanent(t *testing.T) {
	m := NewManager("default_catalog", "default_database")
	id, _ := m.Qualify([]string{"t"})
	require.NoError(t, m.CreateObject(id, table("perm"), false, false))
	require.NoError(t, m.CreateObject(id, table("temp"), true, false))

	o, temp, err := m.Lookup(id)
	require.NoError(t, err)
	require.True(t, temp)
	require.Equal(t, "temp", o.(*Table).Columns[0].Name)

	err = m.DropObject(id, false, false, false)
	require.EqualError(t, err, "Temporary table with identifier '`default_catalog`.`default_database`.`t`' exists. Drop it first before removing the permanent table.")
	require.NoError(t, m.DropObject(id, false, true, false))
	o, temp, err = m.Lookup(id)
	require.NoError(t, err)
	require.False(t, temp)
	require.Equal(t, "perm", o.(*Table).Columns[0].Name)

	names, err := m.ListObjects("default_catalog", "default_database", false, false)
	require.NoError(t, err)
	require.Equal(t, []string{"t"}, names)
}

func TestCreateAndDropErrors(t *testing.T) {
	m := NewManager("default_catalog", "default_database")
	id, _ := m.Qualify([]string{"v"})
	require.NoError(t, m.CreateObject(id, &View{OriginalQuery: "SELECT 1"}, true, false))
	err := m.CreateObject(id, &View{}, true, false)
	require.EqualError(t, err, "Temporary table '`default_catalog`.`default_database`.`v`' already exists")
	require.NoError(t, m.CreateObject(id, &View{}, true, true))

	missing, _ := m.Qualify([]string{"nope"})
	require.NoError(t, m.DropObject(missing, false, false, true))
	require.EqualError(t, m.DropObject(missing, false, false, false), "Table with identifier 'default_catalog.default_database.nope' does not exist.")

	views, err := m.ListObjects("default_catalog", "default_database", true, false)
	require.NoError(t, err)
	require.Equal(t, []string{"v"}, views)
	tables, err := m.ListObjects("default_catalog", "default_database", false, false)
	require.NoError(t, err)
	require.Empty(t, tables)

	require.Error(t, m.UseDatabase("nope"))
	require.Error(t, m.UseCatalog("nope"))
	require.NoError(t, m.RegisterCatalog("c2", NewInMemory("c2", "default")))
	require.NoError(t, m.UseCatalog("c2"))
	require.Equal(t, "default", m.CurrentDatabase())

	require.EqualError(t, m.UnregisterCatalog("c2", false), "Cannot drop a catalog which is currently in use.")
	require.NoError(t, m.UnregisterCatalog("default_catalog", false))
	require.EqualError(t, m.UnregisterCatalog("default_catalog", false), "Catalog default_catalog does not exist.")
	require.NoError(t, m.UnregisterCatalog("default_catalog", true))
	require.Equal(t, []string{"c2"}, m.ListCatalogs())
	// temporary objects survive dropping their catalog, as in Flink
	_, temp, err := m.Lookup(id)
	require.NoError(t, err)
	require.True(t, temp)
}

func TestCatalogErrors(t *testing.T) {
	c := NewInMemory("c", "db")
	cases := []struct {
		name  string
		err   error
		class string
		msg   string
		kind  error
	}{
		{"db exists", c.CreateDatabase("db", &Database{}, false), ClassDatabaseAlreadyExist, "Database db already exists in Catalog c.", ErrAlreadyExists},
		{"db missing", c.DropDatabase("x", false, false), ClassDatabaseNotExist, "Database x does not exist in Catalog c.", ErrNotFound},
		{"table missing", c.DropObject("db", "t", false), ClassTableNotExist, "Table (or view) db.t does not exist in Catalog c.", ErrNotFound},
		{"alter missing", c.AlterObject("db", "t", &Table{}, false), ClassTableNotExist, "Table (or view) db.t does not exist in Catalog c.", ErrNotFound},
	}
	require.NoError(t, c.CreateObject("db", "t2", &Table{}, false))
	cases = append(cases, struct {
		name  string
		err   error
		class string
		msg   string
		kind  error
	}{"table exists", c.CreateObject("db", "t2", &Table{}, false), ClassTableAlreadyExist, "Table (or view) db.t2 already exists in Catalog c.", ErrAlreadyExists},
		struct {
			name  string
			err   error
			class string
			msg   string
			kind  error
		}{"not empty", c.DropDatabase("db", false, false), ClassDatabaseNotEmpty, "Database db in catalog c is not empty.", ErrNotEmpty})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ce *Error
			require.ErrorAs(t, tc.err, &ce)
			require.Equal(t, tc.class, ce.JavaClass())
			require.EqualError(t, tc.err, tc.msg)
			require.ErrorIs(t, tc.err, tc.kind)
		})
	}
	require.NoError(t, c.RenameObject("db", "t2", "t3", false))
	names, err := c.ListObjects("db")
	require.NoError(t, err)
	require.Equal(t, []string{"t3"}, names)
	require.NoError(t, c.DropDatabase("db", false, true))
}
