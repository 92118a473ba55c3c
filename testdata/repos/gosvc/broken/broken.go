package broken

// Good survives the error below.
func Good() {}

func Broken( {

func After() {}
