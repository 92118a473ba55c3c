package client

// Server is the client's view of a remote server (a homonym of server.Server).
type Server struct {
	URL string
}

// NewServer is a homonym of server.NewServer in another package.
func NewServer(url string) Server { return Server{URL: url} }
