module example.com/goconsumer

go 1.21

require example.com/goprovider v0.0.0

replace example.com/goprovider => ../goprovider
