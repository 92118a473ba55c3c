package third_party

func Excluded() {}
