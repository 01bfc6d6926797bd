package ast

// ShowEffectiveConfiguration is SHOW EFFECTIVE CONFIGURATION, tablerun's
// own statement (Flink has none): it lists every option of the session's
// effective configuration with its value and where the value came from
// (default, file, creation, set). `SET;` keeps Flink's meaning and lists
// only the explicitly set options.
type ShowEffectiveConfiguration struct{ Pos }

func (*ShowEffectiveConfiguration) stmtNode() {}
