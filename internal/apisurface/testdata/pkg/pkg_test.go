package pkg

func TestNotCounted() {}
