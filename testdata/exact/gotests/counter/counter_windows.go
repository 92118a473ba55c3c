package counter

// OnWindows exists only in a Windows build.
func OnWindows() *Counter { return New() }
