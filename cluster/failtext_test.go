package cluster

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFailTextBounded: a failure's text is at most maxFailText bytes, the
// mark of the cut included, and is cut between characters.
func TestFailTextBounded(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("p", 64<<10),
		strings.Repeat("é", 40<<10), // two bytes a character
		strings.Repeat("p", maxFailText-1) + "é",
		strings.Repeat("p", maxFailText),
	} {
		got := failText(text)
		if len(got) > maxFailText || !utf8.ValidString(got) {
			t.Errorf("failText of %d bytes gave %d bytes, valid UTF-8 %v; want at most %d, valid", len(text), len(got), utf8.ValidString(got), maxFailText)
		}
		if len(text) <= maxFailText && got != text {
			t.Errorf("failText cut a text of %d bytes, at most %d", len(text), maxFailText)
		}
	}
}
