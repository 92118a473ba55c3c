package main

import "example.com/gocalls/server"

// main consumes another registered repository by its import path; the package name the
// file binds is the provider's package clause.
func main() {
	_ = server.Run(":80")
}
