package v1

// Thing is a struct that gets a generated DeepCopyInto.
type Thing struct {
	Tags []string
	Ref  *int
}

// Flat needs no more than an assignment to copy.
type Flat struct {
	A string
	B int
}
