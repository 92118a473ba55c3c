package gomissing

import "example.com/nowhere/gauge"

// Read reads a gauge nobody downloaded.
func Read() int { return gauge.Level() + local() }

func local() int { return 1 }
