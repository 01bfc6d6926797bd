package ast

// StopJob is STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN] (Flink's SQL
// client).
type StopJob struct {
	Pos
	ID        string
	Savepoint bool
	Drain     bool
}

func (*StopJob) stmtNode() {}

// DescribeJob is DESCRIBE JOB 'id' (Flink 1.20).
type DescribeJob struct {
	Pos
	ID string
}

func (*DescribeJob) stmtNode() {}
