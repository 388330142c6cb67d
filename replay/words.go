package replay

import "strconv"

// plural writes a count of a thing: "1 entry", "2 entries", "0 entries".
// (cmd/internal/text.Plural is cmd's; replay does not import cmd.)
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
