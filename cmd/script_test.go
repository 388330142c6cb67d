package cmd

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run snapctl in-process as the "snapctl" command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"snapctl": func() { os.Exit(run(System(), os.Args[1:])) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: one script per
// user-visible behaviour, with its input files and expected output.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../testdata/script",
		// UPDATE_SCRIPTS=1 go test ./cmd rewrites the expected output of
		// cmp commands after a deliberate change; review the diff.
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "")
			return nil
		},
	})
}
