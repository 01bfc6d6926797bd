package udf

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// A script function declared without parameter types — PyFlink's udf,
// udtf and udaf without input_types, which Flink calls with whatever
// arguments the query passes — has one generic definition (NewPoly): it
// accepts any arguments and returns its declared type. Each distinct list
// of argument types gets its own compiled instance, made on first use by
// Specialize, so value conversion works as for a declared signature.

// poly is the implementation registered for a generic definition.
type poly struct {
	spec    Spec // Params empty
	compile func(Spec) (*function.Definition, error)

	mu   sync.Mutex
	defs map[string]*function.Definition // by argument type list
}

// NewPoly returns the generic definition of spec (its Params are ignored):
// compile makes the instance for one list of argument types. mergeable
// tells whether an aggregate's accumulators merge (the script defines
// merge), known before any instance exists.
func NewPoly(spec Spec, compile func(Spec) (*function.Definition, error), mergeable bool) *function.Definition {
	spec.Params = nil
	p := &poly{spec: spec, compile: compile, defs: map[string]*function.Definition{}}
	def := &function.Definition{
		Name:             spec.Name,
		Kind:             spec.Kind,
		Nondeterministic: true,
		Mergeable:        mergeable && spec.Kind == function.Aggregate,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			// a NULL literal gets a type the instance can convert
			want := make([]types.Type, len(args))
			for i, a := range args {
				want[i] = a
				if a.Kind == types.Null {
					want[i] = types.StringT
				}
			}
			return spec.Returns, want, nil
		},
		Doc: function.Doc{
			Summary: fmt.Sprintf("Python %s function from %s (arguments of any type)", KindName(spec.Kind), spec.Source()),
			Args:    "...",
		},
	}
	if spec.Kind == function.Scalar {
		def.Eval = func(ctx *function.EvalContext, ct function.CallTypes, args []any) (any, error) {
			d, err := Specialize(def, ct.Args)
			if err != nil {
				return nil, err
			}
			return d.Eval(ctx, ct, args)
		}
	} else {
		def.Eval = NotScalar(spec)
	}
	implMu.Lock()
	impls[def] = p
	implMu.Unlock()
	return def
}

// Specialize returns the definition that runs a call of def with
// arguments of the given types: def itself, unless def is generic
// (NewPoly), whose instance for these types it returns, compiling it on
// first use.
func Specialize(def *function.Definition, args []types.Type) (*function.Definition, error) {
	p, ok := lookup(def).(*poly)
	if !ok {
		return def, nil
	}
	return p.instance(def, args)
}

func (p *poly) instance(generic *function.Definition, args []types.Type) (*function.Definition, error) {
	args = append([]types.Type(nil), args...)
	parts := make([]string, len(args))
	for i, a := range args {
		if a.Kind == types.Null {
			a = types.StringT
		}
		args[i] = a
		parts[i] = a.String()
	}
	key := strings.Join(parts, ", ")
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.defs[key]; ok {
		return d, nil
	}
	spec := p.spec
	spec.Params = make([]types.Field, len(args))
	for i, a := range args {
		spec.Params[i] = types.Field{Name: fmt.Sprintf("arg%d", i), Type: a}
	}
	d, err := p.compile(spec)
	if err != nil {
		return nil, err
	}
	d.Name = generic.Name
	p.defs[key] = d
	return d, nil
}

// Close releases every instance (Release of the generic definition).
func (p *poly) Close() {
	p.mu.Lock()
	defs := p.defs
	p.defs = map[string]*function.Definition{}
	p.mu.Unlock()
	for _, d := range defs {
		Release(d)
	}
}
