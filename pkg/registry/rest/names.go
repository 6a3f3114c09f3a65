package rest

import "math/rand/v2"

const (
	// nameSuffixAlphabet leaves out vowels and look-alike characters, so
	// that generated names spell no words.
	nameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"
	nameSuffixLength   = 5
	// maxGeneratedBaseLength keeps a generated name within 63 characters.
	maxGeneratedBaseLength = 63 - nameSuffixLength
)

// SimpleNameGenerator returns base (cut to 58 characters) followed by five
// random characters.
func SimpleNameGenerator(base string) string {
	if len(base) > maxGeneratedBaseLength {
		base = base[:maxGeneratedBaseLength]
	}
	b := make([]byte, nameSuffixLength)
	for i := range b {
		b[i] = nameSuffixAlphabet[rand.IntN(len(nameSuffixAlphabet))]
	}
	return base + string(b)
}
