package function_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/module"
	"github.com/tablerun/tablerun/core/types"
)

// fakeCompile makes a definition whose Doc.Summary is the record's body,
// so tests can tell which function a name resolved to; a record without a
// body is a Java class tablerun cannot call.
func fakeCompile(key, display string, rec *catalog.Function) (*function.Definition, error) {
	if rec.Body == "" {
		return nil, fmt.Errorf("not supported yet: calling java function '%s'", display)
	}
	if rec.Body == "syntax error" {
		return nil, errors.New("SyntaxError")
	}
	return &function.Definition{
		Name: key, Kind: function.Scalar, Doc: function.Doc{Summary: rec.Body},
		Infer: func([]types.Type) (types.Type, []types.Type, error) { return types.StringT, nil, nil },
	}, nil
}

func inline(body string) *catalog.Function {
	return &catalog.Function{Language: "PYTHON", Body: body, Kind: "SCALAR", Returns: types.StringT}
}

type fixture struct {
	cat  *catalog.Manager
	mods *module.Manager
	reg  *function.Registry
	fc   *function.Catalog
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	cat := catalog.NewManager("default_catalog", "default_database")
	require.NoError(t, cat.RegisterCatalog("c1", catalog.NewInMemory("c1", "db")))
	mods := module.NewManager(function.Builtins())
	reg := function.Builtins()
	return &fixture{cat: cat, mods: mods, reg: reg, fc: function.NewCatalog(cat, mods, reg, function.Builtins(), fakeCompile)}
}

// resolvedTo returns the body (or built-in name) a reference resolves to.
func (f *fixture) resolvedTo(t *testing.T, parts ...string) string {
	t.Helper()
	def, err := f.fc.Resolve(parts)
	require.NoError(t, err)
	if def == nil {
		return "<none>"
	}
	got, ok := f.reg.Lookup(def.Name)
	require.True(t, ok, "call key %q is registered", def.Name)
	require.Equal(t, def.Name, got.Name)
	if def.Doc.Summary != "" && def.Name != "UPPER" {
		return def.Doc.Summary
	}
	return def.Name
}

func TestResolutionOrder(t *testing.T) {
	f := newFixture(t)
	fc := f.fc
	require.Equal(t, "UPPER", f.resolvedTo(t, "upper"))

	// catalog < temporary catalog < system < temporary system
	require.NoError(t, fc.CreateCatalogFunction([]string{"upper"}, inline("catalog"), false))
	require.Equal(t, "UPPER", f.resolvedTo(t, "UPPER"), "system functions come before catalog functions")
	require.Equal(t, "catalog", f.resolvedTo(t, "default_database", "upper"), "a precise reference skips system functions")
	require.NoError(t, fc.CreateTemporaryCatalogFunction([]string{"Upper"}, inline("temp catalog"), false))
	require.Equal(t, "temp catalog", f.resolvedTo(t, "default_catalog", "default_database", "UPPER"))
	require.NoError(t, fc.CreateTemporarySystemFunction("UPPER", inline("temp system"), false))
	require.Equal(t, "temp system", f.resolvedTo(t, "upper"))

	def, err := fc.Resolve([]string{"upper"})
	require.NoError(t, err)
	require.Equal(t, "`upper`", def.Name, "a temporary system function never takes a built-in's call key")
	builtin, _ := f.reg.Lookup("UPPER")
	require.Equal(t, "UPPER", builtin.Name, "the built-in's entry is untouched")

	require.NoError(t, fc.DropTemporarySystemFunction("upper", false))
	require.Equal(t, "UPPER", f.resolvedTo(t, "upper"))
	require.NoError(t, f.mods.Unload("core"))
	require.Equal(t, "temp catalog", f.resolvedTo(t, "upper"), "without core, the temporary catalog function")
	require.NoError(t, fc.DropTemporaryCatalogFunction([]string{"upper"}, false))
	require.Equal(t, "catalog", f.resolvedTo(t, "upper"))
	def, err = fc.Resolve([]string{"upper"})
	require.NoError(t, err)
	require.Equal(t, "default_catalog.default_database.upper", def.Name)
	require.NoError(t, fc.DropCatalogFunction([]string{"upper"}, false))
	require.Equal(t, "<none>", f.resolvedTo(t, "upper"))
}

