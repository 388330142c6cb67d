// Command snapctl replays agentskit.chat.turn v1 captures through the
// snapshot cursor and explains every verdict.
package main

import (
	"os"

	"github.com/agentskit/snapctl/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
