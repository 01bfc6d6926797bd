package jdbc

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tablerun/tablerun/core/types"
)

// Dialect is the database a URL names. Only PostgreSQL is implemented.
type Dialect struct {
	// Name is Flink's dialect name ("PostgreSQL").
	Name string
}

// otherDialects are the dialects Flink's JDBC connector has that this
// one does not implement yet, by URL prefix.
var otherDialects = []struct{ prefix, name string }{
	{"jdbc:mysql:", "MySQL"}, {"jdbc:oracle:", "Oracle"}, {"jdbc:derby:", "Derby"},
	{"jdbc:sqlserver:", "SQL Server"}, {"jdbc:db2:", "Db2"}, {"jdbc:trino:", "Trino"},
	{"jdbc:crate:", "CrateDB"}, {"jdbc:oceanbase:", "OceanBase"}, {"jdbc:mariadb:", "MySQL"},
	{"jdbc:sqlite:", "SQLite"}, {"jdbc:h2:", "H2"}, {"jdbc:clickhouse:", "ClickHouse"},
}

// DialectOf returns the dialect of a 'url': PostgreSQL for
// jdbc:postgresql://, a "not supported yet" error naming the dialect for
// the others Flink knows, and Flink's error for anything else.
func DialectOf(u string) (Dialect, error) {
	l := strings.ToLower(strings.TrimSpace(u))
	if strings.HasPrefix(l, "jdbc:postgresql:") {
		return Dialect{Name: "PostgreSQL"}, nil
	}
	for _, d := range otherDialects {
		if strings.HasPrefix(l, d.prefix) {
			return Dialect{}, fmt.Errorf("not supported yet: the %s dialect of the jdbc connector (url '%s'); only PostgreSQL (jdbc:postgresql://) is", d.name, u)
		}
	}
	return Dialect{}, fmt.Errorf("Could not find any jdbc dialect factory that can handle url '%s' that implements 'org.apache.flink.connector.jdbc.core.database.dialect.JdbcDialectFactory' in the classpath.\n\nAvailable factories are:\n\norg.apache.flink.connector.jdbc.postgres.database.dialect.PostgresDialectFactory", u)
}

// ValidateTypes is Flink's PostgresDialect#validate: the physical
// column types the dialect can read and write.
func ValidateTypes(schema types.Schema) error {
	for _, f := range schema {
		if err := validateType(f.Name, f.Type, true); err != nil {
			return err
		}
	}
	return nil
}

func validateType(name string, t types.Type, top bool) error {
	unsupported := func() error {
		return fmt.Errorf("The PostgreSQL dialect doesn't support type: %s.", t)
	}
	switch t.Kind {
	case types.Char, types.VarChar, types.Boolean, types.TinyInt, types.SmallInt, types.Int,
		types.BigInt, types.Float, types.Double, types.Date, types.Time, types.TimestampLTZ:
	case types.VarBinary:
		if t.Precision != types.MaxLength {
			return unsupported()
		}
	case types.Decimal:
		if t.Precision < 1 || t.Precision > 1000 {
			return fmt.Errorf("The precision of field '%s' is out of the DECIMAL precision range [1, 1000] supported by PostgreSQL dialect.", name)
		}
	case types.Timestamp:
		if t.Precision < 1 || t.Precision > 6 {
			return fmt.Errorf("The precision of field '%s' is out of the TIMESTAMP precision range [1, 6] supported by PostgreSQL dialect.", name)
		}
	case types.Array:
		if !top || t.Elem == nil || t.Elem.Kind == types.Array {
			return unsupported()
		}
		if err := validateType(name, *t.Elem, false); err != nil {
			return err
		}
	default:
		return unsupported()
	}
	return nil
}

