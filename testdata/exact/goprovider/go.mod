module example.com/goprovider

go 1.21
