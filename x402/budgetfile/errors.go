package budgetfile

// LockedError reports a budget file that another process has open, or another Store of
// this process: a budget file serves one process at a time, which keeps the accounts of its
// holds in memory. The lock goes with the process that holds it, however that process ends,
// so a file whose process was killed opens at once.
type LockedError struct {
	// Path is the file's path, as given to Open.
	Path string
}

// Error names the file.
func (e *LockedError) Error() string {
	return "budgetfile: " + e.Path + " is open in another process (or another Store of this one); a budget file serves one process at a time"
}

// FormatError reports a file Open will not use: another program's SQLite database, or a
// budget file whose schema is newer than this release knows. The file is left as it is.
type FormatError struct {
	// Path is the file's path, as given to Open.
	Path string
	// Reason says what is wrong.
	Reason string
}

// Error names the file and the reason.
func (e *FormatError) Error() string { return "budgetfile: " + e.Path + ": " + e.Reason }
