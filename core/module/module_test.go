package module

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
)

type fakeModule map[string]*function.Definition

func (f fakeModule) ListFunctions() []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	return out
}

func (f fakeModule) Function(name string) (*function.Definition, bool) {
	d, ok := f[name]
	return d, ok
}

func TestManagerStatements(t *testing.T) {
	type step struct {
		op      string // load, unload, use
		args    []string
		opts    map[string]string
		wantErr string
		used    []string
		full    []Entry
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"default", []step{{op: "none", used: []string{"core"}, full: []Entry{{"core", true}}}}},
		{"load twice", []step{{op: "load", args: []string{"core"}, wantErr: "A module with name 'core' already exists"}}},
		{"unknown factory", []step{{op: "load", args: []string{"Dummy"},
			wantErr: "Could not find any factory for identifier 'Dummy' that implements 'org.apache.flink.table.factories.ModuleFactory' in the classpath.\n\nAvailable factory identifiers are:\n\ncore\ndummy"}}},
		{"type option", []step{{op: "load", args: []string{"mydummy"}, opts: map[string]string{"type": "dummy"},
			wantErr: "Option 'type' = 'dummy' is not supported since module name is used to find module"}}},
		{"script without loader", []step{{op: "load", args: []string{"text"}, opts: map[string]string{"type": "python", "path": "x.py"},
			wantErr: "not supported yet: python script modules"}}},
		{"options of core", []step{{op: "unload", args: []string{"core"}}, {op: "load", args: []string{"core"}, opts: map[string]string{"a": "b"},
			wantErr: "Unsupported options found for 'core'."}}},
		{"order and disable", []step{
			{op: "load", args: []string{"dummy"}, used: []string{"core", "dummy"}},
			{op: "use", args: []string{"dummy", "core", "dummy"}, wantErr: "Module 'dummy' appears more than once"},
			{op: "use", args: []string{"nope"}, wantErr: "No module with name 'nope' exists"},
			{op: "use", args: []string{"dummy", "core"}, used: []string{"dummy", "core"}, full: []Entry{{"dummy", true}, {"core", true}}},
			{op: "use", args: []string{"core"}, used: []string{"core"}, full: []Entry{{"core", true}, {"dummy", false}}},
			{op: "unload", args: []string{"core"}, used: []string{}, full: []Entry{{"dummy", false}}},
			{op: "unload", args: []string{"core"}, wantErr: "No module with name 'core' exists"},
			{op: "load", args: []string{"core"}, used: []string{"core"}, full: []Entry{{"core", true}, {"dummy", false}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewManager(function.Builtins())
			for i, s := range tt.steps {
				var err error
				switch s.op {
				case "load":
					err = m.Load(s.args[0], s.opts)
				case "unload":
					err = m.Unload(s.args[0])
				case "use":
					err = m.Use(s.args...)
				}
				if s.wantErr != "" {
					require.Error(t, err, "step %d", i)
					require.Contains(t, err.Error(), s.wantErr, "step %d", i)
					var me *Error
					if s.op != "load" || s.opts["type"] != "python" {
						require.ErrorAs(t, err, &me)
						require.Equal(t, ClassValidation, me.JavaClass())
					}
					continue
				}
				require.NoError(t, err, "step %d", i)
				if s.used != nil {
					require.Equal(t, s.used, m.Used(), "step %d", i)
				}
				if s.full != nil {
					require.Equal(t, s.full, m.Full(), "step %d", i)
				}
			}
		})
	}
}

func TestLookupOrder(t *testing.T) {
	m := NewManager(function.Builtins())
	mine := &function.Definition{Name: "upper", Kind: function.Scalar}
	m.RegisterFactory("mine", func(map[string]string) (Module, error) {
		return fakeModule{"upper": mine, "extra": mine}, nil
	})
	require.NoError(t, m.Load("mine", nil))

	tests := []struct {
		name    string
		use     []string
		lookup  string
		wantMod string
		found   bool
	}{
		{"core first", []string{"core", "mine"}, "UPPER", "core", true},
		{"mine first", []string{"mine", "core"}, "upper", "mine", true},
		{"only in mine", []string{"core", "mine"}, "extra", "mine", true},
		{"disabled module", []string{"core"}, "extra", "", false},
		{"operators are not callable by name", []string{"core"}, "and", "", false},
		{"internal names", []string{"core"}, "$ROW", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, m.Use(tt.use...))
			_, mod, ok := m.LookupFunction(tt.lookup)
			require.Equal(t, tt.found, ok)
			require.Equal(t, tt.wantMod, mod)
		})
	}
}

func TestCoreListFunctions(t *testing.T) {
	names := NewCore(function.Builtins()).ListFunctions()
	require.Contains(t, names, "upper")
	require.Contains(t, names, "count")
	for _, n := range []string{"+", "and", "negate", "$row", "is null", "like"} {
		require.NotContains(t, names, n)
	}
	require.IsIncreasing(t, names)
}

func TestCoreAggregates(t *testing.T) {
	d, ok := NewCore(function.Builtins()).Function("count")
	require.True(t, ok)
	require.Equal(t, function.Aggregate, d.Kind)
	require.Equal(t, "COUNT", d.Name)
	require.NotEmpty(t, d.Doc.Summary)
}
