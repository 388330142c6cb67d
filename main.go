package main

import (
	"os"

	"github.com/agentskit/snapctl/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
