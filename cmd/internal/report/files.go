package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/agentskit/snapctl/replay"
)

// HashBeside hashes the files on a goroutine, beside the run, which
// reads them through the page cache as well; the function it returns
// waits for the result.
func HashBeside(names []string) func() ([]File, error) {
	type hashed struct {
		files []File
		err   error
	}
	hc := make(chan hashed, 1)
	go func() {
		files, err := hashFiles(names)
		hc <- hashed{files, err}
	}()
	return func() ([]File, error) {
		h := <-hc
		return h.files, h.err
	}
}

// hashFiles measures and hashes each capture as stored; standard input
// is left to be hashed as it is read.
func hashFiles(names []string) ([]File, error) {
	out := make([]File, len(names))
	for i, name := range names {
		out[i].Name = name
		if name == replay.StdinName {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[i].Size, out[i].SHA256 = n, hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}
