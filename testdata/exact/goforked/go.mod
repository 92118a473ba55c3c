module example.com/goforked

go 1.21

require example.com/goprovider v0.0.0

// A fork nobody registered: the build uses it, not the registered goprovider.
replace example.com/goprovider => ../goprovider-fork
