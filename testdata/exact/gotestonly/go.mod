module example.com/gotestonly

// Its go.mod predates module graph pruning: the go command reads the go.mod of every
// module it requires, goprovider included, though only a test imports it.
go 1.16

require example.com/goprovider v0.0.0
