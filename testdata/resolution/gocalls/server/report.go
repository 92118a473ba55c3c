package server

func report(addr string) {
	validate := func(a string) bool { return a != "" }
	validate(addr)
	defer cleanup()
}

func cleanup() {}

// register passes, stores and returns functions as values (rule G12).
func register() func() {
	retry(report)
	handlers := map[string]func(){"clean": cleanup}
	_ = handlers
	return cleanup
}