func TestResolveCurrentDatabase(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.fc.CreateCatalogFunction([]string{"c1", "db", "f"}, inline("c1"), false))
	require.Equal(t, "<none>", f.resolvedTo(t, "f"))
	require.Equal(t, "c1", f.resolvedTo(t, "c1", "db", "F"))
	require.NoError(t, f.cat.UseCatalog("c1"))
	require.Equal(t, "c1", f.resolvedTo(t, "f"))
	require.Equal(t, "c1", f.resolvedTo(t, "db", "f"))
}

func TestAlterRecompiles(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.fc.CreateCatalogFunction([]string{"g"}, inline("v1"), false))
	require.Equal(t, "v1", f.resolvedTo(t, "g"))
	require.NoError(t, f.fc.AlterCatalogFunction([]string{"g"}, inline("v2"), false))
	require.Equal(t, "v2", f.resolvedTo(t, "g"))
}

func TestUnsupportedFunctions(t *testing.T) {
	f := newFixture(t)
	java := &catalog.Function{ClassName: "LowerUDF", Language: "JAVA"}
	require.NoError(t, f.fc.CreateCatalogFunction([]string{"j"}, java, false))
	require.NoError(t, f.fc.CreateTemporarySystemFunction("tj", java, false))
	for _, name := range []string{"j", "tj"} {
		_, err := f.fc.Resolve([]string{name})
		require.ErrorContains(t, err, "not supported yet: calling java function")
		r, err := f.fc.Lookup([]string{name})
		require.NoError(t, err)
		require.NotNil(t, r.Record)
		require.Equal(t, "LowerUDF", r.Record.ClassName)
	}
	err := f.fc.CreateCatalogFunction([]string{"bad"}, inline("syntax error"), false)
	require.ErrorContains(t, err, "Could not register catalog function 'default_catalog.default_database.bad' due to implementation errors. Cause: SyntaxError")
	names, err := f.fc.UserFunctions("default_catalog", "default_database")
	require.NoError(t, err)
	require.Equal(t, []string{"j", "tj"}, names)
}

