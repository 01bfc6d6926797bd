// Package formats registers tablerun's built-in message formats
// (connectors/format): json, csv, raw, avro and the JSON changelog
// formats.
package formats

import (
	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/connectors/format/avro"
	"github.com/tablerun/tablerun/connectors/format/csv"
	"github.com/tablerun/tablerun/connectors/format/json"
	"github.com/tablerun/tablerun/connectors/format/raw"
)

// Register adds the built-in formats to r.
func Register(r *format.Registry) {
	r.Register(json.Factory{})
	r.Register(csv.Factory{})
	r.Register(raw.Factory{})
	r.Register(avro.Factory{})
	r.Register(json.DebeziumFactory)
	r.Register(json.CanalFactory)
	r.Register(json.MaxwellFactory)
	r.Register(json.OggFactory)
}

var builtin = func() *format.Registry {
	r := format.NewRegistry()
	Register(r)
	return r
}()

// Builtin returns the registry of the built-in formats (shared; do not
// register into it).
func Builtin() *format.Registry { return builtin }
