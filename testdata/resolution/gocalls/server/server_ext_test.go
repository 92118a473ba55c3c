package server_test

// report is a homonym in the external test package, which shares the directory.
func report() {}

func TestRun() { report() }
