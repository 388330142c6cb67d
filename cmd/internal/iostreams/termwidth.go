package iostreams

import (
	"os"

	"github.com/charmbracelet/x/term"
)

// terminalColumns is the width of the terminal f is, or 0 where it does
// not say (then COLUMNS, or the default of 80, is used instead).
func terminalColumns(f *os.File) int {
	w, _, err := term.GetSize(f.Fd())
	if err != nil || w < 0 {
		return 0
	}
	return w
}
