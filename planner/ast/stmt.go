package ast

// ColumnKind says how a CREATE TABLE column is defined.
type ColumnKind int

// Column kinds.
const (
	// PhysicalColumn is `name TYPE`.
	PhysicalColumn ColumnKind = iota
	// ComputedColumn is `name AS expr`.
	ComputedColumn
	// MetadataColumn is `name TYPE METADATA [FROM 'key'] [VIRTUAL]`.
	MetadataColumn
)

// ColumnDef is one column of CREATE TABLE or of ALTER TABLE ADD/MODIFY.
// Nullability of physical and metadata columns is Type.NotNull.
type ColumnDef struct {
	Pos
	Name string
	Kind ColumnKind
	// Type is set for physical and metadata columns; nil for computed ones.
	Type *DataType
	// Computed is the expression of a computed column.
	Computed Expr
	// MetadataKey is the FROM 'key' of a metadata column ("" if absent).
	MetadataKey string
	// Virtual is set for METADATA ... VIRTUAL.
	Virtual bool
	// Comment is the COMMENT 'text' of the column; HasComment tells an
	// empty comment from none.
	Comment    string
	HasComment bool
	// Placement is FIRST or AFTER col in ALTER TABLE ADD/MODIFY (zero if absent).
	Placement ColumnPlacement
}

// ColumnPlacement is the optional FIRST / AFTER col of ALTER TABLE ADD/MODIFY.
type ColumnPlacement struct {
	First bool
	After string
}

// PrimaryKey is [CONSTRAINT name] PRIMARY KEY (cols) NOT ENFORCED, either
// as a table constraint or inline on a column.
type PrimaryKey struct {
	Pos
	ConstraintName string
	Columns        []string
	// NotEnforced is set when NOT ENFORCED was written (Flink requires it).
	NotEnforced bool
}

// Watermark is WATERMARK FOR rowtime AS expr.
type Watermark struct {
	Pos
	// Column is the rowtime column; nested fields are joined with '.'.
	Column string
	Expr   Expr
}

// LikeOption is one INCLUDING/EXCLUDING/OVERWRITING feature of a LIKE clause.
type LikeOption struct {
	// Mode is INCLUDING, EXCLUDING or OVERWRITING.
	Mode string
	// Feature is ALL, CONSTRAINTS, DISTRIBUTION, GENERATED, METADATA,
	// OPTIONS, PARTITIONS or WATERMARKS.
	Feature string
}

// LikeClause is CREATE TABLE ... LIKE source (options).
type LikeClause struct {
	Pos
	Name    ObjectName
	Options []LikeOption
}

// CreateTable is CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (...) ...
// including CREATE TABLE ... AS query (CTAS).
type CreateTable struct {
	Pos
	Name          ObjectName
	Temporary     bool
	IfNotExists   bool
	Columns       []ColumnDef
	PrimaryKey    *PrimaryKey
	Watermark     *Watermark
	Comment       string
	HasComment    bool
	PartitionedBy []string
	Options       []Option
	Like          *LikeClause
	// AsQuery is the query of CREATE TABLE ... AS SELECT; nil otherwise.
	AsQuery Query
	// AsQueryText is the source text of AsQuery.
	AsQueryText string
}

// CreateView is CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(cols)]
// [COMMENT 'c'] AS query.
type CreateView struct {
	Pos
	Name        ObjectName
	Temporary   bool
	IfNotExists bool
	ColumnNames []string
	Comment     string
	HasComment  bool
	Query       Query
	// QueryText is the exact source text of Query sliced from the input.
	QueryText string
}

// AlterView is ALTER VIEW name RENAME TO new_name (NewName set) or ALTER
// VIEW name AS query (Query set).
type AlterView struct {
	Pos
	Name    ObjectName
	NewName ObjectName
	Query   Query
	// QueryText is the exact source text of Query.
	QueryText string
}

// DropTable is DROP [TEMPORARY] TABLE [IF EXISTS] name.
type DropTable struct {
	Pos
	Name      ObjectName
	IfExists  bool
	Temporary bool
}

// DropView is DROP [TEMPORARY] VIEW [IF EXISTS] name.
type DropView struct {
	Pos
	Name      ObjectName
	IfExists  bool
	Temporary bool
}

// PartitionValue is one `col = literal` of a PARTITION (...) spec.
type PartitionValue struct {
	Pos
	Column string
	Value  Expr
}

// Insert is INSERT {INTO|OVERWRITE} table [PARTITION (...)] [(cols)] query.
type Insert struct {
	Pos
	Table         ObjectName
	Hints         []Hint
	Overwrite     bool
	PartitionSpec []PartitionValue
	Columns       []string
	Query         Query
}

