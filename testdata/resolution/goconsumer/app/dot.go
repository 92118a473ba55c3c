package main

import . "example.com/gocalls/server"

// dotted reaches Run through a dot import: the file block holds the provider's names.
func dotted() error { return Run(":81") }