// pgTypeName is the PostgreSQL type a Flink type maps to (Flink's JDBC
// type mapping), for casts of parameters.
func pgTypeName(t types.Type) string {
	switch t.Kind {
	case types.Boolean:
		return "boolean"
	case types.TinyInt, types.SmallInt:
		return "smallint"
	case types.Int:
		return "integer"
	case types.BigInt:
		return "bigint"
	case types.Float:
		return "real"
	case types.Double:
		return "double precision"
	case types.Decimal:
		return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
	case types.Char, types.VarChar:
		return "text"
	case types.VarBinary, types.Binary:
		return "bytea"
	case types.Date:
		return "date"
	case types.Time:
		return "time"
	case types.Timestamp:
		return "timestamp"
	case types.TimestampLTZ:
		return "timestamptz"
	case types.Array:
		return pgTypeName(*t.Elem) + "[]"
	}
	return "text"
}

// connConfig turns the table's URL and credentials into pgx's
// configuration: jdbc:postgresql://host:port/db?k=v is libpq's URL
// without "jdbc:".
func connConfig(o *Options) (*pgx.ConnConfig, error) {
	raw := strings.TrimSpace(o.URL)
	rest := raw[len("jdbc:"):]
	if !strings.HasPrefix(strings.ToLower(rest), "postgresql://") {
		return nil, fmt.Errorf("jdbc: cannot parse url '%s': want jdbc:postgresql://host[:port]/database", raw)
	}
	u, err := url.Parse(rest)
	if err != nil {
		return nil, fmt.Errorf("jdbc: cannot parse url '%s': %v", raw, err)
	}
	q := u.Query()
	if q.Get("sslmode") == "" {
		// pgJDBC's default is to try TLS and fall back, as libpq's prefer.
		q.Set("sslmode", "prefer")
	}
	// pgJDBC-only parameters have no meaning to the server.
	for _, k := range []string{"currentSchema", "ApplicationName", "loginTimeout", "socketTimeout", "connectTimeout"} {
		if v := q.Get(k); v != "" && k == "currentSchema" {
			q.Set("search_path", v)
		}
		q.Del(k)
	}
	u.RawQuery = q.Encode()
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("jdbc: cannot parse url '%s': %v", raw, err)
	}
	if o.Username != "" {
		cfg.User = o.Username
		cfg.Password = o.Password
	}
	return cfg, nil
}

// connect opens a connection, retrying until MaxRetryTimeout has passed;
// the error then names the URL, the timeout and the last cause.
func connect(ctx context.Context, o *Options) (*pgx.Conn, error) {
	cfg, err := connConfig(o)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(o.MaxRetryTimeout)
	wait := 100 * time.Millisecond
	for {
		left := time.Until(deadline)
		try := min(left, 10*time.Second)
		cctx, cancel := context.WithTimeout(ctx, try)
		c, err := pgx.ConnectConfig(cctx, cfg)
		cancel()
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var pgErr interface{ SQLState() string }
		if errors.As(err, &pgErr) && fatalConnectState(pgErr.SQLState()) {
			return nil, fmt.Errorf("jdbc: cannot connect to '%s': %w", o.URL, err)
		}
		if time.Until(deadline) <= wait {
			return nil, fmt.Errorf("jdbc: cannot connect to '%s' within %s = %s: %w", o.URL, KeyMaxRetryTimeout, o.MaxRetryTimeout, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// fatalConnectState: authentication and unknown-database errors do not
// heal by retrying.
func fatalConnectState(state string) bool {
	return strings.HasPrefix(state, "28") || state == "3D000"
}

// quoteIdent quotes a column or table name for PostgreSQL only when it
// needs it: Flink's PostgresDialect does not quote, so unquoted names
// (folded to lower case) keep their meaning; a name with other characters
// is quoted so that it reaches the server as written.
func quoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || (i > 0 && (r >= '0' && r <= '9' || r == '$')) || r >= 'A' && r <= 'Z') {
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteTable quotes each dotted part of a table name (schema.table).
func quoteTable(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = quoteIdent(p)
	}
	return strings.Join(parts, ".")
}
