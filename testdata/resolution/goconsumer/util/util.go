package util

// a imports nothing: no edit elsewhere re-resolves it.
func a() { b() }

func b() {}
