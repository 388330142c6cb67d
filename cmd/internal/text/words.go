package text

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Plural writes a count of word: "1 line", "2 lines", "0 lines".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// OrList writes names as "a, b or c".
func OrList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ByteSize writes a size for people: bytes, KiB, MiB or GiB.
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return Plural(int(n), "byte")
}

// ListCandidates completes the word after the last comma of toComplete,
// a comma-separated list of values: each value not given yet, written
// after those given (stale,du completes to stale,duplicate).
func ListCandidates(values []string, toComplete string) []string {
	i := strings.LastIndexByte(toComplete, ',')
	if i < 0 {
		return values
	}
	head := toComplete[:i+1]
	given := strings.Split(toComplete[:i], ",")
	out := make([]string, 0, len(values))
	for _, v := range values {
		if !slices.Contains(given, v) {
			out = append(out, head+v)
		}
	}
	return out
}