// QueryStmt is a query used as a statement (SELECT, VALUES, WITH, set ops).
type QueryStmt struct {
	Pos
	Query Query
	// Text is the source text of the query.
	Text string
}

// Explain is EXPLAIN [PLAN FOR | detail, ...] statement.
type Explain struct {
	Pos
	// Details are upper-case ESTIMATED_COST, CHANGELOG_MODE,
	// JSON_EXECUTION_PLAN or PLAN_ADVICE in written order.
	Details []string
	PlanFor bool
	// Analyze is EXPLAIN ANALYZE (tablerun): run the statement and print
	// the plan with runtime statistics per node.
	Analyze   bool
	Statement Statement
}

// Set is SET ['key' = 'value'] (both empty for bare SET).
type Set struct {
	Pos
	Key   string
	Value string
	// HasKey is false for a bare `SET`.
	HasKey bool
}

// Reset is RESET ['key'] (Key empty for bare RESET).
type Reset struct {
	Pos
	Key string
}

// ShowLike is the optional [NOT] LIKE|ILIKE 'pattern' of SHOW statements.
type ShowLike struct {
	Not bool
	// ILike is set for ILIKE (case-insensitive).
	ILike   bool
	Pattern string
}

// ShowFrom is the optional FROM|IN qualifier of SHOW statements. Name is
// empty when absent.
type ShowFrom struct {
	// In is set when IN was written instead of FROM.
	In   bool
	Name ObjectName
}

// ShowTables is SHOW TABLES [FROM|IN db] [[NOT] LIKE|ILIKE 'p'].
type ShowTables struct {
	Pos
	From ShowFrom
	Like *ShowLike
}

// ShowViews is SHOW VIEWS [FROM|IN db] [[NOT] LIKE|ILIKE 'p'].
type ShowViews struct {
	Pos
	From ShowFrom
	Like *ShowLike
}

// ShowDatabases is SHOW DATABASES [FROM|IN catalog] [[NOT] LIKE|ILIKE 'p'].
type ShowDatabases struct {
	Pos
	From ShowFrom
	Like *ShowLike
}

// ShowCatalogs is SHOW CATALOGS [[NOT] LIKE|ILIKE 'p'].
type ShowCatalogs struct {
	Pos
	Like *ShowLike
}

// ShowCurrentCatalog is SHOW CURRENT CATALOG.
type ShowCurrentCatalog struct{ Pos }

// ShowCurrentDatabase is SHOW CURRENT DATABASE.
type ShowCurrentDatabase struct{ Pos }

// ShowFunctions is SHOW [USER] FUNCTIONS [FROM|IN db] [[NOT] LIKE|ILIKE 'p'].
type ShowFunctions struct {
	Pos
	User bool
	From ShowFrom
	Like *ShowLike
}

// ShowProcedures is SHOW PROCEDURES [FROM|IN db] [[NOT] LIKE|ILIKE 'p'].
type ShowProcedures struct {
	Pos
	From ShowFrom
	Like *ShowLike
}

// ShowModules is SHOW [FULL] MODULES.
type ShowModules struct {
	Pos
	Full bool
}

// ShowColumns is SHOW COLUMNS {FROM|IN} table [[NOT] LIKE|ILIKE 'p'].
type ShowColumns struct {
	Pos
	From ShowFrom
	Like *ShowLike
}

// ShowCreateTable is SHOW CREATE TABLE name.
type ShowCreateTable struct {
	Pos
	Name ObjectName
}

// ShowCreateView is SHOW CREATE VIEW name.
type ShowCreateView struct {
	Pos
	Name ObjectName
}

// ShowCreateCatalog is SHOW CREATE CATALOG name.
type ShowCreateCatalog struct {
	Pos
	Name string
}

// ShowJobs is SHOW JOBS.
type ShowJobs struct{ Pos }

// ShowJars is SHOW JARS.
type ShowJars struct{ Pos }

// Describe is DESCRIBE|DESC [EXTENDED] name (a table or view).
type Describe struct {
	Pos
	Name     ObjectName
	Extended bool
}

// DescribeCatalog is DESCRIBE|DESC CATALOG [EXTENDED] name.
type DescribeCatalog struct {
	Pos
	Name     string
	Extended bool
}

// DescribeDatabase is DESCRIBE|DESC DATABASE [EXTENDED] name.
type DescribeDatabase struct {
	Pos
	Name     ObjectName
	Extended bool
}

// DescribeFunction is DESCRIBE|DESC FUNCTION [EXTENDED] name.
type DescribeFunction struct {
	Pos
	Name     ObjectName
	Extended bool
}

