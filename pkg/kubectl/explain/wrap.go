package explain

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// wrap breaks the lines of s so that none is longer than limit runes
// where it can: a word that would cross the limit starts the next line
// (the spaces before it dropped), unless it sits at the start of a line;
// the line breaks of s stay. kubectl explain wraps descriptions so.
func wrap(s string, limit int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		wrapLine(&b, line, limit)
	}
	return b.String()
}

// wrapLine wraps one line without line breaks.
func wrapLine(b *strings.Builder, line string, limit int) {
	current := 0 // runes on the output line so far
	rest := line
	for rest != "" {
		// The spaces before the next word, then the word.
		word := strings.TrimLeftFunc(rest, isBreakingSpace)
		spaces := rest[:len(rest)-len(word)]
		end := strings.IndexFunc(word, isBreakingSpace)
		if end < 0 {
			end = len(word)
		}
		word, rest = word[:end], word[end:]
		ns, nw := utf8.RuneCountInString(spaces), utf8.RuneCountInString(word)
		if nw == 0 {
			// Trailing spaces stay when they fit.
			if current+ns <= limit {
				b.WriteString(spaces)
			}
			return
		}
		// A word moves to a new line as soon as it would cross the limit
		// while still shorter than the limit itself.
		if current+ns+min(nw, limit-1) > limit {
			b.WriteByte('\n')
			current, spaces, ns = 0, "", 0
		}
		b.WriteString(spaces)
		b.WriteString(word)
		current += ns + nw
	}
}

// isBreakingSpace is white space other than a no-break space.
func isBreakingSpace(r rune) bool { return unicode.IsSpace(r) && r != '\u00a0' }
