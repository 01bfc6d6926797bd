// Package catalog holds catalog objects (tables, views, functions), the
// Catalog interface with its implementations, and the Manager that resolves
// 1-, 2- and 3-part names against the current catalog and database and keeps
// the session's temporary objects.
//
// # Catalogs, databases and temporary objects
//
// A session starts in catalog default_catalog, database default_database
// (options table.builtin-catalog-name / table.builtin-database-name), both
// in memory. A 1-part name is completed with the current catalog and
// database, a 2-part name db.obj with the current catalog. Names of
// catalogs, databases, tables and views are case-sensitive; back-quote
// names that are keywords or contain dots or other characters
// (`my-db`.`table`). Function names are case-insensitive.
//
// Temporary tables and views (CREATE TEMPORARY …) belong to the session,
// are keyed by their full identifier and are looked up before the
// catalog's objects, so a temporary object hides (shadows) a permanent one
// of the same name for queries, DESCRIBE and SHOW CREATE. They are never
// written to a catalog and vanish with the session. Errors use Flink's
// texts, e.g. "Temporary table '`c`.`d`.`t`' already exists" (also for
// views) and "Temporary view with identifier '…' exists. Drop it first
// before removing the permanent view.". Every Error reports the Java
// exception class Flink uses (JavaClass), e.g. DatabaseNotExistException.
//
// Views store the query as written and its expansion with every table
// fully qualified, so a view means the same thing from every database;
// SHOW CREATE VIEW prints the expansion. Columns that pass a rowtime or
// proctime attribute through are remembered (DESCRIBE shows *ROWTIME* /
// *PROCTIME*).
//
// # Catalog types
//
// CREATE CATALOG name [COMMENT '…'] WITH ('type' = '…', …) knows two types:
//
//   - 'generic_in_memory' — Flink's in-memory catalog. Option
//     'default-database' (default "default").
//   - 'tablerun_file' — tablerun's persistent catalog. Its permanent
//     databases, tables, views and functions are files under a directory and
//     survive a restart of tablerun: create the catalog again with the same
//     'path' in the next session and everything is back; temporary objects
//     are not stored. Options: 'path' (required: the directory, created if
//     missing; an existing non-empty directory must hold a tablerun_file
//     catalog) and 'default-database' (default "default", created if
//     missing).
//
// Example:
//
//	CREATE CATALOG lake WITH ('type' = 'tablerun_file', 'path' = '/var/lib/tablerun/lake');
//	USE CATALOG lake;
//	CREATE TABLE orders (id BIGINT, amount DOUBLE) WITH ('connector' = 'filesystem', …);
//
// Layout of a 'tablerun_file' directory (documents are JSON; names are
// escaped for the file system: ASCII letters, digits, '_' and '-' are kept,
// any other byte is written %XX):
//
//	catalog.json                      {"type": "tablerun_file", "version": 1}
//	<db>/database.json                comment and properties of the database
//	<db>/objects/<table or view>.json one table or view
//	<db>/functions/<function>.json    one catalog function (name in lower case)
//
// Every change is written atomically: the new document goes to a temporary
// file in the same directory, which is fsynced, renamed over the old one,
// and the directory is fsynced; a new database is a fully written
// temporary directory renamed into place, a dropped one is renamed away
// before it is deleted. A crash therefore leaves either the old or the new
// metadata, never a half-written file. A document that cannot be read
// (damaged, or written by a newer tablerun) fails every statement that
// needs it with a CatalogException naming the file ("Catalog lake cannot
// read its metadata file /var/lib/…/orders.json …"), matching ErrCorrupt;
// the other objects stay usable. One process at a time may write a
// catalog directory.
//
// # Keeping CREATE CATALOG across sessions
//
// As in Flink, the catalogs themselves are session objects: a new session
// starts with the built-in catalog only, unless a catalog store is
// configured. With the session options
//
//	table.catalog-store.kind      = 'file'
//	table.catalog-store.file.path = '/var/lib/tablerun/catalogs'
//
// (set them when the session is created: as EnvironmentSettings options or
// with the CLI's -D key=value; SET in a running session has no effect),
// every CREATE / ALTER / DROP CATALOG is written to that
// directory, one YAML file per catalog (its options, plus its comment under
// "comment"), and every new session re-creates those catalogs. Together
// with 'tablerun_file' catalogs this makes a complete persistent setup.
// A damaged store file fails the session's statements with an error naming
// it. The default kind, 'generic_in_memory', keeps catalogs in the session.
//
// The Manager, both catalog types and the store are safe for concurrent use.
package catalog
