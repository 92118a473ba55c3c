module example.com/gomissing

go 1.21

require example.com/nowhere v1.2.3
