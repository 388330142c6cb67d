package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

func TestExploreNeedsTerminal(t *testing.T) {
	ios, out, errOut := iostreams.Test("")
	code := run(ios, []string{"explore", filepath.Join("..", "testdata", "reconnect.jsonl")})
	if code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	if out.Len() != 0 || strings.Count(errOut.String(), "\n") != 1 || !strings.HasPrefix(errOut.String(), "snapctl: explore needs a terminal") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}
