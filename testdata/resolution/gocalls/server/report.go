package server

func report(addr string) {
	validate := func(a string) bool { return a != "" }
	validate(addr)
	defer cleanup()
}

func cleanup() {}
