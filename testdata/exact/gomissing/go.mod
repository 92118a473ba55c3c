module example.com/gomissing

go 1.16

require example.com/nowhere v1.2.3