// Use is USE [CATALOG] name. With Catalog false Name is a database name,
// possibly qualified by a catalog.
type Use struct {
	Pos
	Catalog bool
	Name    ObjectName
}

// UseModules is USE MODULES m1, m2, ...
type UseModules struct {
	Pos
	Names []string
}

// CreateCatalog is CREATE CATALOG [IF NOT EXISTS] name [COMMENT 'c'] WITH (...).
type CreateCatalog struct {
	Pos
	Name        string
	IfNotExists bool
	Comment     string
	HasComment  bool
	Options     []Option
}

// DropCatalog is DROP CATALOG [IF EXISTS] name.
type DropCatalog struct {
	Pos
	Name     string
	IfExists bool
}

// AlterCatalog is ALTER CATALOG name SET (...) | RESET (keys) | COMMENT 'c'.
type AlterCatalog struct {
	Pos
	Name string
	// Set holds the options of SET (...).
	Set []Option
	// Reset holds the keys of RESET (...).
	Reset []string
	// Comment is set with HasComment for ALTER CATALOG ... COMMENT 'c'.
	Comment    string
	HasComment bool
}

// CreateDatabase is CREATE DATABASE [IF NOT EXISTS] [cat.]db [COMMENT 'c'] [WITH (...)].
type CreateDatabase struct {
	Pos
	Name        ObjectName
	IfNotExists bool
	Comment     string
	HasComment  bool
	Options     []Option
}

// DropDatabase is DROP DATABASE [IF EXISTS] [cat.]db [RESTRICT|CASCADE].
type DropDatabase struct {
	Pos
	Name     ObjectName
	IfExists bool
	Cascade  bool
}

// AlterDatabase is ALTER DATABASE [cat.]db SET (...).
type AlterDatabase struct {
	Pos
	Name ObjectName
	Set  []Option
}

// FunctionParam is one parameter of an inline function definition.
type FunctionParam struct {
	Pos
	Name string
	Type *DataType
}

// CreateFunction is CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name
// either AS 'class' [LANGUAGE lang] [USING JAR '...', ...] or the inline form
// name(params) RETURNS type|TABLE(cols) LANGUAGE lang AS $$ body $$.
type CreateFunction struct {
	Pos
	Name        ObjectName
	Temporary   bool
	System      bool
	IfNotExists bool
	// ClassName is the AS 'class' of the class form.
	ClassName string
	// Language is upper case (JAVA, SCALA, PYTHON, ...); "" if not written.
	Language string
	// Jars are the USING JAR resources.
	Jars []string
	// Inline is set for the inline form with Params/Returns/Body.
	Inline bool
	Params []FunctionParam
	// Returns is the RETURNS type of a scalar inline function.
	Returns *DataType
	// ReturnsTable holds the columns of RETURNS TABLE (...).
	ReturnsTable []RowFieldDef
	// Body is the text between $$ and $$ (or the string of AS 'body').
	Body string
}

// DropFunction is DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name.
type DropFunction struct {
	Pos
	Name      ObjectName
	Temporary bool
	System    bool
	IfExists  bool
}

// AlterFunction is ALTER [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name AS 'class' [LANGUAGE l].
type AlterFunction struct {
	Pos
	Name      ObjectName
	Temporary bool
	System    bool
	IfExists  bool
	ClassName string
	Language  string
}

// LoadModule is LOAD MODULE name [WITH (...)].
type LoadModule struct {
	Pos
	Name    string
	Options []Option
}

// UnloadModule is UNLOAD MODULE name.
type UnloadModule struct {
	Pos
	Name string
}

// AddJar is ADD JAR 'path'.
type AddJar struct {
	Pos
	Path string
}

// RemoveJar is REMOVE JAR 'path'.
type RemoveJar struct {
	Pos
	Path string
}

// AlterTableAction is one action of ALTER TABLE: one of the Alter* types
// below.
type AlterTableAction interface {
	Node
	alterAction()
}

// AlterTable is ALTER TABLE [IF EXISTS] name action.
type AlterTable struct {
	Pos
	Name     ObjectName
	IfExists bool
	Action   AlterTableAction
}

// AlterRenameTable is RENAME TO new_name.
type AlterRenameTable struct {
	Pos
	NewName ObjectName
}

// AlterSetOptions is SET ('k' = 'v', ...).
type AlterSetOptions struct {
	Pos
	Options []Option
}

// AlterResetOptions is RESET ('k', ...).
type AlterResetOptions struct {
	Pos
	Keys []string
}

