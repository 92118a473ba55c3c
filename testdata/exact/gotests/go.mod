module example.com/gotests

go 1.21