func TestDDLErrors(t *testing.T) {
	tests := []struct {
		name string
		run  func(fc *function.Catalog) error
		want string
	}{
		{"duplicate temporary system", func(fc *function.Catalog) error {
			_ = fc.CreateTemporarySystemFunction("f", inline("a"), false)
			return fc.CreateTemporarySystemFunction("F", inline("a"), false)
		}, "Could not register temporary system function. A function named 'F' does already exist."},
		{"duplicate temporary catalog", func(fc *function.Catalog) error {
			_ = fc.CreateTemporaryCatalogFunction([]string{"f"}, inline("a"), false)
			return fc.CreateTemporaryCatalogFunction([]string{"default_database", "f"}, inline("a"), false)
		}, "Could not register temporary catalog function. A function 'default_catalog.default_database.f' does already exist."},
		{"catalog over temporary", func(fc *function.Catalog) error {
			_ = fc.CreateTemporaryCatalogFunction([]string{"f"}, inline("a"), false)
			return fc.CreateCatalogFunction([]string{"f"}, inline("a"), false)
		}, "Could not register catalog function. A temporary function 'default_catalog.default_database.f' does already exist. Please drop the temporary function first."},
		{"duplicate catalog", func(fc *function.Catalog) error {
			_ = fc.CreateCatalogFunction([]string{"f"}, inline("a"), false)
			return fc.CreateCatalogFunction([]string{"F"}, inline("a"), false)
		}, "Could not register catalog function. A function 'default_catalog.default_database.f' does already exist."},
		{"missing database", func(fc *function.Catalog) error {
			return fc.CreateCatalogFunction([]string{"nodb", "f"}, inline("a"), false)
		}, "Database nodb does not exist in Catalog default_catalog."},
		{"missing catalog", func(fc *function.Catalog) error {
			return fc.CreateCatalogFunction([]string{"nocat", "db", "f"}, inline("a"), false)
		}, "Catalog nocat not exists."},
		{"drop missing temporary system", func(fc *function.Catalog) error {
			return fc.DropTemporarySystemFunction("f", false)
		}, "Could not drop temporary system function. A function named 'f' doesn't exist."},
		{"drop missing temporary catalog", func(fc *function.Catalog) error {
			return fc.DropTemporaryCatalogFunction([]string{"f"}, false)
		}, "Temporary catalog function `default_catalog`.`default_database`.`f` doesn't exist"},
		{"drop missing catalog", func(fc *function.Catalog) error {
			return fc.DropCatalogFunction([]string{"f"}, false)
		}, "Could not drop catalog function. A function 'default_catalog.default_database.f' doesn't exist."},
		{"drop catalog under temporary", func(fc *function.Catalog) error {
			_ = fc.CreateCatalogFunction([]string{"f"}, inline("a"), false)
			_ = fc.CreateTemporaryCatalogFunction([]string{"f"}, inline("a"), false)
			return fc.DropCatalogFunction([]string{"f"}, false)
		}, "Could not drop catalog function. A temporary function 'default_catalog.default_database.f' does already exist. Please drop the temporary function first."},
		{"alter missing", func(fc *function.Catalog) error {
			return fc.AlterCatalogFunction([]string{"f"}, inline("a"), false)
		}, "Function default_database.f does not exist in Catalog default_catalog."},
		{"if exists / if not exists are quiet", func(fc *function.Catalog) error {
			_ = fc.CreateTemporarySystemFunction("f", inline("a"), false)
			for _, err := range []error{
				fc.CreateTemporarySystemFunction("f", inline("a"), true),
				fc.DropTemporaryCatalogFunction([]string{"x"}, true),
				fc.DropCatalogFunction([]string{"x"}, true),
				fc.AlterCatalogFunction([]string{"x"}, inline("a"), true),
			} {
				if err != nil {
					return err
				}
			}
			return errors.New("ok")
		}, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			err := tt.run(f.fc)
			require.Error(t, err)
			require.Equal(t, tt.want, err.Error())
			var jc interface{ JavaClass() string }
			if tt.want != "ok" {
				require.ErrorAs(t, err, &jc)
			}
		})
	}
}

func TestListFunctions(t *testing.T) {
	f := newFixture(t)
	fc := f.fc
	require.NoError(t, fc.CreateTemporarySystemFunction("tsys", inline("a"), false))
	require.NoError(t, fc.CreateTemporaryCatalogFunction([]string{"c1", "db", "tcat"}, inline("a"), false))
	require.NoError(t, fc.CreateCatalogFunction([]string{"c1", "db", "perm"}, inline("a"), false))
	require.NoError(t, fc.CreateCatalogFunction([]string{"local"}, inline("a"), false))

	user, err := fc.UserFunctions("default_catalog", "default_database")
	require.NoError(t, err)
	require.Equal(t, []string{"local", "tsys"}, user)
	user, err = fc.UserFunctions("c1", "db")
	require.NoError(t, err)
	require.Equal(t, []string{"perm", "tcat", "tsys"}, user)

	all, err := fc.Functions("c1", "db")
	require.NoError(t, err)
	require.Contains(t, all, "perm")
	require.Contains(t, all, "upper")
	require.NotContains(t, all, "local")
	require.NoError(t, f.mods.Use())
	all, err = fc.Functions("c1", "db")
	require.NoError(t, err)
	require.Equal(t, []string{"perm", "tcat", "tsys"}, all, "no used module: no system functions")
}

func TestRegisterGoFunction(t *testing.T) {
	f := newFixture(t)
	def := &function.Definition{Kind: function.Scalar, Doc: function.Doc{Summary: "go"},
		Infer: func([]types.Type) (types.Type, []types.Type, error) { return types.IntT, nil, nil }}
	require.NoError(t, f.fc.RegisterTemporarySystemFunction("MyGo", def, false))
	require.Equal(t, "go", f.resolvedTo(t, "mygo"))
	require.Equal(t, "mygo", def.Name)
	require.Error(t, f.fc.RegisterTemporarySystemFunction("mygo", def, false))
}