// AlterSchema is ADD or MODIFY of columns, a primary key and/or a
// watermark: ADD col / ADD (col, ..., PRIMARY KEY ..., WATERMARK ...).
type AlterSchema struct {
	Pos
	// Modify is set for MODIFY, unset for ADD.
	Modify     bool
	Columns    []ColumnDef
	PrimaryKey *PrimaryKey
	Watermark  *Watermark
}

// AlterDropColumns is DROP col | DROP (col, ...).
type AlterDropColumns struct {
	Pos
	Columns []string
}

// AlterDropPrimaryKey is DROP PRIMARY KEY or DROP CONSTRAINT name.
type AlterDropPrimaryKey struct {
	Pos
	// ConstraintName is set for DROP CONSTRAINT name.
	ConstraintName string
}

// AlterDropWatermark is DROP WATERMARK.
type AlterDropWatermark struct{ Pos }

// AlterRenameColumn is RENAME old TO new.
type AlterRenameColumn struct {
	Pos
	Old string
	New string
}

// BeginStatementSet is BEGIN STATEMENT SET: the SQL client collects the
// following INSERT / CREATE TABLE AS statements until END.
type BeginStatementSet struct{ Pos }

// EndStatementSet is END, which submits the statements collected since
// BEGIN STATEMENT SET.
type EndStatementSet struct{ Pos }

// StatementSet is [EXECUTE] STATEMENT SET BEGIN stmt; ... END, also used
// under EXPLAIN. Statements are *Insert or *CreateTable with AsQuery.
type StatementSet struct {
	Pos
	Statements []Statement
}

func (*BeginStatementSet) stmtNode()   {}
func (*EndStatementSet) stmtNode()     {}
func (*StatementSet) stmtNode()        {}
func (*CreateTable) stmtNode()         {}
func (*CreateView) stmtNode()          {}
func (*AlterView) stmtNode()           {}
func (*DropTable) stmtNode()           {}
func (*DropView) stmtNode()            {}
func (*Insert) stmtNode()              {}
func (*QueryStmt) stmtNode()           {}
func (*Explain) stmtNode()             {}
func (*Set) stmtNode()                 {}
func (*Reset) stmtNode()               {}
func (*ShowTables) stmtNode()          {}
func (*ShowViews) stmtNode()           {}
func (*ShowDatabases) stmtNode()       {}
func (*ShowCatalogs) stmtNode()        {}
func (*ShowCurrentCatalog) stmtNode()  {}
func (*ShowCurrentDatabase) stmtNode() {}
func (*ShowFunctions) stmtNode()       {}
func (*ShowProcedures) stmtNode()      {}
func (*ShowModules) stmtNode()         {}
func (*ShowColumns) stmtNode()         {}
func (*ShowCreateTable) stmtNode()     {}
func (*ShowCreateView) stmtNode()      {}
func (*ShowCreateCatalog) stmtNode()   {}
func (*ShowJobs) stmtNode()            {}
func (*ShowJars) stmtNode()            {}
func (*Describe) stmtNode()            {}
func (*DescribeCatalog) stmtNode()     {}
func (*DescribeDatabase) stmtNode()    {}
func (*DescribeFunction) stmtNode()    {}
func (*Use) stmtNode()                 {}
func (*UseModules) stmtNode()          {}
func (*CreateCatalog) stmtNode()       {}
func (*DropCatalog) stmtNode()         {}
func (*AlterCatalog) stmtNode()        {}
func (*CreateDatabase) stmtNode()      {}
func (*DropDatabase) stmtNode()        {}
func (*AlterDatabase) stmtNode()       {}
func (*CreateFunction) stmtNode()      {}
func (*DropFunction) stmtNode()        {}
func (*AlterFunction) stmtNode()       {}
func (*LoadModule) stmtNode()          {}
func (*UnloadModule) stmtNode()        {}
func (*AddJar) stmtNode()              {}
func (*RemoveJar) stmtNode()           {}
func (*AlterTable) stmtNode()          {}

func (*AlterRenameTable) alterAction()    {}
func (*AlterSetOptions) alterAction()     {}
func (*AlterResetOptions) alterAction()   {}
func (*AlterSchema) alterAction()         {}
func (*AlterDropColumns) alterAction()    {}
func (*AlterDropPrimaryKey) alterAction() {}
func (*AlterDropWatermark) alterAction()  {}
func (*AlterRenameColumn) alterAction()   {}

// String returns PHYSICAL, COMPUTED or METADATA.
func (k ColumnKind) String() string {
	switch k {
	case PhysicalColumn:
		return "PHYSICAL"
	case ComputedColumn:
		return "COMPUTED"
	case MetadataColumn:
		return "METADATA"
	}
	return "UNKNOWN"
}
