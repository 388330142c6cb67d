//go:build !unix

package iostreams

import "os"

// terminalColumns is 0 where snapctl cannot ask the terminal: COLUMNS,
// or the default of 80, is used instead.
func terminalColumns(*os.File) int { return 0 }
