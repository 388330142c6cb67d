package cmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run snapctl in-process as the "snapctl" command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"snapctl": func() { os.Exit(Execute()) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: one script per
// user-visible behaviour, with its expected output. The sample captures
// testdata/*.jsonl are in every script's work directory under their own
// names; a script inlines only the inputs that are its own.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../testdata/script",
		// UPDATE_SCRIPTS=1 go test ./cmd rewrites the expected output of
		// cmp commands after a deliberate change; review the diff.
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "")
			return copySamples(env.WorkDir)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"fits": fits},
	})
}

// fits N checks that no line of the last command's stdout is wider than
// N terminal cells: on a terminal of that width, none would wrap.
func fits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fits WIDTH")
	}
	width, err := strconv.Atoi(args[0])
	ts.Check(err)
	for i, line := range strings.Split(ts.ReadFile("stdout"), "\n") {
		if w := text.Width(line); w > width {
			ts.Fatalf("line %d is %d cells wide, over %d: %q", i+1, w, width, line)
		}
	}
}

// copySamples copies the sample captures testdata/*.jsonl into dir; a
// file the script has under the same name is the script's own and stays.
func copySamples(dir string) error {
	samples, err := filepath.Glob("../testdata/*.jsonl")
	if err != nil {
		return err
	}
	for _, name := range samples {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(filepath.Join(dir, filepath.Base(name)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
